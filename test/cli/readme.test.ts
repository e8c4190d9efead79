/**
 * What README.md tells a newcomer holds: its links lead to files of this repository, its sign-in
 * commands name the real routes and bodies, and its Node floor is the one package.json declares.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import t from 'tap';
import { startTestRuntime } from '../harness/startTestRuntime.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

t.test('every relative link of README and docs/ leads to a file inside the repository', async (t) => {
  const pages = ['README.md', 'docs/access.md', 'docs/auth.md', 'docs/data-api.md', 'docs/metadata-api.md', 'docs/openapi.md', 'docs/plugins.md', 'docs/search.md', 'bench/README.md'];
  let links = 0;
  for (const page of pages) {
    const text = readFileSync(join(ROOT, page), 'utf8');
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^(https?:|mailto:|#)/.test(target!)) continue;
      links++;
      const file = resolve(ROOT, dirname(page), target!.split('#')[0]!);
      t.notOk(relative(ROOT, file).startsWith('..'), `${page}: ${target} stays inside the repository`);
      t.ok(existsSync(file), `${page}: ${target} exists`);
    }
  }
  t.ok(links > 10, `${links} links checked`);
  t.notMatch(README, /\.\.\/shared\//, 'no path to a directory beside the checkout');
});

t.test("the Quick start's sign-in, password change and data commands work as written", async (t) => {
  const curls = [...README.matchAll(/curl -s (?:-X (\w+) )?localhost:3000(\S+)((?:\\\n|[^\n])*)/g)];
  const signIn = curls.find((c) => c[2] === '/api/v1/auth/sign-in');
  const change = curls.find((c) => c[2] === '/api/v1/auth/change-password');
  const data = curls.find((c) => c[2]!.startsWith('/api/v1/data/'));
  t.ok(signIn && change && data, 'the Quick start shows the three commands');
  const body = (c: RegExpMatchArray) => JSON.parse(/-d '([^']+)'/.exec(c[3]!)![1]!) as Record<string, string>;
  const admin = { email: body(signIn!).email!, password: 'PRINTED-PASSWORD' };
  t.equal(admin.email, 'admin@example.com', 'the email osr start creates');

  const rt = await startTestRuntime({ config: { apps: ['metadata/apps/crm'], auth: { admin } } });
  t.teardown(() => rt.close());
  const signedIn = await rt.inject({ method: signIn![1] as 'POST', url: signIn![2]!, payload: body(signIn!) });
  t.equal(signedIn.statusCode, 200, 'sign-in route and body as written');
  const token = signedIn.json().token as string;
  const payload = { ...body(change!), newPassword: 'your-own-password' };
  const changed = await rt.inject({ method: change![1] as 'POST', url: change![2]!, payload, headers: { authorization: `Bearer ${token}` } });
  t.equal(changed.statusCode, 200, 'change-password route and body as written');
  const listed = await rt.inject({ url: data![2]!, headers: { authorization: `Bearer ${token}` } });
  t.equal(listed.statusCode, 200, 'the data route answers with the same token');
});

t.test('the documented Node floor is the one package.json declares', async (t) => {
  const engines = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
  const floor = /Requirements: Node\.js (\d+\.\d+) or newer/.exec(README)?.[1];
  t.equal(`>=${floor}`, engines);
  const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
  t.ok(major > 20 || (major === 20 && minor >= 19), `this Node (${process.versions.node}) meets the floor`);
});
