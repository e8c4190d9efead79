/**
 * The document against the server, from outside: for every operation the document lists, requests
 * generated from its own parameter and body schemas (seeded, a fixed number per operation) are sent
 * over real HTTP, on each driver, and every answer is checked against the document: a documented
 * status, a documented media type, a body its schema accepts. Zero mismatches, zero 500s.
 */
import { request as httpRequest } from 'node:http';
import fc from 'fast-check';
import pg from 'pg';
import t from 'tap';
import { databaseCases, POSTGRES_URL } from '../harness/databases.ts';
import { startTestRuntime } from '../harness/startTestRuntime.ts';
import { ResponseValidator } from './responseValidator.ts';
import { arbitraryOf, deref, type IdsOf, type Schema } from './schemaArbitrary.ts';

const PER_OPERATION = 20;
const SEED = 20260;
const ADMIN = { email: 'conformance-admin@example.com', password: 'conformance-password-1' };

/** Operations left out, each with the reason: they would end the session the run uses. */
const SKIP: Record<string, string> = {
  'POST /auth/sign-out': 'revokes the token the run signs in with',
  'POST /auth/{wildcard}': 'the auth engine\'s own routes include revoking sessions and changing the password of the caller',
};

interface Generated {
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  header: Record<string, unknown>;
  body?: unknown;
}

interface Answer {
  status: number;
  contentType: string | undefined;
  text: string;
}

/** One request on a connection of its own (no keep-alive reuse racing the server's idle timeout). */
function send(url: URL, method: string, headers: Record<string, string>, body: string | undefined): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers: { ...headers, ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}) }, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: res.headers['content-type'], text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const asText = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

async function dropSchema(id: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    await client.query(`drop schema if exists "env_${id.replace(/-/g, '_')}" cascade`);
  } finally {
    await client.end();
  }
}

for (const driver of await databaseCases()) {
  await t.test(driver.name, { skip: driver.skip }, async (t) => {
    const environment = `conformance-${process.pid}`;
    if (driver.name === 'postgres') await dropSchema(environment);
    const rt = await startTestRuntime({
      config: {
        apps: ['metadata/apps/crm'],
        auth: { admin: ADMIN },
        environments: [{ id: environment }],
        server: { listen: true, port: 0, host: '127.0.0.1' },
        ...(driver.name === 'postgres' ? { database: { url: POSTGRES_URL } } : {}),
      },
    });
    t.teardown(async () => {
      await rt.close();
      if (driver.name === 'postgres') await dropSchema(environment);
    });
    const base = rt.runtime.http().url()!;
    const token = (await rt.inject({ method: 'POST', url: '/api/v1/auth/sign-in', payload: ADMIN })).json().token as string;
    const auth = { authorization: `Bearer ${token}` };
    const doc = (await rt.inject({ url: '/api/v1/openapi.json', headers: auth })).json() as Schema;
    const validator = new ResponseValidator(doc);

    // Records to address: a few of each object, so generated ids sometimes name a real one.
    for (const name of ['Conformance A', 'Conformance B']) await rt.inject({ method: 'POST', url: '/api/v1/data/account', headers: auth, payload: { name } });
    const ids = new Map<string, string[]>();
    for (const path of Object.keys(doc.paths)) {
      const object = /^\/data\/([a-z0-9_]+)$/.exec(path)?.[1];
      if (!object || !doc.paths[path].get) continue;
      const res = await rt.inject({ url: `/api/v1/data/${object}?limit=5`, headers: auth });
      ids.set(object, res.statusCode === 200 ? (res.json().items as Array<{ id: string }>).map((r) => r.id) : []);
    }

    const idsOf: IdsOf = (object) => ids.get(object) ?? [];
    const mismatches: string[] = [];
    const statuses = new Map<string, Set<number>>();
    let sent = 0;
    let failures500 = 0;
    const started = Date.now();
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Schema>>)) {
      for (const [method, op] of Object.entries(item)) {
        const operation = `${method.toUpperCase()} ${path}`;
        if (SKIP[operation]) continue;
        const params = ((op.parameters ?? []) as Schema[]).map((p) => deref(doc, p));
        const known: string[] = ids.get(/^\/data\/([a-z0-9_]+)\//.exec(path)?.[1] ?? '') ?? [];
        const part = (where: string): fc.Arbitrary<Record<string, unknown>> => {
          const arbitraries: Record<string, fc.Arbitrary<unknown>> = {};
          for (const p of params.filter((q) => q.in === where)) {
            const schema = arbitraryOf(doc, p.schema ?? {}, 0, idsOf);
            arbitraries[p.name] = p.name === 'id' && known.length > 0 ? fc.oneof(fc.constantFrom(...known), schema) : schema;
          }
          const requiredKeys = params.filter((q) => q.in === where && q.required).map((q) => q.name as string);
          return fc.record(arbitraries, { requiredKeys }) as fc.Arbitrary<Record<string, unknown>>;
        };
        const json = op.requestBody?.content?.['application/json']?.schema;
        const request: fc.Arbitrary<Generated> = fc.record({
          path: part('path'), query: part('query'), header: part('header'),
          ...(json ? { body: arbitraryOf(doc, json, 0, idsOf) } : {}),
        }) as fc.Arbitrary<Generated>;
        for (const generated of fc.sample(request, { numRuns: PER_OPERATION, seed: SEED })) {
          const server = op.servers?.[0]?.url === '/' ? '' : '/api/v1';
          const url = new URL(`${server}${path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(asText(generated.path[name])))}`, base);
          for (const [name, value] of Object.entries(generated.query)) {
            if (value === undefined) continue;
            const joined = params.find((p) => p.in === 'query' && p.name === name)?.explode === false;
            if (Array.isArray(value) && joined) url.searchParams.set(name, value.map(asText).join(','));
            else if (Array.isArray(value)) for (const v of value) url.searchParams.append(name, asText(v));
            else url.searchParams.set(name, asText(value));
          }
          const headers: Record<string, string> = { ...auth, accept: 'application/json' };
          for (const [name, value] of Object.entries(generated.header)) if (value !== undefined) headers[name] = asText(value);
          if (generated.body !== undefined) headers['content-type'] = 'application/json';
          let res: Answer;
          try {
            res = await send(url, method.toUpperCase(), headers, generated.body === undefined ? undefined : JSON.stringify(generated.body));
          } catch (error) {
            mismatches.push(`${operation} (${url.pathname}${url.search}) headers ${JSON.stringify(generated.header)}: no answer (${String(error)})`);
            continue;
          }
          const text = res.text;
          sent++;
          // A record created by the run can be addressed by the operations after it (paths come sorted: create before /{id}).
          const created = method === 'post' && res.status === 201 ? /^\/data\/([a-z0-9_]+)$/.exec(path)?.[1] : undefined;
          if (created) ids.set(created, [...(ids.get(created) ?? []), String((JSON.parse(res.text) as { id: string }).id)].slice(-10));
          const seen = statuses.get(operation) ?? new Set<number>();
          statuses.set(operation, seen.add(res.status));
          if (res.status >= 500) failures500++;
          const problem = validator.check(operation, op, res.status, res.contentType, text);
          if (problem) mismatches.push(`${operation} (${url.pathname}${url.search.slice(0, 120)}): ${problem}`);
        }
      }
    }
    const seconds = (Date.now() - started) / 1000;
    t.ok(sent >= 100 * PER_OPERATION / 2, `${sent} generated requests sent over HTTP in ${seconds.toFixed(1)} s`);
    t.equal(failures500, 0, 'no answer is a 5xx');
    const succeeded = [...statuses.values()].filter((seen) => [...seen].some((status) => status < 300)).length;
    t.ok(succeeded >= 40, `${succeeded} of ${statuses.size} operations answered a success whose body was checked, not only refusals`);
    t.same(mismatches.slice(0, 40), [], `every answer matches the document (${mismatches.length} mismatches)`);
  });
}
