/**
 * The console plugin's HTTP edge: the page at every app path with no-store and a strict CSP, the
 * built files under hashed names with year-long caching in brotli, gzip or as is, the initial
 * JavaScript within 150 KB gzip, and the plugin off in production or when disabled.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, brotliDecompressSync, gzipSync } from 'node:zlib';
import t from 'tap';
import { startTestRuntime } from '../harness/startTestRuntime.ts';
import { CONSOLE_MANIFEST, type ConsoleManifest } from '../../plugins/console/consoleBuild.js';
import { pickEncoding } from '../../plugins/console/consolePolicy.ts';
import { CONSOLE_DIR, ensureConsoleBuilt } from './ensureConsoleBuilt.ts';

await ensureConsoleBuilt();
const manifest = JSON.parse(readFileSync(join(CONSOLE_DIR, CONSOLE_MANIFEST), 'utf8')) as ConsoleManifest;

t.test('the initial JavaScript is at most 150 KB gzip', async (t) => {
  t.ok(manifest.initial.length >= 1, 'the page loads at least one script');
  let total = 0;
  for (const name of manifest.initial) total += gzipSync(readFileSync(join(CONSOLE_DIR, 'assets', name)), { level: 9 }).length;
  t.ok(total > 1000, `the bundle holds the app (${total} bytes gzip)`);
  t.ok(total <= 150 * 1024, `${total} bytes gzip <= 153600`);
  const html = readFileSync(join(CONSOLE_DIR, 'index.html'), 'utf8');
  const scripts = [...html.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)];
  t.same(scripts.map((s) => s[1]), [''], 'one script element, with no inline code');
  t.ok(scripts.every((s) => /src="\/console\/assets\/[\w-]+\.js"/.test(s[0])), 'loaded from a hashed file');
  t.notMatch(html, /<style|\sstyle="|\son\w+="/, 'no inline style or handler');
});

t.test('the budget counts every file the page loads at once, not those loaded on demand', async (t) => {
  const scripts = Object.keys(manifest.files).filter((name) => name.endsWith('.js'));
  const imports = (name: string, dynamic: boolean) => {
    const code = readFileSync(join(CONSOLE_DIR, 'assets', name), 'utf8');
    const found = dynamic ? code.matchAll(/import\("\.\/([\w-]+\.js)"\)/g) : code.matchAll(/(?:^|[;}])import(?:[^"'();]*?from)?\s*"\.\/([\w-]+\.js)"/g);
    return [...found].map((m) => m[1]!);
  };
  for (const name of manifest.initial) {
    for (const imported of imports(name, false)) t.ok(manifest.initial.includes(imported), `${imported}, imported by ${name}, is counted as initial`);
  }
  const lazy = manifest.initial.flatMap((name) => imports(name, true));
  t.ok(lazy.length >= 1, 'the administration is loaded on demand');
  for (const name of lazy) {
    t.ok(scripts.includes(name), `${name} is a built file, served like the others`);
    t.notOk(manifest.initial.includes(name), `${name} is not loaded at once`);
  }
});

t.test('the charting library is loaded on demand, with the reports', async (t) => {
  // A message of Chart.js that minification keeps: it marks the file that holds the library.
  const holders = Object.keys(manifest.files).filter((name) => name.endsWith('.js') && readFileSync(join(CONSOLE_DIR, 'assets', name), 'utf8').includes('Failed to create chart'));
  t.equal(holders.length, 1, 'one built file holds Chart.js');
  t.notOk(manifest.initial.includes(holders[0]!), 'and the page does not load it at once');
});

t.test('accept-encoding negotiation', async (t) => {
  t.equal(pickEncoding('gzip, deflate, br, zstd'), 'brotli');
  t.equal(pickEncoding('gzip'), 'gzip');
  t.equal(pickEncoding('br;q=0, gzip'), 'gzip');
  t.equal(pickEncoding(undefined), 'identity');
  t.equal(pickEncoding('identity'), 'identity');
  t.equal(pickEncoding('*'), 'brotli');
});

t.test('page and files outside production', async (t) => {
  const rt = await startTestRuntime();
  t.teardown(() => rt.close());
  for (const url of ['/console/', '/console/env/default/data/account', '/device']) {
    const res = await rt.inject({ method: 'GET', url });
    t.equal(res.statusCode, 200, `${url} serves the page`);
    t.match(res.headers['content-type'], /^text\/html/);
    t.equal(res.headers['cache-control'], 'no-store', 'the page is never cached');
    const csp = String(res.headers['content-security-policy']);
    t.match(csp, /default-src 'none'/);
    t.match(csp, /script-src 'self'(;|$)/, 'scripts of the origin only: no inline, no eval');
    t.notMatch(csp, /unsafe-inline|unsafe-eval/);
    t.match(res.body, new RegExp(`/console/assets/${manifest.script}`), 'it loads the hashed bundle');
  }
  const bare = await rt.inject({ method: 'GET', url: '/console' });
  t.equal(bare.statusCode, 200, '/console without its slash serves the page too');
  t.match(bare.body, /<div id="app">/);

  const url = `/console/assets/${manifest.script}`;
  const plain = readFileSync(join(CONSOLE_DIR, 'assets', manifest.script));
  const br = await rt.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip, deflate, br' } });
  t.equal(br.statusCode, 200);
  t.equal(br.headers['content-encoding'], 'br');
  t.equal(br.headers['cache-control'], 'public, max-age=31536000, immutable', 'a year, immutable');
  t.equal(br.headers.vary, 'accept-encoding');
  t.match(br.headers['content-type'], /^text\/javascript/);
  t.ok(brotliDecompressSync(br.rawPayload).equals(plain), 'the brotli form is the file');
  const gz = await rt.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip' } });
  t.equal(gz.headers['content-encoding'], 'gzip');
  t.ok(gunzipSync(gz.rawPayload).equals(plain), 'the gzip form is the file');
  const raw = await rt.inject({ method: 'GET', url, headers: { 'accept-encoding': 'identity' } });
  t.equal(raw.headers['content-encoding'], undefined);
  t.ok(raw.rawPayload.equals(plain), 'as is when nothing else is accepted');
  const css = await rt.inject({ method: 'GET', url: `/console/assets/${manifest.style}`, headers: { 'accept-encoding': 'identity' } });
  t.match(css.headers['content-type'], /^text\/css/);
  const missing = await rt.inject({ method: 'GET', url: '/console/assets/main-NOTAHASH.js' });
  t.equal(missing.statusCode, 404);
  t.equal(missing.json().error.code, 'NOT_FOUND');
});

t.test('off in production, and when disabled', async (t) => {
  const prod = await startTestRuntime({ env: { NODE_ENV: 'production' }, config: { auth: { secret: 'production-secret-0123456789-0123456789-abcdef' }, plugins: { email: { enabled: false } } } });
  t.teardown(() => prod.close());
  t.equal((await prod.inject({ method: 'GET', url: '/console/' })).statusCode, 404, 'production: no console');
  t.equal((await prod.inject({ method: 'GET', url: '/device' })).statusCode, 404);
  const off = await startTestRuntime({ config: { plugins: { console: { enabled: false } } } });
  t.teardown(() => off.close());
  t.equal((await off.inject({ method: 'GET', url: '/console/' })).statusCode, 404, 'plugins.console.enabled: false');
  const on = await startTestRuntime({ env: { NODE_ENV: 'production' }, config: { auth: { secret: 'production-secret-0123456789-0123456789-abcdef' }, plugins: { email: { enabled: false }, console: { enabled: true } } } });
  t.teardown(() => on.close());
  t.equal((await on.inject({ method: 'GET', url: '/console/' })).statusCode, 200, 'production with plugins.console.enabled: true');
});
