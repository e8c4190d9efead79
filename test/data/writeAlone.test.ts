/**
 * Single-statement writes (engine/writeAlone.ts): a create or update that needs nothing but its own
 * statement runs without BEGIN, a locked read and COMMIT. It must answer every caller exactly as the
 * transaction would: a record outside the caller's row scope (its own, or a contributed one) is
 * not found and not written, one it may read but not edit is refused, rules that read the stored
 * record still see it, and a handler that applies to the object still runs in the write's
 * transaction.
 */
import t from 'tap';
import type { DataDatabase } from '../../capabilities/dataDatabase.ts';
import type { DataEngine, DataRecord } from '../../capabilities/dataEngine.ts';
import { definePlugin } from '../../kernel/definePlugin.ts';
import { buildWorld, type World } from '../access/accessWorld.ts';
import { bearer, eachBackend } from '../auth/authHarness.ts';

/** What the probe's handlers saw: the writes of `probed_slip` (no appliesTo) and those of `slip` (appliesTo false). */
const seen: Array<{ object: string; previousTitle: unknown; inTransaction: boolean }> = [];
const probe = definePlugin({
  name: 'alone-probe',
  version: '1.0.0',
  kernel: '^16.0.0',
  requires: ['data.scopes'],
  register(ctx) {
    // An update hook of one object, saying nothing of where it applies: that object's writes keep their transaction.
    ctx.hook('data.afterUpdate', (event: { object: string; previous: DataRecord }) => {
      seen.push({ object: event.object, previousTitle: event.previous.title, inTransaction: true });
    }, { object: 'checked_slip' });
    // A handler of every object that says it applies to none: it is never asked to run for slip.
    ctx.hook('data.afterUpdate', (event: { object: string; previous: DataRecord }) => {
      if (event.object === 'slip') seen.push({ object: event.object, previousTitle: event.previous.title, inTransaction: true });
    }, { appliesTo: () => false });
    // A contributed scope with no hook: a veiled slip of region HIDDEN does not exist for users.
    ctx.resolve('data.scopes').add((object, call) => (object.name === 'veiled_slip' && call.principal && !call.system ? { region: { $ne: 'HIDDEN' } } : null));
  },
});

async function recorder(w: World, environmentId: string) {
  const statements: string[] = [];
  await w.rt.runtime.kernel.service<DataDatabase>('data.database')!.withDatabase(environmentId, async ({ knex }) => {
    knex.on('query', (q: { sql: string }) => statements.push(q.sql.replaceAll('`', '"')));
  });
  return statements;
}

const began = (statements: string[]) => statements.some((sql) => /^BEGIN/i.test(sql));

t.test('single-statement writes', async (t) => {
  await eachBackend(t, ['alone'], async (t, site) => {
    seen.length = 0;
    const w = await buildWorld(t, site, { apps: ['test/data/fixtures/alone-app'], plugins: [probe] });
    t.teardown(() => w.rt.close());
    const statements = await recorder(w, site.ids[0]!);
    const versioned = async (user: 'other' | 'admin', url: string, payload: object, version: number) => {
      const res = await w.rt.inject({ method: 'PATCH', url, payload, headers: { ...bearer(w.users[user].token), 'if-match': `"${version}"` } });
      return { status: res.statusCode, body: res.json() };
    };
    const stored = async (id: string) => (await w.as('admin', 'GET', `/api/v1/data/slip/${id}`)).body as DataRecord;

    // Approvals learn which objects have a process in the background, after a first write: until
    // then every update is checked for a lock in a transaction.
    const warm = String((await w.as('admin', 'POST', '/api/v1/data/slip', { title: 'WARM', region: 'US', amount: 0 })).body.id);
    let alone = false;
    for (let i = 0; i < 50 && !alone; i++) {
      statements.length = 0;
      t.equal((await w.as('admin', 'PATCH', `/api/v1/data/slip/${warm}`, { amount: i })).status, 200);
      alone = !began(statements);
      if (!alone) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    t.ok(alone, 'once the objects with an approval process are known, an update runs alone');

    statements.length = 0;
    const mine = await w.as('other', 'POST', '/api/v1/data/slip', { title: 'MINE', region: 'US', amount: 5 });
    t.equal(mine.status, 201, 'a member creates a slip');
    t.same([began(statements), statements.filter((sql) => /insert into "slip"/.test(sql)).length], [false, 1], 'as one statement, without a transaction');
    const id = String(mine.body.id);
    t.same([mine.body.owner_id, mine.body.version, mine.body.created_by], [w.users.other.id, 1, w.users.other.id], 'owned, stamped and at version 1');

    statements.length = 0;
    const updated = await w.as('admin', 'PATCH', `/api/v1/data/slip/${id}`, { amount: 6 });
    t.same([updated.status, updated.body.amount, updated.body.version, updated.body.updated_by], [200, 6, 2, w.users.admin.id], 'the admin updates it');
    t.same([began(statements), statements.filter((sql) => /^(select|update|with)/i.test(sql) && sql.includes('"slip"')).length], [false, 1], 'as one statement: no locked read');
    t.same(seen, [], 'a handler that applies to no object is not run');
    t.same((await w.as('admin', 'GET', `/api/v1/data/slip/${id}`)).body, updated.body, 'the answer is what a read by id shows');

    statements.length = 0;
    const own = await w.as('other', 'PATCH', `/api/v1/data/slip/${id}`, { amount: 7 });
    t.same([own.status, own.body.amount, own.body.version, own.body.updated_by], [200, 7, 3, w.users.other.id], 'its owner updates it');
    t.ok(began(statements), 'in a transaction: the owner\'s edits are scoped to its own slips, which takes the stored row');
    seen.length = 0;

    await t.test('a record the caller reads but may not edit is refused, and not written', async (t) => {
      t.equal((await w.as('owner', 'GET', `/api/v1/data/slip/${id}`)).status, 200, 'another member reads the slip (public_read)');
      const res = await w.as('owner', 'PATCH', `/api/v1/data/slip/${id}`, { amount: 666 });
      t.same([res.status, res.body.error.code], [403, 'PERMISSION_DENIED'], 'its update is refused');
      t.same([(await stored(id)).amount, (await stored(id)).version], [7, 3], 'and nothing was written');
    });

    await t.test('a record outside the caller\'s read scope is not found, and not written', async (t) => {
      const theirs = await w.as('other', 'POST', '/api/v1/data/veiled_slip', { title: 'THEIRS', region: 'US', amount: 3 });
      t.equal(theirs.status, 201, 'a private veiled slip');
      const res = await w.as('owner', 'PATCH', `/api/v1/data/veiled_slip/${String(theirs.body.id)}`, { amount: 666 });
      t.same([res.status, res.body.error.code], [404, 'NOT_FOUND'], 'another member does not find it');
      const row = (await site.query(site.ids[0]!, 'select amount, version from veiled_slip where id = ?', [String(theirs.body.id)]))[0]!;
      t.same([Number(row.amount), Number(row.version)], [3, 1], 'and it is unchanged');
    });

    await t.test('a contributed scope hides a record from every user, the admin too', async (t) => {
      const engine = w.rt.runtime.kernel.service<DataEngine>('data.engine')!;
      const hidden = String((await engine.create('veiled_slip', { title: 'HID', region: 'HIDDEN', amount: 1 }, { environmentId: site.ids[0]!, principal: null, system: true })).id);
      const res = await w.as('admin', 'PATCH', `/api/v1/data/veiled_slip/${hidden}`, { amount: 9 });
      t.same([res.status, res.body.error.code], [404, 'NOT_FOUND'], 'an update does not find it');
      const row = (await site.query(site.ids[0]!, 'select amount, version from veiled_slip where id = ?', [hidden]))[0]!;
      t.same([Number(row.amount), Number(row.version)], [1, 1], 'and wrote nothing');
    });

    await t.test('versions and missing records answer as in a transaction', async (t) => {
      const stale = await versioned('admin', `/api/v1/data/slip/${id}`, { amount: 8 }, 1);
      t.same([stale.status, stale.body.error.code, stale.body.error.details], [409, 'CONCURRENT_UPDATE', { expectedVersion: 1, currentVersion: 3 }], 'a stale version is a conflict naming the current one');
      const fresh = await versioned('admin', `/api/v1/data/slip/${id}`, { amount: 8 }, 3);
      t.same([fresh.status, fresh.body.version, fresh.body.amount], [200, 4, 8], 'the current version writes');
      const missing = await w.as('admin', 'PATCH', '/api/v1/data/slip/no-such-slip', { amount: 1 });
      t.same([missing.status, missing.body.error.code], [404, 'NOT_FOUND'], 'a missing record is not found');
      const missingVersioned = await versioned('admin', '/api/v1/data/slip/no-such-slip', { amount: 1 }, 4);
      t.same([missingVersioned.status, missingVersioned.body.error.code], [404, 'NOT_FOUND'], 'with a version too');
      const invalid = await w.as('admin', 'PATCH', `/api/v1/data/slip/${id}`, { amount: 'many' });
      t.same([invalid.status, invalid.body.error.code], [400, 'VALIDATION_ERROR'], 'input is checked first');
      t.same((await stored(id)).version, 4, 'nothing written by the refused ones');
    });

    await t.test('an update rule reads the stored record: that update keeps its transaction', async (t) => {
      const big = await w.as('admin', 'POST', '/api/v1/data/checked_slip', { title: 'small', amount: 500 });
      t.equal(big.status, 201, 'a checked slip');
      statements.length = 0;
      const res = await w.as('admin', 'PATCH', `/api/v1/data/checked_slip/${String(big.body.id)}`, { title: 'big' });
      t.same([res.status, res.body.error?.code, res.body.error?.details?.errors?.[0]?.path], [400, 'VALIDATION_ERROR', 'title'], 'the rule sees the stored amount');
      t.ok(began(statements), 'in a transaction');
      const ok = await w.as('admin', 'PATCH', `/api/v1/data/checked_slip/${String(big.body.id)}`, { amount: 50 });
      t.same([ok.status, ok.body.version], [200, 2], 'a valid update');
      t.same(seen, [{ object: 'checked_slip', previousTitle: 'small', inTransaction: true }], 'and the object\'s own handler ran with the stored record');
    });

    await t.test('a write alone never joins a transaction under way', async (t) => {
      // On SQLite the one connection is the transaction's from BEGIN to its end: a write alone
      // run on it meanwhile would be part of it, and undone with it.
      const engine = w.rt.runtime.kernel.service<DataEngine>('data.engine')!;
      const ctx = { environmentId: site.ids[0]!, principal: null };
      const held = String((await engine.create('slip', { title: 'HELD', region: 'US', amount: 1 }, ctx)).id);
      const free = String((await engine.create('slip', { title: 'FREE', region: 'US', amount: 1 }, ctx)).id);
      let entered!: () => void;
      let release!: () => void;
      const inside = new Promise<void>((resolve) => { entered = resolve; });
      const gate = new Promise<void>((resolve) => { release = resolve; });
      const undone = engine.transaction(ctx, async (tx) => {
        await tx.update('slip', held, { amount: 2 }, {}, ctx);
        entered();
        await gate;
        throw new Error('undo');
      });
      await inside;
      statements.length = 0;
      let settled = false;
      const alone = engine.update('slip', free, { amount: 7 }, {}, ctx).finally(() => { settled = true; });
      for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
      if (site.backend === 'sqlite') t.equal(settled, false, 'on SQLite it waits for the transaction to end');
      release();
      await t.rejects(undone, /undo/, 'the transaction is undone');
      t.same((await alone).amount, 7, 'the write alone answers its record');
      t.same([began(statements), statements.filter((sql) => /^update "slip"/.test(sql)).length], [false, 1], 'as one statement');
      const rows = await site.query(site.ids[0]!, 'select id, amount from slip where id in (?, ?) order by title', [held, free]);
      t.same(rows.map((row) => [row.id, Number(row.amount)]), [[free, 7], [held, 1]], 'and stays written, while the transaction\'s write is undone');
    });
  });
});
