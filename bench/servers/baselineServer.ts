/**
 * Child process: the hand-written baseline. A bare fastify server doing each scenario's query on
 * the same database as the runtime, with no metadata, validation, hooks or security layer.
 * argv[2]: JSON {driver, url, schema, file}. Reports its URL over IPC like runtimeServer.ts.
 */
import { Readable } from 'node:stream';
import Fastify from 'fastify';
import { postgresStore } from './baselinePostgres.ts';
import { sqliteStore } from './baselineSqlite.ts';
import { decodeWalkCursor, type BaselineStore, type Row } from './baselineStore.ts';

interface Args {
  driver: 'sqlite' | 'postgres';
  url: string;
  schema: string | null;
  file: string | null;
}

const args = JSON.parse(process.argv[2] ?? '{}') as Args;
const store: BaselineStore = args.driver === 'sqlite' ? sqliteStore(args.file!) : postgresStore(args.url, args.schema!);
const app = Fastify({ logger: false });
const limitOf = (query: unknown) => Math.min(200, Number((query as { limit?: string }).limit ?? 50) || 50);
const notFound = { error: { code: 'NOT_FOUND', message: 'not found', details: {} } };

const started = Date.now();
app.get('/baseline/health', async () => ({ status: 'ok', version: '16.0.0', uptimeSeconds: Math.round((Date.now() - started) / 1000) }));
app.get('/baseline/items/:id', async (request, reply) => {
  const row = await store.get((request.params as { id: string }).id);
  return row ?? reply.code(404).send(notFound);
});
app.get('/baseline/items', async (request) => store.page(limitOf(request.query)));
app.get('/baseline/items/filtered', async (request) => store.filtered((request.query as { status?: string }).status ?? 'active', limitOf(request.query)));
app.get('/baseline/items/walk', async (request) => store.walk(decodeWalkCursor((request.query as { cursor?: string }).cursor), limitOf(request.query)));
app.post('/baseline/items/count-by-status', async () => ({ items: await store.countByStatus() }));
app.post('/baseline/items', async (request, reply) => {
  const row = await store.create(request.body as Row);
  return reply.code(201).header('etag', `"${String(row.version)}"`).send(row);
});
app.patch('/baseline/items/:id', async (request, reply) => {
  const { id } = request.params as { id: string };
  const version = Number(/(\d+)/.exec(String(request.headers['if-match'] ?? ''))?.[1]);
  const row = await store.update(id, version, request.body as Row);
  if (!row) return reply.code(409).send({ error: { code: 'CONCURRENT_UPDATE', message: 'version mismatch', details: {} } });
  return reply.header('etag', `"${String(row.version)}"`).send(row);
});

app.post('/baseline/items/import', { bodyLimit: 16 * 1024 * 1024 }, async (request) => ({ imported: await store.importRows((request.body as { rows: Row[] }).rows) }));
app.post('/baseline/items/export', async (_request, reply) => reply.type('text/csv; charset=utf-8').send(Readable.from(store.exportCsv())));

const url = await app.listen({ port: 0, host: '127.0.0.1' });
process.on('message', (message: { type?: string }) => {
  if (message.type !== 'stop') return;
  app.close().then(() => store.close()).finally(() => process.exit(0));
});
process.send!({ type: 'ready', url });
