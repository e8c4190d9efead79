/**
 * The AI `query_data` tool with a costly `{$cel}` operand: the model gets QUERY_TOO_COSTLY naming
 * the limit at once, /health answers meanwhile; `validate_expression` says the same of a costly
 * expression. On SQLite and PostgreSQL, against the local OpenAI-compatible fake.
 */
import t from 'tap';
import { databaseCases } from '../harness/databases.ts';
import { bootAi } from './aiFixture.ts';

const TEN = '[0,1,2,3,4,5,6,7,8,9]';
let EIGHT_NESTED = 'a+b+c+d+e+f+g+h < 10000000';
for (const v of 'hgfedcba') EIGHT_NESTED = `${TEN}.all(${v}, ${EIGHT_NESTED})`;
const BACKTRACKING = "'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!'.matches('^(a|a)+$') ? 'x' : 'y'";
/** Generous: today these took 18 s and 10-21 s; the answer comes in milliseconds. Printed for the record. */
const BOUND_MS = 2000;
/** A whole turn holds two model calls and the stored messages as well: a wider bound, still far below the 18 s. */
const TURN_BOUND_MS = 8000;

for (const driver of await databaseCases()) {
  await t.test(`${driver.name}: query_data with a costly $cel is QUERY_TOO_COSTLY, and /health answers meanwhile`, { skip: driver.skip }, async (t) => {
    const s = await bootAi(t, driver.name);
    const made = await s.send('POST', '/api/v1/data/note', s.ada, { title: 'ADA-1', score: 1 });
    t.equal(made.status, 201);
    const res = await s.send('POST', '/api/v1/ai/conversations', s.ada, { agent: 'helper', title: 'Costly' });
    t.equal(res.status, 201);
    const id = res.body.id as string;

    // A cheap expression first: the timings below are of the costly ones, not of a cold start.
    s.fake.queue.push({ toolCalls: [{ name: 'query_data', args: { object: 'note', where: { title: { $cel: "'ADA-1'.matches('^ADA-[0-9]$') ? 'ADA-1' : 'none'" } } } }] }, { content: 'One.' });
    const cheap = await s.send('POST', `/api/v1/ai/conversations/${id}/messages`, s.ada, { content: 'cheap' });
    t.equal(cheap.status, 200, cheap.text);
    t.same(JSON.parse(cheap.body.messages.filter((m: { role: string }) => m.role === 'tool').at(-1).content).items.map((n: { title: string }) => n.title), ['ADA-1']);

    for (const [name, source, limit] of [['a pattern that backtracks', BACKTRACKING, 'celPattern'], ['eight nested comprehensions', `${EIGHT_NESTED} ? 'x' : 'y'`, 'celCost']] as const) {
      s.fake.queue.push({ toolCalls: [{ name: 'query_data', args: { object: 'note', where: { title: { $cel: source } } } }] }, { content: 'Too costly.' });
      const started = performance.now();
      const [turn, health] = await Promise.all([
        s.send('POST', `/api/v1/ai/conversations/${id}/messages`, s.ada, { content: name }),
        (async () => {
          const at = performance.now();
          const reply = await s.send('GET', '/api/v1/health', null);
          return { ...reply, ms: performance.now() - at };
        })(),
      ]);
      const ms = performance.now() - started;
      t.comment(`${driver.name} ${name}: the turn (two model calls and the tool) ${ms.toFixed(1)} ms, /health ${health.ms.toFixed(1)} ms`);
      t.equal(turn.status, 200, turn.text);
      const tool = JSON.parse(turn.body.messages.filter((m: { role: string }) => m.role === 'tool').at(-1).content);
      t.match(tool, { error: { code: 'QUERY_TOO_COSTLY', message: new RegExp(`^The query costs more than this server allows: \\$cel expression .*(${limit === 'celCost' ? 'estimated cost is [0-9,]+ steps and at most 100,000 are allowed' : 'can take exponential time'})`) } }, `${name}: the model is told QUERY_TOO_COSTLY`);
      t.equal(turn.body.messages.at(-1).content, 'Too costly.');
      t.ok(ms < TURN_BOUND_MS, `${name}: the turn took ${ms.toFixed(1)} ms`);
      t.equal(health.status, 200, `${name}: /health answers meanwhile`);
      t.ok(health.ms < BOUND_MS, `${name}: /health in ${health.ms.toFixed(1)} ms`);
    }

    s.fake.queue.push({ toolCalls: [{ name: 'validate_expression', args: { object: 'note', expression: EIGHT_NESTED, returns: 'boolean' } }] }, { content: 'Invalid.' });
    const check = await s.send('POST', `/api/v1/ai/conversations/${id}/messages`, s.ada, { content: 'validate' });
    t.equal(check.status, 200, check.text);
    t.match(JSON.parse(check.body.messages.filter((m: { role: string }) => m.role === 'tool').at(-1).content), { valid: false, errors: [/^too costly: its estimated cost is [0-9,]+ steps/] }, 'validate_expression says why');
  });
}
