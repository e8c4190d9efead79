/** Search across restarts: start-time rebuilds (missing, out of date, weights changed), boot errors, authentication. */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { isCodedError, type CodedError } from '../../kernel/errors.ts';
import { newId } from '../../plugins/data/sql/newId.ts';
import { startTestRuntime } from '../harness/startTestRuntime.ts';
import { bootSearch, drivers, dropSchema, idsOf, LIBRARY, type SearchRuntime } from './searchFixtures.ts';

const ROOT = new URL('../..', import.meta.url).pathname;

/** The library app with other scoring rules: body outweighs title, and book is no longer searchable. */
function reweightedLibrary(dir: string): string {
  const app = join(dir, 'library');
  cpSync(join(ROOT, LIBRARY), app, { recursive: true });
  const edit = (file: string, change: (json: any) => void) => { // eslint-disable-line @typescript-eslint/no-explicit-any
    const path = join(app, 'objects', file);
    const json = JSON.parse(readFileSync(path, 'utf8'));
    change(json);
    writeFileSync(path, JSON.stringify(json));
  };
  edit('article.json', (json) => { json.search = { weights: { body: 4 } }; });
  edit('book.json', (json) => { delete json.fields.name.searchable; });
  return app;
}

const messages = (s: SearchRuntime) => s.logs.map((l) => l.msg).filter((m) => m.startsWith('search:'));

for (const driver of await drivers()) {
  await t.test(`${driver.name}: the index is rebuilt at start when missing or out of date`, { skip: driver.skip }, async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'osr-search-'));
    const environment = `search-life-${process.pid}`;
    t.teardown(async () => {
      rmSync(dataDir, { recursive: true, force: true });
      if (driver.name === 'postgres') await dropSchema(environment);
    });
    const boot = (options: { apps?: string[]; search?: boolean } = {}) => bootSearch(t, driver.name, {
      environment, dataDir, keep: true,
      ...(options.apps ? { apps: options.apps } : {}),
      ...(options.search === false ? { config: { plugins: { search: { enabled: false } } } } : {}),
    });

    const before = await boot({ search: false });
    const inTitle = await before.create('article', { title: 'Pangolin atlas', body: 'maps' });
    const inBody = await before.create('article', { title: 'Field notes', body: 'pangolin sightings' });
    await before.create('book', { name: 'Pangolin tales' });
    await before.rt.close();

    const first = await boot();
    t.same(messages(first).filter((m) => m.includes('rebuilding')), [
      'search: rebuilding the index of article (no index yet)',
      'search: rebuilding the index of book (no index yet)',
      'search: rebuilding the index of memo (no index yet)',
      'search: rebuilding the index of vault (no index yet)',
    ], 'every searchable object is indexed, with a line each');
    t.match(messages(first), [/./, /^search: indexed 2 article record\(s\) in \d+ ms$/], 'with what was written');
    t.same(idsOf(await first.search({ q: 'pangolin', object: 'article' })), [inTitle.id, inBody.id], 'records written before search was enabled are found, title first');
    const direct = newId();
    const now = new Date().toISOString();
    await first.database().withDatabase(environment, (db) => db.knex('article').insert({
      id: direct, version: 1, title: 'Pangolin smuggled in', created_at: now, updated_at: now, created_by: null, updated_by: null, owner_id: null,
    }));
    t.same(idsOf(await first.search({ q: 'smuggled' })), [], 'a row written around the engine is not indexed yet');
    await first.rt.close();

    const second = await boot();
    t.same(messages(second), ['search: repaired 1 drifted document(s) of article (0 stale, 1 missing, 0 orphaned)'], 'the check finds the record the index lacks, and only it is written');
    t.same(second.logs.find((l) => l.msg.startsWith('search: repaired'))?.ids, { stale: [], missing: [direct], orphaned: [] }, 'the log names it');
    t.same(idsOf(await second.search({ q: 'smuggled' })), [direct], 'the row is found after the repair');
    await second.rt.close();

    const reweighted = await boot({ apps: [reweightedLibrary(t.testdir())] });
    t.same(messages(reweighted).filter((m) => !m.startsWith('search: indexed')), [
      'search: rebuilding the index of article (searchable fields or weights changed)',
      'search: dropped the index of book (no searchable fields any more)',
    ], 'new weights rebuild the index; an object without searchable fields loses its index');
    t.same(idsOf(await reweighted.search({ q: 'pangolin sightings' })), [inBody.id], 'search follows the new metadata');
    t.same(idsOf(await reweighted.search({ q: 'pangolin', object: 'article' })).slice(0, 2), [inBody.id, inTitle.id], 'body (4) now outranks title (1)');
    await reweighted.rt.close();

    const again = await boot({ apps: [reweightedLibrary(t.testdir())] });
    t.same(messages(again), [], 'an up-to-date index is left alone');
  });
}

t.test('a weight on a field that is not searchable fails the boot, naming file and path', async (t) => {
  const dir = t.testdir({
    'app.json': JSON.stringify({ name: 'bad', version: '1.0.0', protocol: '^16.0.0' }),
    objects: { 'note.json': JSON.stringify({ name: 'note', fields: { title: { type: 'text' } }, search: { weights: { title: 2 } } }) },
  });
  const error = await startTestRuntime({ config: { apps: [dir] } }).then(() => null, (e: unknown) => e);
  t.ok(isCodedError(error), 'a coded boot error');
  const failures = ((error as CodedError & { failures?: CodedError[] }).failures ?? []).filter((f) => f.code === 'METADATA_INVALID');
  t.same(failures.map((f) => [f.details.file, f.details.path]), [[join(dir, 'objects/note.json'), 'search.weights.title']], 'METADATA_INVALID at search.weights.title of note.json');
  t.match(failures[0]?.message, "'title' is not searchable; set \"searchable\": true on the field or remove its weight", 'the reason says what to do');
});

t.test('GET /search is authenticated like the data routes', async (t) => {
  const s = await bootSearch(t, 'sqlite', { environment: `search-auth-${process.pid}`, config: { api: { requireAuth: true } } });
  const reply = await s.search({ q: 'anything' });
  t.same([reply.status, reply.body.error.code], [401, 'UNAUTHENTICATED'], '401 without credentials');
});
