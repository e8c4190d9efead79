/**
 * The write signal of PostgreSQL: what a process's notifier sends (writeNotifier.ts) reaches a
 * listener on another connection (writeSignal.ts) with the tables written, signals asked for while
 * one is on its way go together in the next, another schema's are not heard, and a commit alone
 * tells nothing; a listener whose connection is lost says so (not live, totals forgotten) and
 * listens again.
 */
import t from 'tap';
import { heldTransaction } from '../../plugins/data/sql/heldTransaction.ts';
import { createWriteNotifier } from '../../plugins/data/sql/writeNotifier.ts';
import { listenForWrites } from '../../plugins/data/sql/writeSignal.ts';
import { databaseCases } from '../harness/databases.ts';

interface RawClient {
  query(sql: string): Promise<unknown>;
  on(event: 'notification', listener: (message: { channel: string; payload?: string }) => void): void;
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => boolean, ms = 3000): Promise<boolean> {
  for (let waited = 0; waited < ms && !check(); waited += 20) await wait(20);
  return check();
}

const postgres = (await databaseCases()).find((c) => c.name === 'postgres')!;
t.test('postgres write signal', { skip: postgres.skip }, async (t) => {
  const db = await postgres.open(t);
  let heard = 0;
  const told: Array<readonly string[] | undefined> = [];
  const problems: string[] = [];
  const signal = listenForWrites(db.knex, db.schema, (tables) => {
    heard++;
    told.push(tables);
  }, (error) => problems.push(error.message));
  t.teardown(() => signal.close());
  t.ok(await until(() => signal.live()), 'listening');
  const start = heard;

  await heldTransaction(db.knex, async () => undefined);
  await wait(150);
  t.equal(heard, start, 'a commit alone is not heard');
  const notifier = createWriteNotifier(db.knex, db.schema);
  notifier.wrote(['alpha']);
  t.ok(await until(() => heard > start), 'a signal is heard');
  t.same(told.at(-1), ['alpha'], 'naming the table written');
  told.length = 0;
  // Three writes told at once: the first goes out at once, the two behind it together.
  notifier.wrote(['beta']);
  notifier.wrote(['gamma']);
  notifier.wrote(['delta', 'gamma']);
  await notifier.settled();
  t.ok(await until(() => told.length >= 2), 'heard');
  await wait(150);
  t.same(told, [['beta'], ['gamma', 'delta']], 'in two notifications, the second naming what was written while the first was on its way');
  told.length = 0;
  notifier.wrote();
  notifier.wrote(['Not A Table;']);
  await notifier.settled();
  t.ok(await until(() => told.length >= 2), 'every table');
  await wait(150);
  t.same(told, [undefined, undefined], 'without tables, or with a name that cannot travel, the signal names none: listeners forget everything');
  const afterCommit = heard;
  const other = createWriteNotifier(db.knex, `${db.schema}_other`);
  other.wrote(['alpha']);
  await other.settled();
  await wait(150);
  t.equal(heard, afterCommit, 'another schema\'s channel is not heard');

  // The sender's own listener passes over its signals that name tables (it forgot them at the
  // write); others hear them. The payload is the tables and the sender's mark, as a listener of an
  // earlier version splits it: it forgets a table that does not exist beside the real ones.
  const own: Array<readonly string[] | undefined> = [];
  const ownSignal = listenForWrites(db.knex, db.schema, (tables) => own.push(tables), () => undefined, notifier.source);
  t.ok(await until(() => ownSignal.live()), 'the sender\'s own listener listens');
  own.length = 0;
  const raw = await (db.knex.client as { acquireRawConnection(): Promise<RawClient> }).acquireRawConnection();
  const payloads: string[] = [];
  raw.on('notification', (message) => payloads.push(message.payload ?? ''));
  await raw.query(`listen osr_changed_${db.schema}`);
  told.length = 0;
  t.match(notifier.source, /^@[A-Za-z0-9_-]{12}$/, 'a mark of its own');
  notifier.wrote(['epsilon']);
  await notifier.settled();
  t.ok(await until(() => told.length >= 1 && payloads.length >= 1), 'heard');
  await wait(150);
  t.same(told, [['epsilon']], 'another listener hears the table, not the mark');
  t.match(payloads, [new RegExp(`^epsilon,${notifier.source}\\.\\d+$`)], 'the payload: the tables, then the mark with the number of the latest write told');
  t.same(own, [], 'the sender\'s own listener passes over it');
  // Read-your-writes tokens (X-OSR-Write-Token): the number of the notifier's latest write.
  t.equal(notifier.token(), payloads[0]!.split(',')[1]!.slice(1), 'the token is the mark without its @');
  t.equal(signal.heard(notifier.token()), true, 'another listener has heard the token once the signal arrived');
  t.equal(ownSignal.heard(notifier.token()), true, 'the sender\'s own listener counts its writes as heard');
  t.equal(signal.heard(`${notifier.token().split('.')[0]!}.${Number(notifier.token().split('.')[1]) + 1}`), false, 'a later write of that notifier is not heard yet');
  t.equal(signal.heard('AAAAAAAAAAAA.1'), false, 'nor a notifier never heard');
  t.equal(signal.heard('not a token'), false, 'nor a token of unknown form');
  const stranger = createWriteNotifier(db.knex, db.schema);
  stranger.wrote(['zeta']);
  notifier.wrote();
  await Promise.all([stranger.settled(), notifier.settled()]);
  t.ok(await until(() => own.length >= 1), 'heard');
  await wait(150);
  t.same(own, [['zeta']], 'but hears another notifier\'s tables; its own signal naming none (a transaction\'s, forgotten here at the write) carries its mark and is passed over too');
  await ownSignal.close();
  await (db.knex.client as { destroyRawConnection(c: RawClient): Promise<void> }).destroyRawConnection(raw);

  // The listening connection is ended from the server: the signal is not live, and once it
  // listens again the totals are forgotten (notifications sent meanwhile were missed).
  await db.knex.raw("select pg_terminate_backend(pid) from pg_stat_activity where query = ? and pid <> pg_backend_pid()", [`listen osr_changed_${db.schema}`]);
  t.ok(await until(() => !signal.live()), 'not live once its connection is lost');
  const beforeRelisten = heard;
  t.ok(await until(() => signal.live(), 5000), 'listens again');
  t.ok(heard > beforeRelisten, 'and forgets what it remembered');
  t.ok(problems.length > 0, 'the loss is reported');
});
