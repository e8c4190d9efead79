/**
 * Exports over a real socket: 100k records in each format with the runtime's memory flat while a
 * slow client reads, and a failure after the first bytes ending the stream (a truncated file and
 * a log line saying why). One test file per driver runs it (each well within the file timeout).
 */
import { request } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import pino from 'pino';
import type { Test } from 'tap';
import type { MetadataRegistry } from '../../capabilities/metadataRegistry.ts';
import type { RuntimeInfo } from '../../capabilities/runtimeInfo.ts';
import { definePlugin } from '../../kernel/index.ts';
import { BUILTIN_PLUGINS } from '../../plugins/builtin.ts';
import { recordToRow } from '../../plugins/data/sql/codec.ts';
import { newId } from '../../plugins/data/sql/newId.ts';
import { openDatabase } from '../../plugins/data/sql/openDatabase.ts';
import { databaseCases } from '../harness/databases.ts';
import { bootIo, type DriverName, type Io } from './ioFixtures.ts';

const ROWS = 100_000;
/** Growth of the process's resident memory allowed during one export. */
const MAX_GROWTH_MB = 60;
/** The slow client reads at about this rate, so the server has to wait for it. */
const CLIENT_BYTES_PER_SECOND = 16 * 1024 * 1024;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

let failOnPage: number | null = null;
let pages = 0;
/** Pages of bulk records the engine has read: what an export has fetched so far. */
let bulkPages = 0;
const failing = definePlugin({
  name: 'test-export-failure',
  version: '1.0.0',
  kernel: '^16.0.0',
  register(ctx) {
    ctx.hook('data.afterFind', () => {
      if (failOnPage !== null && ++pages === failOnPage) throw new Error('the database went away');
    }, { object: 'item' });
    ctx.hook('data.afterFind', () => void bulkPages++, { object: 'bulk' });
  },
});

const logLines: string[] = [];
const logger = pino({ level: 'info', base: undefined }, { write: (line: string) => void logLines.push(line) });

/** 100k bulk rows written straight into the environment's tables (seeding only; the export reads them through the engine). */
async function seed(io: Io): Promise<void> {
  const kernel = io.rt.runtime.kernel;
  const env = kernel.service<RuntimeInfo>('runtime.info')!.environments.find((e) => e.id === io.environment)!;
  const object = kernel.service<MetadataRegistry>('metadata.registry')!.object('bulk')!;
  const db = await openDatabase({ url: env.databaseUrl, ...(env.schema ? { schema: env.schema } : {}) });
  try {
    const at = new Date().toISOString();
    const batch = db.dialect === 'sqlite' ? 500 : 1000;
    await db.knex.transaction(async (trx) => {
      for (let start = 0; start < ROWS; start += batch) {
        const rows = [];
        for (let i = start; i < Math.min(ROWS, start + batch); i++) {
          rows.push(recordToRow(object, {
            id: newId(), version: 1, created_at: at, updated_at: at, created_by: null, updated_by: null, owner_id: null,
            name: `Bulk row ${i}`, code: `B${i}`, qty: i % 100, price: i * 0.25, active: i % 2 === 0, due: '2026-05-17',
            tags: ['red', 'blue'], category: null, note: 'Forty characters of note text, "quoted".',
          }, db.dialect));
        }
        await trx('bulk').insert(rows);
      }
    });
  } finally {
    await db.close();
  }
}

interface Download {
  status: number;
  bytes: number;
  newlines: number;
  tail: Buffer;
  complete: boolean;
  peakGrowthMb: number;
  /** Samples taken while the export ran: timers fire only if the export lets the event loop turn. */
  samples: number;
}

/** POSTs an export and reads it slowly, keeping only counts and the last bytes, sampling RSS all along. */
function download(base: string, path: string, body: unknown): Promise<Download> {
  gc();
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  // Collecting now and then keeps garbage, which a collector may leave for a while, out of the
  // measure: what is left is what the export holds.
  let ticks = 0;
  let samples = 0;
  const sampler = setInterval(() => {
    samples++;
    if (++ticks % 10 === 0) gc();
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      let bytes = 0;
      let newlines = 0;
      let tail = Buffer.alloc(0);
      const started = Date.now();
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) newlines++;
        tail = Buffer.concat([tail, chunk]).subarray(-256);
        // Ahead of the allowed rate: stop reading until the rate catches up.
        const ahead = (bytes / CLIENT_BYTES_PER_SECOND) * 1000 - (Date.now() - started);
        if (ahead > 5) {
          res.pause();
          setTimeout(() => res.resume(), ahead);
        }
      });
      res.on('close', () => {
        clearInterval(sampler);
        peak = Math.max(peak, process.memoryUsage().rss);
        resolve({ status: res.statusCode ?? 0, bytes, newlines, tail, complete: res.complete, peakGrowthMb: (peak - baseline) / 1024 / 1024, samples });
      });
      res.on('error', () => undefined);
    });
    req.on('error', (error) => {
      clearInterval(sampler);
      reject(error);
    });
    req.end(JSON.stringify(body));
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts an export, reads its first bytes, then stops reading: returns the pages fetched once the
 * reads have settled and a second later, then goes away and returns the pages fetched after that.
 */
function stallThenLeave(base: string, path: string, body: unknown): Promise<{ stalled: number; later: number; afterLeaving: number }> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      res.once('data', () => {
        res.pause();
        void (async () => {
          // Let the buffers between the export and this client fill: the reads settle.
          let seen = -1;
          for (let waited = 0; bulkPages !== seen && waited < 20_000; waited += 500) {
            seen = bulkPages;
            await sleep(500);
          }
          const stalled = bulkPages;
          await sleep(1000);
          const later = bulkPages;
          req.destroy();
          await sleep(500);
          resolve({ stalled, later, afterLeaving: bulkPages - later });
        })();
      });
      res.on('error', () => undefined);
    });
    req.on('error', (error) => {
      if (!req.destroyed) reject(error);
    });
    req.end(JSON.stringify(body));
  });
}

export async function exportStreamTests(t: Test, name: DriverName): Promise<void> {
  const driver = (await databaseCases()).find((d) => d.name === name)!;
  await t.test(driver.name, { skip: driver.skip }, async (t) => {
    const io = await bootIo(t, driver.name, 'io-stream', {
      builtins: [...BUILTIN_PLUGINS, { manifest: failing, enabledByDefault: true }],
      config: { server: { listen: true, port: 0, host: '127.0.0.1', logRequests: false } },
      logger,
    });
    const base = io.rt.runtime.http().url()!;

    await t.test('a failure after the first page ends the stream: a truncated file, and the log says why', async (t) => {
      await io.send('POST', '/api/v1/data/item/import', { format: 'json', rows: Array.from({ length: 120 }, (_, i) => ({ name: `n${i}` })) });
      logLines.length = 0;
      pages = 0;
      failOnPage = 2;
      try {
        const res = await download(base, '/api/v1/data/item/export', { format: 'csv' });
        t.equal(res.status, 200, 'the response had started');
        t.equal(res.complete, false, 'the client sees an incomplete response');
        t.equal(res.newlines, 51, 'the header and the first page (50 records) arrived, nothing after');
      } finally {
        failOnPage = null;
      }
      const line = logLines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => /export of item failed/.test(String(l.msg)));
      t.hasStrict(line, { level: 50, msg: 'export of item failed after 50 rows had been sent; the client received a truncated file', object: 'item', format: 'csv', rows: 50 }, 'an error line with the object, format and rows sent');
      t.match(line?.err, { message: 'the database went away' }, 'and the cause');
    });

    await t.test(`${ROWS} records in each format, memory flat while a slow client reads`, async (t) => {
      const seeding = Date.now();
      await seed(io);
      t.comment(`seeded ${ROWS} rows in ${Date.now() - seeding} ms`);
      // Warm up on 5,000 records: load each format's library and let the collector size its
      // young generation, so what is measured is what grows with the export.
      for (const format of ['csv', 'json', 'xlsx', 'pdf']) await download(base, '/api/v1/data/bulk/export', { format, where: { qty: { $lt: 5 } } });

      const checks: Record<string, (d: Download) => void> = {
        csv: (d) => t.equal(d.newlines, ROWS + 1, 'csv: a header and a line per record'),
        json: (d) => {
          t.equal(d.newlines, ROWS + 2, 'json: a line per record, and the closing bracket on its own line');
          t.equal(d.tail.subarray(-3).toString(), '\n]\n', 'json: the array is closed');
        },
        xlsx: (d) => t.ok(d.tail.includes(Buffer.from([0x50, 0x4b, 0x05, 0x06])), 'xlsx: the zip is complete (end of central directory)'),
        pdf: (d) => t.match(d.tail.toString('latin1'), /%%EOF\s*$/, 'pdf: the document is complete'),
      };
      // The compact formats (a 100k xlsx or pdf is a few MB) fit in the loopback socket's buffers,
      // so only the text formats can show a stalled client stopping the reads.
      for (const format of ['csv', 'json']) {
        bulkPages = 0;
        logLines.length = 0;
        const stall = await stallThenLeave(base, '/api/v1/data/bulk/export', { format });
        t.ok(stall.stalled < 100, `${format}: a client that stops reading stops the export (${stall.stalled} of 100 pages read)`);
        t.equal(stall.later, stall.stalled, `${format}: no page is read while the client does not read`);
        t.ok(stall.afterLeaving <= 1, `${format}: a client that goes away ends the export (${stall.afterLeaving} page(s) after)`);
        t.ok(logLines.some((l) => /export of bulk stopped after \d+ rows: the client went away/.test(l)), `${format}: the log says the client went away`);
      }
      for (const format of ['csv', 'json', 'xlsx', 'pdf']) {
        const started = Date.now();
        const d = await download(base, '/api/v1/data/bulk/export', { format });
        t.comment(`${driver.name} ${format}: ${(d.bytes / 1024 / 1024).toFixed(1)} MB in ${Date.now() - started} ms, peak RSS growth ${d.peakGrowthMb.toFixed(1)} MB`);
        t.same([d.status, d.complete], [200, true], `${format}: complete`);
        checks[format]!(d);
        t.ok(d.peakGrowthMb < MAX_GROWTH_MB, `${format}: RSS grew ${d.peakGrowthMb.toFixed(1)} MB (< ${MAX_GROWTH_MB} MB)`);
        // A sample is due every 20 ms, and at least one fits between two pages (100 of them) when
        // the export yields; an export that held the event loop would leave almost none.
        const due = (Date.now() - started) / 20;
        t.ok(d.samples >= Math.min(due / 4, 50), `${format}: the event loop kept turning during the export (${d.samples} of ${Math.round(due)} samples)`);
      }
    });
  });
}
