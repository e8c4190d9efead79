import t from 'tap';
import { codedError } from '../../kernel/errors.ts';
import { MAX_REPORTED_ERRORS, MAX_SUMMARY } from '../../kernel/boundedDetails.ts';
import { startTestRuntime } from '../harness/startTestRuntime.ts';

t.test('an error carries at most so many problems and so long a summary', async (t) => {
  const errors = Array.from({ length: 250 }, (_, i) => ({ path: `f${i}`, message: 'is not a field' }));
  const summary = errors.map((e) => `${e.path} ${e.message}`).join('; ');
  const error = codedError('VALIDATION_ERROR', { summary, errors });
  t.equal((error.details.errors as unknown[]).length, MAX_REPORTED_ERRORS, 'the first problems are kept');
  t.same((error.details.errors as unknown[])[0], errors[0]);
  t.equal(error.details.omittedErrors, 150, 'the rest are counted');
  t.ok((error.details.summary as string).length <= MAX_SUMMARY + 40, 'the summary is cut');
  t.match(error.details.summary, /^f0 is not a field; f1 is not a field; .*is not a field; … \(250 problems in all\)$/, 'after a whole problem, with the count');
  t.ok(error.message.length < MAX_SUMMARY + 100, 'and so is the message');
  const small = { summary: 'title is required', errors: [{ path: 'title', message: 'is required' }] };
  t.equal(codedError('VALIDATION_ERROR', small).details, small, 'details within the bounds are kept as given');
});

t.test('an answer stays small whatever the request names', async (t) => {
  const rt = await startTestRuntime({ config: { apps: ['bench/app'], api: { requireAuth: false } } });
  t.teardown(() => rt.close());
  const unknownFields = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`f${i}`, 1]));
  const cases = [
    { name: 'a body naming 20,000 unknown fields', method: 'POST' as const, url: '/api/v1/data/bench_item', payload: unknownFields },
    { name: 'a query whose where names 5,000 unknown fields', method: 'POST' as const, url: '/api/v1/data/bench_item/query', payload: { where: Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`nofield${i}`, 1])) } },
    { name: 'a query string of 2,000 unknown keys', method: 'GET' as const, url: `/api/v1/data/bench_item?${Array.from({ length: 2_000 }, (_, i) => `x${i}=1`).join('&')}` },
  ];
  for (const c of cases) {
    const res = await rt.inject({ method: c.method, url: c.url, ...(c.payload ? { payload: c.payload } : {}) });
    t.equal(res.statusCode, 400, `${c.name}: 400`);
    const body = res.json();
    t.equal(body.error.code, 'VALIDATION_ERROR', `${c.name}: code`);
    t.equal(body.error.details.errors.length, MAX_REPORTED_ERRORS, `${c.name}: the first problems`);
    t.ok(body.error.details.omittedErrors > 0, `${c.name}: the rest counted (${body.error.details.omittedErrors})`);
    t.ok(res.body.length < 40_000, `${c.name}: a small answer (${res.body.length} bytes)`);
  }
});
