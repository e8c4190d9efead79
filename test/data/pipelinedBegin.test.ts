/**
 * PostgreSQL: a transaction's BEGIN travels with its first statement (heldTransaction.ts, the
 * pool's connections in pipeline mode): the client does not wait for BEGIN's answer. Seen through a
 * TCP proxy that holds every answer of the server back a while and notes who sent what in turn.
 */
import { randomBytes } from 'node:crypto';
import { createConnection, createServer, type Socket } from 'node:net';
import t from 'tap';
import { heldTransaction } from '../../plugins/data/sql/heldTransaction.ts';
import { openDatabase } from '../../plugins/data/sql/openDatabase.ts';
import { POSTGRES_URL } from '../harness/databases.ts';
import { postgresProblem } from '../harness/postgresProblem.ts';

const problem = await postgresProblem(POSTGRES_URL);
const ci = process.env.CI === 'true';

/** A proxy to the server; while `slow`, each answer reaches the client `delayMs` late (in order). */
async function answeringProxy(target: URL, delayMs: number) {
  const flows: string[][] = [];
  const sockets = new Set<Socket>();
  const state = { slow: false };
  const server = createServer((client) => {
    const flow: string[] = [];
    flows.push(flow);
    const upstream = createConnection({ host: target.hostname, port: Number(target.port || 5432) });
    sockets.add(client).add(upstream);
    let pending = Promise.resolve();
    client.on('data', (chunk) => {
      flow.push('client');
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      const held = state.slow;
      pending = pending.then(() => new Promise<void>((resolve) => setTimeout(() => {
        flow.push('server');
        client.write(chunk);
        resolve();
      }, held ? delayMs : 0)));
    });
    for (const [a, b] of [[client, upstream], [upstream, client]] as const) {
      a.on('close', () => b.destroy());
      a.on('error', () => b.destroy());
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const url = new URL(target.href);
  url.host = `127.0.0.1:${port}`;
  return {
    url: url.href,
    state,
    flows,
    close: () => new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    }),
  };
}

/** How many times the client spoke in `flow`, each time after the server (or at the start). */
const turns = (flow: string[]) => flow.filter((who, i) => who === 'client' && flow[i - 1] !== 'client').length;

t.test('postgres', { skip: problem !== null && !ci ? `PostgreSQL unreachable at ${POSTGRES_URL} (${problem}); set CI=true to make this a failure` : false }, async (t) => {
  if (problem !== null) throw new Error(`PostgreSQL is required when CI=true but is unreachable at ${POSTGRES_URL}: ${problem}`);
  const proxy = await answeringProxy(new URL(POSTGRES_URL), 40);
  t.teardown(() => proxy.close());
  const schema = `t_${process.pid}_${randomBytes(4).toString('hex')}`;
  const db = await openDatabase({ url: proxy.url, schema });
  t.teardown(async () => {
    await db.knex.raw(`drop schema if exists "${schema}" cascade`);
    await db.close();
  });
  await db.knex.schema.createTable('piped_item', (table) => {
    table.string('id').primary();
    table.integer('n');
  });

  /** The client's turns on the one connection the transaction used, with the server's answers held back. */
  const measured = async (work: Parameters<typeof heldTransaction>[1]) => {
    const before = proxy.flows.map((flow) => flow.length);
    proxy.state.slow = true;
    const outcome = await heldTransaction(db.knex, work).then((value) => ({ value }), (error: Error) => ({ error: error.message }));
    proxy.state.slow = false;
    const used = proxy.flows.map((flow, i) => flow.slice(before[i] ?? 0)).filter((flow) => flow.length > 0);
    return { outcome, used };
  };

  const committed = await measured(async (trx) => {
    await trx('piped_item').insert({ id: 'a', n: 1 });
    return 'done';
  });
  t.same(committed.outcome, { value: 'done' });
  t.equal(committed.used.length, 1, 'one connection');
  t.equal(turns(committed.used[0]!), 2, 'BEGIN went with the insert, then COMMIT: two turns, not three');
  t.same(await db.knex('piped_item').select('id', 'n'), [{ id: 'a', n: 1 }], 'committed');

  const failed = await measured(async (trx) => {
    await trx('piped_item').insert({ id: 'a', n: 2 });
    return 'inserted twice';
  });
  t.match(failed.outcome, { error: /duplicate key|unique/i }, 'a failing first statement fails the work');
  t.equal(turns(failed.used[0]!), 2, 'its BEGIN went with it, then ROLLBACK');
  await heldTransaction(db.knex, async (trx) => trx('piped_item').insert({ id: 'b', n: 3 }));
  t.same(await db.knex('piped_item').orderBy('id').select('id', 'n'), [{ id: 'a', n: 1 }, { id: 'b', n: 3 }], 'the connection serves the next transaction after a rollback');

  const empty = await measured(async () => 'nothing to do');
  t.same(empty.outcome, { value: 'nothing to do' }, 'a transaction without statements commits');
});
