/**
 * Property-based fuzzing of the read side (fast-check, fixed seed, bounded runs): random query
 * strings on GET /data/:object and random bodies on POST /data/:object/query never get a 5xx,
 * never show a stack trace, a source path or SQL, and every non-2xx is the error envelope.
 */
import fc from 'fast-check';
import t from 'tap';
import { objectName, queryString, structuredQuery } from './fuzzArbitraries.ts';
import { typedObjectQuery } from './typedArbitraries.ts';
import { bootCrm, forEachDriver, responseProblems, type CrmRuntime, type Reply } from './reliabilityHarness.ts';
import { seedCrm } from './seedCrm.ts';

// Fixed, so a failure reproduces; FUZZ_SEED and FUZZ_RUNS explore further (e.g. FUZZ_RUNS=5000).
const SEED = Number(process.env.FUZZ_SEED ?? 20_260_701);
const RUNS = process.env.FUZZ_RUNS ? { sqlite: Number(process.env.FUZZ_RUNS), postgres: Number(process.env.FUZZ_RUNS) } : { sqlite: 400, postgres: 200 };

/** Fails with the request and the answer when the answer is not acceptable. */
function check(request: string, reply: Reply): void {
  const problems = responseProblems(reply);
  if (problems.length > 0) throw new Error(`${request}\n-> ${reply.status} ${reply.text.slice(0, 600)}\nproblems: ${problems.join('; ')}`);
}

function toQueryString(query: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) params.append(key, typeof value === 'string' ? value : JSON.stringify(value));
  return params.toString();
}

await forEachDriver(t, async (t, driver) => {
  const crm: CrmRuntime = await bootCrm(t, driver, 'fuzzq');
  const seeded = await seedCrm(crm);
  // A real cursor, so tampered ones reach signature and shape checks too.
  const page = await crm.send('GET', '/api/v1/data/account?limit=1');
  const cursor = String(page.body.nextCursor);
  t.ok(seeded.accounts > 1 && cursor.includes('.'), 'seeded, with a cursor to tamper with');

  await t.test('GET /data/:object?<random query string>', async (t) => {
    const statuses = new Set<number>();
    // Half typed queries that pass validation and reach the driver, half junk.
    const typed = typedObjectQuery.map(([object, query]): [string, string] => [object, toQueryString(query)]);
    const target = fc.oneof(typed, fc.tuple(objectName, queryString));
    await fc.assert(fc.asyncProperty(target, fc.integer({ min: 0, max: 9 }), async ([object, query], roll) => {
      const q = roll === 0 ? `${query}&cursor=${encodeURIComponent(cursor.slice(0, -2) + 'xx')}` : query;
      const url = `/api/v1/data/${encodeURIComponent(object)}?${q}`;
      const reply = await crm.send('GET', url);
      statuses.add(reply.status);
      check(`GET ${url}`, reply);
    }), { seed: SEED, numRuns: RUNS[driver], endOnFailure: true });
    t.ok(statuses.has(200) && statuses.has(400), `both accepted and refused queries were generated (${[...statuses].sort().join(', ')})`);
  });

  await t.test('POST /data/:object/query with a random body', async (t) => {
    const statuses = new Set<number>();
    const junk = fc.oneof({ weight: 8, arbitrary: structuredQuery.map((q) => JSON.stringify(q)) }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) }, { weight: 1, arbitrary: fc.constantFrom('{', '{"where":', 'null', '"x"', '[]', '') });
    const target = fc.oneof(typedObjectQuery.map(([object, query]): [string, string] => [object, JSON.stringify(query)]), fc.tuple(objectName, junk));
    await fc.assert(fc.asyncProperty(target, async ([object, payload]) => {
      const url = `/api/v1/data/${encodeURIComponent(object)}/query`;
      const reply = await crm.send('POST', url, payload, { 'content-type': 'application/json' });
      statuses.add(reply.status);
      check(`POST ${url} ${payload.slice(0, 500)}`, reply);
    }), { seed: SEED + 1, numRuns: RUNS[driver], endOnFailure: true });
    t.ok(statuses.has(200) && statuses.has(400), `both accepted and refused bodies were generated (${[...statuses].sort().join(', ')})`);
  });
});
