/**
 * Property-based fuzzing of the write side (fast-check, fixed seed, bounded runs): random JSON
 * bodies on create and on update (with random If-Match headers) never get a 5xx, never show a
 * stack trace, a source path or SQL, and every non-2xx is the error envelope.
 */
import fc from 'fast-check';
import t from 'tap';
import { ifMatch, objectName, recordBody } from './fuzzArbitraries.ts';
import { typedRecord } from './typedArbitraries.ts';
import { bootCrm, forEachDriver, responseProblems, type Reply } from './reliabilityHarness.ts';
import { seedCrm } from './seedCrm.ts';

// Fixed, so a failure reproduces; FUZZ_SEED and FUZZ_RUNS explore further (e.g. FUZZ_RUNS=5000).
const SEED = Number(process.env.FUZZ_SEED ?? 20_260_702);
const RUNS = process.env.FUZZ_RUNS ? { sqlite: Number(process.env.FUZZ_RUNS), postgres: Number(process.env.FUZZ_RUNS) } : { sqlite: 400, postgres: 200 };

function check(request: string, reply: Reply): void {
  const problems = responseProblems(reply);
  if (problems.length > 0) throw new Error(`${request}\n-> ${reply.status} ${reply.text.slice(0, 600)}\nproblems: ${problems.join('; ')}`);
}

/** Half typed records that pass most checks and reach the driver, half junk (any JSON, unknown fields). */
const body = fc.oneof(
  typedRecord.map(([object, record]): [string, string] => [object, JSON.stringify(record)]),
  fc.tuple(objectName, fc.oneof({ weight: 9, arbitrary: recordBody.map((v) => JSON.stringify(v)) }, { weight: 1, arbitrary: fc.constantFrom('{', '{"name":', '"x"', 'null', '[{}]', '') })),
);

await forEachDriver(t, async (t, driver) => {
  const crm = await bootCrm(t, driver, 'fuzzb');
  const { ids } = await seedCrm(crm);

  await t.test('POST /data/:object with a random body', async (t) => {
    const statuses = new Set<number>();
    await fc.assert(fc.asyncProperty(body, async ([object, payload]) => {
      const url = `/api/v1/data/${encodeURIComponent(object)}`;
      const reply = await crm.send('POST', url, payload, { 'content-type': 'application/json' });
      statuses.add(reply.status);
      check(`POST ${url} ${payload.slice(0, 500)}`, reply);
    }), { seed: SEED, numRuns: RUNS[driver], endOnFailure: true });
    t.ok(statuses.has(201) && statuses.has(400), `both stored and refused records were generated (${[...statuses].sort().join(', ')})`);
  });

  await t.test('PATCH /data/:object/:id with a random body and If-Match', async (t) => {
    const statuses = new Set<number>();
    const id = fc.oneof({ weight: 6, arbitrary: fc.integer({ min: 0, max: 5 }) }, { weight: 1, arbitrary: fc.string({ maxLength: 12 }) });
    await fc.assert(fc.asyncProperty(body, id, ifMatch, async ([object, payload], which, version) => {
      const target = typeof which === 'number' ? (ids[object]?.[which] ?? 'missing') : which;
      const url = `/api/v1/data/${encodeURIComponent(object)}/${encodeURIComponent(target) || 'x'}`;
      const reply = await crm.send('PATCH', url, payload, { 'content-type': 'application/json', ...(version === undefined ? {} : { 'if-match': version }) });
      statuses.add(reply.status);
      check(`PATCH ${url} if-match=${String(version)} ${payload.slice(0, 500)}`, reply);
    }), { seed: SEED + 1, numRuns: RUNS[driver], endOnFailure: true });
    t.ok(statuses.has(200) && statuses.has(400), `both applied and refused updates were generated (${[...statuses].sort().join(', ')})`);
  });
});
