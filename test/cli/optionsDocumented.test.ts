/**
 * Every option a built-in plugin's schema accepts is in README.md's Configuration table: a row of
 * its own (`plugins.jobs.enqueueTimeoutMs`), a row naming several (`plugins.files.dir` /
 * `maxBytes`), or a `plugins.<name>.*` row listing it. The keys the config file sets elsewhere
 * (the http plugin's under `server`, the sms plugin's under `sms`) are looked for there.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import type { z } from 'zod';
import { BUILTIN_PLUGINS } from '../../plugins/builtin.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const TABLE = README.slice(README.indexOf('## Configuration'), README.indexOf('### Plugins in config'));

/** Keys an operator does not set under `plugins.<name>`: where they come from instead. */
const SET_ELSEWHERE: Record<string, Record<string, string>> = {
  auth: { admin: 'auth.admin', trustedOrigins: 'auth.trustedOrigins', developmentAdmin: 'set by osr start outside production (docs/auth.md, First start without an admin)' },
  lifecycle: { retentionOverrides: 'lifecycle.retention_overrides' },
};
/** Plugins whose options the config file holds in a top-level section. */
const SECTION: Record<string, string> = { http: 'server', sms: 'sms' };

/** The keys of an object schema, through defaults and optionals. */
function keysOf(schema: z.ZodType): string[] {
  let current: unknown = schema;
  for (let i = 0; i < 6 && current; i++) {
    const shape = (current as { shape?: Record<string, unknown> }).shape;
    if (shape) return Object.keys(shape);
    const def = (current as { _zod?: { def?: { innerType?: unknown; in?: unknown } } })._zod?.def;
    current = def?.innerType ?? def?.in;
  }
  return [];
}

t.test('every built-in plugin option is in the README configuration table', async (t) => {
  const rows = TABLE.split('\n').filter((line) => line.startsWith('| `'));
  let checked = 0;
  for (const { manifest } of BUILTIN_PLUGINS) {
    if (!manifest.options) continue;
    for (const key of keysOf(manifest.options as z.ZodType)) {
      const elsewhere = SET_ELSEWHERE[manifest.name]?.[key];
      if (elsewhere) {
        if (!elsewhere.startsWith('set by')) t.ok(rows.some((row) => row.startsWith(`| \`${elsewhere}\``)), `${manifest.name}.${key}: documented as ${elsewhere}`);
        continue;
      }
      const prefix = SECTION[manifest.name] ?? `plugins.${manifest.name}`;
      const own = rows.filter((row) => row.startsWith(`| \`${prefix}.`));
      const named = own.some((row) => row.startsWith(`| \`${prefix}.${key}\``) || row.startsWith(`| \`${prefix}.${key}.`) || new RegExp(`\`${key}\``).test(row));
      t.ok(named, `${prefix}.${key} has a row, or is named in one of ${prefix}'s`);
      checked++;
    }
  }
  t.ok(checked > 80, `${checked} options checked`);
});
