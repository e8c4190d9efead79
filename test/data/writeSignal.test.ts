/**
 * The write signal of PostgreSQL (writeSignal.ts): a transaction committed with the schema's
 * NOTIFY reaches a listener on another connection, a rolled-back one or one without it does not;
 * a listener whose connection is lost says so (not live, totals forgotten) and listens again.
 */
import t from 'tap';
import { heldTransaction } from '../../plugins/data/sql/heldTransaction.ts';
import { listenForWrites, notifySql } from '../../plugins/data/sql/writeSignal.ts';
import { databaseCases } from '../harness/databases.ts';

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => boolean, ms = 3000): Promise<boolean> {
  for (let waited = 0; waited < ms && !check(); waited += 20) await wait(20);
  return check();
}

const postgres = (await databaseCases()).find((c) => c.name === 'postgres')!;
t.test('postgres write signal', { skip: postgres.skip }, async (t) => {
  const db = await postgres.open(t);
  let heard = 0;
  const problems: string[] = [];
  const signal = listenForWrites(db.knex, db.schema, () => heard++, (error) => problems.push(error.message));
  t.teardown(() => signal.close());
  t.ok(await until(() => signal.live()), 'listening');
  const start = heard;

  await heldTransaction(db.knex, async () => undefined);
  await wait(150);
  t.equal(heard, start, 'a commit without the NOTIFY is not heard');
  await heldTransaction(db.knex, async () => undefined, { beforeCommit: notifySql(db.schema) });
  t.ok(await until(() => heard > start), 'a commit with it is heard');
  const afterCommit = heard;
  await heldTransaction(db.knex, async () => {
    throw new Error('undone');
  }, { beforeCommit: notifySql(db.schema) }).catch(() => undefined);
  await wait(150);
  t.equal(heard, afterCommit, 'a rollback is not heard');
  await heldTransaction(db.knex, async () => undefined, { beforeCommit: notifySql(`${db.schema}_other`) });
  await wait(150);
  t.equal(heard, afterCommit, 'another schema\'s channel is not heard');

  // The listening connection is ended from the server: the signal is not live, and once it
  // listens again the totals are forgotten (notifications sent meanwhile were missed).
  await db.knex.raw("select pg_terminate_backend(pid) from pg_stat_activity where query = ? and pid <> pg_backend_pid()", [`listen osr_changed_${db.schema}`]);
  t.ok(await until(() => !signal.live()), 'not live once its connection is lost');
  const beforeRelisten = heard;
  t.ok(await until(() => signal.live(), 5000), 'listens again');
  t.ok(heard > beforeRelisten, 'and forgets what it remembered');
  t.ok(problems.length > 0, 'the loss is reported');
});
