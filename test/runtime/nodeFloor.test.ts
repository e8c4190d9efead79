/**
 * The Node.js floor package.json documents (`engines.node`) is one every installed package accepts:
 * `npm ci` on the oldest supported Node warns about nothing (a package that wants a newer Node is
 * pinned in `overrides` or replaced).
 */
import { readFileSync } from 'node:fs';
import semver from 'semver';
import t from 'tap';

const root = new URL('../../', import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(new URL('package-lock.json', root), 'utf8')) as { packages: Record<string, { engines?: Record<string, string> | string[]; optional?: boolean }> };

t.test('every locked package accepts the documented Node floor', async (t) => {
  const floor = semver.minVersion(manifest.engines.node)!.version;
  t.ok(semver.gte(floor, '20.19.0'), `the floor is ${floor}`);
  const refusing = Object.entries(lock.packages)
    .filter(([path]) => path !== '')
    .flatMap(([path, entry]) => {
      const range = entry.engines && !Array.isArray(entry.engines) ? entry.engines.node : undefined;
      return range && !semver.satisfies(floor, range) ? [`${path.replace(/^.*node_modules\//, '')} wants node ${range}`] : [];
    });
  t.same(refusing, [], 'no package wants a newer Node than the floor');
});
