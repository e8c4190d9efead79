/**
 * Every field's value is bounded (metadata/fieldLimits.ts): a value over its field's maximum is a
 * 400 naming the field and the maximum on every write path (REST create, update, upsert, bulk,
 * batch, import and its dry run, MCP, forms, flows), on both drivers; an import's cell over the
 * largest bound of the object is refused while the CSV is read, 15 MB included, quickly.
 */
import { request as httpRequest } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import t, { type Test } from 'tap';
import { sendAs } from '../access/accessWorld.ts';
import { eachBackend, signIn } from '../auth/authHarness.ts';

const CELLS = 'test/io/fixtures/cellapp';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Answer {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** One POST over a real socket, written in 64 KiB chunks; the server may answer before it read everything. */
function post(url: string, headers: Record<string, string>, body: Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(new URL(url), { method: 'POST', headers: { ...headers, 'content-length': String(body.length) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null });
      });
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
    });
    let at = 0;
    const write = () => {
      while (at < body.length) {
        const part = body.subarray(at, at + 65_536);
        at += 65_536;
        if (!req.write(part)) return void req.once('drain', write);
      }
      req.end();
    };
    write();
  });
}

/** The first field error of a 400 VALIDATION_ERROR. */
function firstError(t: Test, res: Answer): Record<string, unknown> {
  t.equal(res.status, 400, `400: ${JSON.stringify(res.body).slice(0, 300)}`);
  t.equal(res.body?.error?.code, 'VALIDATION_ERROR');
  return res.body?.error?.details?.errors?.[0] ?? {};
}

t.test('a value over its field\'s maximum is a 400 naming the field and the maximum, on every write path', async (t) => {
  await eachBackend(t, ['cells'], async (t, site) => {
    const rt = await site.boot({
      config: {
        apps: [CELLS],
        server: { listen: true, port: 0, host: '127.0.0.1' },
        plugins: { email: { enabled: false }, mcp: { enabled: true }, jobs: { pollMs: 50 } },
      },
    });
    const admin = await signIn(rt);
    const as = (method: string, url: string, payload?: unknown) => sendAs(rt, admin.token, method, url, payload);
    const origin = rt.runtime.http().url()!;
    const env = site.ids[0]!;
    const count = async () => (await as('GET', '/api/v1/data/memo?count=true&limit=1')).body.total as number;

    await t.test('REST create: each kind at its bound is stored, one character (or byte) more is refused', async (t) => {
      const cases: Array<[string, unknown, unknown, string, number]> = [
        ['note', 'n'.repeat(10_000), 'n'.repeat(10_001), 'maxLength', 10_000],
        ['title', 't'.repeat(50), 't'.repeat(51), 'maxLength', 50],
        ['body', 'b'.repeat(100_000), 'b'.repeat(100_001), 'maxLength', 100_000],
        ['contact', `${'c'.repeat(309)}@example.io`, `${'c'.repeat(310)}@example.io`, 'maxLength', 320],
        ['data', { list: 'd'.repeat(1_980) }, { list: 'd'.repeat(2_000) }, 'maxBytes', 2_000],
      ];
      for (const [field, fits, over, limit, max] of cases) {
        const stored = await as('POST', '/api/v1/data/memo', { title: 'fits', [field]: fits });
        t.equal(stored.status, 201, `${field} at its bound: ${JSON.stringify(stored.body).slice(0, 200)}`);
        const refused = firstError(t, await as('POST', '/api/v1/data/memo', { title: 'over', [field]: over }));
        t.same([refused.path, refused.limit, refused.max], [field, limit, max], `${field} over its bound: path, limit and max`);
        t.match(String(refused.message), String(max), 'the message names the maximum');
      }
    });

    const memo = (await as('POST', '/api/v1/data/memo', { title: 'target', code: 'M-1' })).body;
    const before = await count();

    await t.test('REST update, upsert, bulk and batch', async (t) => {
      const patched = firstError(t, await as('PATCH', `/api/v1/data/memo/${memo.id}`, { note: 'x'.repeat(10_001) }));
      t.same([patched.path, patched.max], ['note', 10_000], 'PATCH');
      const upserted = firstError(t, await as('PUT', '/api/v1/data/memo/upsert?on=code', { code: 'M-1', note: 'x'.repeat(10_001) }));
      t.same([upserted.path, upserted.max], ['note', 10_000], 'upsert of an existing record');
      const created = firstError(t, await as('PUT', '/api/v1/data/memo/upsert?on=code', { code: 'M-2', title: 'new', note: 'x'.repeat(10_001) }));
      t.same([created.path, created.max], ['note', 10_000], 'upsert of a new record');
      const bulk = await as('POST', '/api/v1/data/memo/bulk', { operations: [{ method: 'create', values: { title: 'ok' } }, { method: 'create', values: { title: 'x'.repeat(51) } }] });
      t.equal(bulk.status, 400);
      t.equal(bulk.body.error.code, 'VALIDATION_ERROR');
      t.match(bulk.body.error.message, /title must be at most 50 characters/, 'bulk: the operation\'s error names the field and the maximum');
      const batch = await as('POST', '/api/v1/batch', { operations: [{ id: 'a', method: 'PATCH', object: 'memo', recordId: memo.id, body: { body: 'y'.repeat(100_001) } }] });
      t.equal(batch.status, 400);
      t.match(batch.body.error.message, /body must be at most 100000 characters/, 'batch');
      t.equal((await as('GET', `/api/v1/data/memo/${memo.id}`)).body.version, 1, 'the record is unchanged');
      t.equal(await count(), before, 'nothing was created');
    });

    await t.test('import: JSON rows, CSV in JSON, dry run and atomic', async (t) => {
      const rows = [{ title: 'fine' }, { title: 'long note', note: 'x'.repeat(10_001) }, { title: 'big data', data: { d: 'd'.repeat(3_000) } }];
      const dry = await as('POST', '/api/v1/data/memo/import', { format: 'json', rows, dryRun: true });
      t.equal(dry.status, 200, JSON.stringify(dry.body).slice(0, 300));
      t.same(dry.body.errors.map((e: { row: number; errors: Array<{ path: string; limit: string; max: number }> }) => [e.row, e.errors[0]!.path, e.errors[0]!.limit, e.errors[0]!.max]),
        [[2, 'note', 'maxLength', 10_000], [3, 'data', 'maxBytes', 2_000]], 'dry run: each row names the field, the bound and the maximum');
      const atomic = await as('POST', '/api/v1/data/memo/import', { format: 'json', rows });
      t.equal(atomic.status, 400);
      t.equal(atomic.body.error.code, 'IMPORT_REJECTED');
      t.match(atomic.body.error.details.first, /row 2: note must be at most 10000 characters/, 'atomic: the first row\'s error names the field and the maximum');
      const csv = await as('POST', '/api/v1/data/memo/import', { format: 'csv', csv: `title,note\nok,short\nlong,${'x'.repeat(10_001)}\n`, dryRun: true });
      t.same(csv.body.errors.map((e: { row: number; errors: Array<{ path: string; max: number }> }) => [e.row, e.errors[0]!.path, e.errors[0]!.max]), [[2, 'note', 10_000]], 'CSV in JSON: the row names the field and the maximum');
      t.equal(await count(), before, 'nothing was written');
    });

    await t.test('import: a 15 MB cell is refused while the CSV is read, quickly, dry run too', async (t) => {
      const big = `title,body\nhuge,${'z'.repeat(15 * 1024 * 1024)}\n`;
      const url = `${origin}/api/v1/environments/${env}/data/memo/import`;
      const auth = { authorization: `Bearer ${admin.token}` };
      for (const dryRun of [false, true]) {
        const started = Date.now();
        const res = await post(`${url}?dryRun=${dryRun}`, { ...auth, 'content-type': 'text/csv' }, Buffer.from(big));
        const ms = Date.now() - started;
        const error = firstError(t, res);
        t.same([error.path, error.column, error.limit, error.max, error.line], ['csv', 'body', 'cellLength', 100_000, 2], `text/csv (dryRun ${dryRun}): names the column, the bound and the maximum`);
        t.ok(ms < 5_000, `answered in ${ms} ms (the whole body is 15 MB)`);
      }
      const boundary = '----cells-1';
      const multipart = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="dryRun"\r\n\r\ntrue\r\n--${boundary}\r\nContent-Disposition: form-data; name="csv"; filename="m.csv"\r\nContent-Type: text/csv\r\n\r\n${big}\r\n--${boundary}--\r\n`);
      const viaForm = firstError(t, await post(url, { ...auth, 'content-type': `multipart/form-data; boundary=${boundary}` }, multipart));
      t.same([viaForm.column, viaForm.max], ['body', 100_000], 'multipart: the same refusal');
      const inJson = firstError(t, await post(url, { ...auth, 'content-type': 'application/json' }, Buffer.from(JSON.stringify({ format: 'csv', csv: big, dryRun: true }))));
      t.same([inJson.column, inJson.max], ['body', 100_000], 'CSV in a JSON body: the same refusal');
      t.equal(await count(), before, 'nothing was written');
    });

    await t.test('MCP create_record and update_record', async (t) => {
      const key = await as('POST', '/api/v1/keys', { name: 'cells' });
      t.equal(key.status, 201);
      const client = new Client({ name: 'cells-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${origin}/api/v1/environments/${env}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key.body.key}` } } }));
      t.teardown(() => client.close());
      const answer = (result: unknown) => JSON.parse((result as { content: Array<{ text: string }> }).content[0]!.text);
      const created = answer(await client.callTool({ name: 'create_record', arguments: { object: 'memo', values: { title: 'x'.repeat(51) } } }));
      t.equal(created.error.code, 'VALIDATION_ERROR');
      t.same([created.error.details.errors[0].path, created.error.details.errors[0].max], ['title', 50], 'create_record names the field and the maximum');
      const updated = answer(await client.callTool({ name: 'update_record', arguments: { object: 'memo', id: memo.id, values: { note: 'x'.repeat(10_001) } } }));
      t.equal(updated.error.code, 'VALIDATION_ERROR');
      t.same([updated.error.details.errors[0].path, updated.error.details.errors[0].max], ['note', 10_000], 'update_record too');
    });

    await t.test('a form submission', async (t) => {
      const res = await rt.inject({ method: 'POST', url: `/api/v1/environments/${env}/forms/memo/submit`, payload: { title: 'from a form', contact: `${'c'.repeat(310)}@example.io` } });
      const error = firstError(t, { status: res.statusCode, body: res.json() });
      t.equal(error.path, 'contact');
      t.match(String(error.message), /at most 320 characters/, 'the form names the field and the maximum');
      t.equal(await count(), before, 'nothing was written');
    });

    await t.test('a flow\'s create step', async (t) => {
      const started = await as('POST', '/api/v1/flows/double_memo/start', { text: 'x'.repeat(6_000) });
      t.equal(started.status, 202, JSON.stringify(started.body));
      let run: any; // eslint-disable-line @typescript-eslint/no-explicit-any
      for (let i = 0; i < 300; i++) {
        run = (await as('GET', `/api/v1/flows/double_memo/runs/${started.body.runId}`)).body;
        if (run.status === 'completed' || run.status === 'failed') break;
        await sleep(50);
      }
      t.equal(run.status, 'failed', 'the run fails at its create step');
      const error = run.steps[0].error;
      t.equal(error.code, 'VALIDATION_ERROR');
      t.match(error.message, /note must be at most 10000 characters/, 'the step\'s error names the field and the maximum');
      t.equal(await count(), before, 'nothing was written');
    });
  });
});
