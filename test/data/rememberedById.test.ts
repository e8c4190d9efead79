/**
 * Planned reads by id remembered on PostgreSQL (countCache.ts, executeQuery.ts): a repeated GET of
 * a record is answered from memory, yet a write through the runtime shows at once, another
 * process's write reaches it, field security still applies, and nothing a write's transaction
 * reads before it commits is ever answered to another request. On SQLite the same requests read
 * the file (readNow.ts) and give the same answers.
 */
import t from 'tap';
import { codedError } from '../../kernel/errors.ts';
import { definePlugin } from '../../kernel/definePlugin.ts';
import { buildWorld, sendAs } from '../access/accessWorld.ts';
import { eachBackend, signIn } from '../auth/authHarness.ts';
import { tableReads, untilRemembered } from '../harness/rememberedReads.ts';

/** Holds an update of a doc titled HELD in its transaction until released, then fails it (a rollback). */
const held = { entered: () => {}, release: () => {} };
const holder = definePlugin({
  name: 'held-write',
  version: '1.0.0',
  kernel: '^16.0.0',
  register(ctx) {
    ctx.hook('data.afterUpdate', async (event: { record: { title?: unknown } }) => {
      if (event.record.title !== 'HELD') return;
      const released = new Promise<void>((resolve) => (held.release = resolve));
      held.entered();
      await released;
      throw codedError('VALIDATION_ERROR', { summary: 'held writes are undone' });
    }, { object: 'doc' });
  },
});

t.test('reads by id remembered until a write, never a transaction\'s', async (t) => {
  await eachBackend(t, ['byid'], async (t, site) => {
    const w = await buildWorld(t, site, { plugins: [holder] });
    t.teardown(() => w.rt.close());
    const url = `/api/v1/data/doc/${w.ids.docA}`;
    const title = async () => (await w.as('owner', 'GET', url)).body.title as string;
    const reads = await tableReads(w.rt, site.ids[0]!, 'doc');

    t.equal(await title(), 'DOC-A', 'the owner reads its doc');
    if (site.backend === 'postgres') t.ok(await untilRemembered(title, reads), 'a repeated read by id is answered from memory');
    const again = await w.as('owner', 'GET', url);
    t.same([again.body.title, again.body.secret, again.body.secret_shout], ['DOC-A', undefined, undefined], 'field security and formulas still apply to a remembered record');
    t.same((await w.as('viewAll', 'GET', url)).body.secret_shout, 'SECRET-A!', 'another caller has its own statement and fields');

    t.equal((await w.as('owner', 'PATCH', url, { title: 'DOC-A2' })).status, 200, 'the owner renames it');
    t.equal(await title(), 'DOC-A2', 'the next read shows the write at once');

    // A write whose transaction is held open after its read-back: no other read may see it.
    const entered = new Promise<void>((resolve) => (held.entered = resolve));
    const writing = w.as('owner', 'PATCH', url, { title: 'HELD' });
    await entered;
    t.equal(await title(), 'DOC-A2', 'a read while the write is open answers the committed record');
    t.equal(await title(), 'DOC-A2', 'and so does the next one');
    held.release();
    t.equal((await writing).status, 400, 'the held write is undone');
    t.equal(await title(), 'DOC-A2', 'what it read back in its transaction was never remembered');

    if (site.backend !== 'postgres') return;
    // Another process's write reaches the record this one remembered.
    const other = await site.boot({ config: { apps: ['test/access/fixtures/app'] } });
    t.teardown(() => other.close());
    const admin = await signIn(other);
    t.ok(await untilRemembered(title, reads), 'remembered again');
    t.equal((await sendAs(other, admin.token, 'PATCH', url, { title: 'DOC-A3' })).status, 200, 'a write through another process');
    let seen = await title();
    for (let i = 0; i < 100 && seen !== 'DOC-A3'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      seen = await title();
    }
    t.equal(seen, 'DOC-A3', "the other process's write reaches the remembered record");
  });
});
