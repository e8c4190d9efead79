/**
 * Index advice, measured: the filter+sort page `where={"status":"open","priority":{"$gte":4}}
 * &orderBy=-priority,due_date&limit=50` through the data engine on 100,000 rows, first with the
 * single-column indexes on status, priority and due_date, then with the composite index the
 * advice names (built from the advice's own statement). Page only (count=none) and with its exact
 * count. Run: npx tsx bench/indexAdvice.ts [sqlite|postgres] [rows]. Writes bench/results/index-advice-<time>.json.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import pg from 'pg';
import type { DataContext, DataEngine } from '../capabilities/dataEngine.ts';
import type { DataDatabase } from '../capabilities/dataDatabase.ts';
import type { DataIndexAdvice } from '../capabilities/dataIndexAdvice.ts';
import { POSTGRES_URL } from '../test/harness/databases.ts';
import { startTestRuntime } from '../test/harness/startTestRuntime.ts';
import { TICKETS_APP } from '../test/advice/adviceFixtures.ts';

const driver = process.argv[2] === 'postgres' ? 'postgres' : 'sqlite';
const rows = Number(process.argv[3] ?? 100_000);
const id = `bench-advice-${process.pid}`;
const schema = `env_${id.replace(/-/g, "_")}`;
const dropSchema = async () => {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  await client.query(`drop schema if exists "${schema}" cascade`);
  await client.end();
};
if (driver === 'postgres') await dropSchema();
const rt = await startTestRuntime({ config: { apps: [TICKETS_APP], environments: [{ id }], plugins: { data: { slowQueryMs: 5 } }, ...(driver === 'postgres' ? { database: { url: POSTGRES_URL } } : {}) } });
const engine = rt.runtime.kernel.service<DataEngine>('data.engine')!;
const database = rt.runtime.kernel.service<DataDatabase>('data.database')!;
const advice = rt.runtime.kernel.service<DataIndexAdvice>('data.indexAdvice')!;
const ctx: DataContext = { environmentId: id, principal: null, system: true };

// Seeded below the engine: 4 statuses, priorities 1..5, due dates over two years.
const STATUSES = ['open', 'in_progress', 'done', 'cancelled'];
await database.withDatabase(id, async ({ knex }) => {
  const now = new Date().toISOString();
  const batch: Array<Record<string, unknown>> = [];
  const flush = async () => {
    if (batch.length > 0) await knex('ticket').insert(batch.splice(0));
  };
  for (let i = 0; i < rows; i++) {
    const day = new Date(Date.UTC(2025, 0, 1) + (i * 7919 % 730) * 86_400_000).toISOString().slice(0, 10);
    batch.push({ id: randomUUID(), version: 1, created_at: now, updated_at: now, title: `ticket ${i}`, status: STATUSES[i % 4], priority: 1 + (i * 31 % 5), due_date: day, area: i % 2 ? 'north' : 'south' });
    if (batch.length >= (driver === 'sqlite' ? 500 : 1000)) await flush();
  }
  await flush();
  await knex.raw(driver === 'postgres' ? 'analyze ticket' : 'analyze');
});

const query = { where: { status: 'open', priority: { $gte: 4 } }, orderBy: '-priority,due_date', limit: 50 };
async function time(count: boolean, n: number): Promise<{ medianMs: number; perSecond: number }> {
  for (let i = 0; i < 5; i++) await engine.query('ticket', query, ctx, count ? {} : { total: false });
  const samples: number[] = [];
  const started = performance.now();
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await engine.query('ticket', query, ctx, count ? {} : { total: false });
    samples.push(performance.now() - t0);
  }
  const elapsed = performance.now() - started;
  samples.sort((a, b) => a - b);
  return { medianMs: Math.round(samples[Math.floor(n / 2)]! * 1000) / 1000, perSecond: Math.round(n / (elapsed / 1000)) };
}

const n = 200;
const single = { page: await time(false, n), pageAndCount: await time(true, 50) };
const advised = await advice.advice(id);
const item = advised.find((a) => a.object === 'ticket');
if (!item) throw new Error('no advice was recorded for the ticket query');
await database.withDatabase(id, async ({ knex }) => {
  await knex.raw(item.sql.replace(' concurrently', ''));
  await knex.raw(driver === 'postgres' ? 'analyze ticket' : 'analyze');
});
// ANALYZE on SQLite reopens nothing here: a new plan is made once the statement is prepared again.
const composite = { page: await time(false, n), pageAndCount: await time(true, 50) };
const result = { driver, rows, query, advice: { columns: item.columns, sql: item.sql }, single, composite };
console.log(JSON.stringify(result, null, 2));
mkdirSync('bench/results', { recursive: true });
writeFileSync(`bench/results/index-advice-${driver}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`, JSON.stringify(result, null, 2));
await rt.close();
if (driver === 'postgres') await dropSchema();
