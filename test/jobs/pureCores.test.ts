import t from 'tap';
import { backoffDelay, MAX_BACKOFF_MS } from '../../plugins/jobs/backoffDelay.ts';
import { parseJobId, jobIdFor } from '../../plugins/jobs/bullmqNames.ts';
import { stateOf } from '../../plugins/jobs/bullmqJobInfo.ts';
import { nextCronTime, parseCron } from '../../plugins/jobs/cronPattern.ts';
import { checkName, newJob } from '../../plugins/jobs/jobOptions.ts';
import { errorText } from '../../plugins/jobs/jobStore.ts';
import { nextSlot } from '../../plugins/jobs/nextSlot.ts';

const at = (iso: string) => new Date(iso);

t.test('backoffDelay', async (t) => {
  t.same([1, 2, 3, 4].map((n) => backoffDelay('exponential', 100, n)), [100, 200, 400, 800]);
  t.same([1, 2, 3].map((n) => backoffDelay('fixed', 100, n)), [100, 100, 100]);
  t.equal(backoffDelay('exponential', 1000, 60), MAX_BACKOFF_MS, 'capped at a day');
});

t.test('cron patterns', async (t) => {
  const next = (pattern: string, after: string) => nextCronTime(parseCron(pattern), at(after)).toISOString();
  t.equal(next('0 7 * * *', '2026-03-01T06:59:30Z'), '2026-03-01T07:00:00.000Z');
  t.equal(next('0 7 * * *', '2026-03-01T07:00:00Z'), '2026-03-02T07:00:00.000Z', 'strictly after');
  t.equal(next('*/15 * * * *', '2026-03-01T10:16:00Z'), '2026-03-01T10:30:00.000Z');
  t.equal(next('30 9 * * 1-5', '2026-11-27T10:00:00Z'), '2026-11-30T09:30:00.000Z', 'Friday after 9:30 -> Monday');
  t.equal(next('0 0 1 1 *', '2026-06-15T00:00:00Z'), '2027-01-01T00:00:00.000Z');
  t.equal(next('0 0 13 * 5', '2026-11-01T00:00:00Z'), '2026-11-06T00:00:00.000Z', 'day of month or weekday, as cron');
  t.equal(next('0 12 * * 7', '2026-11-25T00:00:00Z'), '2026-11-29T12:00:00.000Z', '7 is Sunday');
  for (const bad of ['* * * *', '60 * * * *', '* 24 * * *', 'a * * * *', '5-1 * * * *', '*/0 * * * *']) {
    t.throws(() => parseCron(bad), `${bad} is refused`);
  }
  t.throws(() => nextCronTime(parseCron('0 0 31 2 *'), at('2026-01-01T00:00:00Z')), /no time in the next 5 years/);
});

t.test('nextSlot: every process computes the same slot', async (t) => {
  t.equal(nextSlot({ every: 1000 }, at('2026-01-01T00:00:00.400Z')).toISOString(), '2026-01-01T00:00:01.000Z');
  t.equal(nextSlot({ every: 1000 }, at('2026-01-01T00:00:01.000Z')).toISOString(), '2026-01-01T00:00:02.000Z');
  t.equal(nextSlot({ pattern: '0 * * * *' }, at('2026-01-01T00:10:00Z')).toISOString(), '2026-01-01T01:00:00.000Z');
});

t.test('job options', async (t) => {
  const now = at('2026-01-01T00:00:00Z');
  t.match(newJob('a', { x: 1 }, {}, now), { maxAttempts: 3, backoffType: 'exponential', backoffDelay: 1000, priority: 0, idempotencyKey: null, runAt: now });
  t.equal(newJob('a', null, { delay: 500 }, now).runAt.toISOString(), '2026-01-01T00:00:00.500Z');
  t.equal(newJob('a', null, { delay: 500, runAt: '2026-02-01T00:00:00Z' }, now).runAt.toISOString(), '2026-02-01T00:00:00.000Z', 'runAt wins');
  t.equal(newJob('a', null, { idempotencyKey: 'k' }, now).idempotencyKey, 'key:k', 'user keys never meet repeat slots');
  t.match(newJob('a', null, { backoff: { type: 'fixed', delay: 5 } }, now), { backoffType: 'fixed', backoffDelay: 5 });
  for (const [options, reason] of [
    [{ attempts: 101 }, /attempts/], [{ attempts: 1.5 }, /attempts/], [{ priority: -1 }, /priority/], [{ delay: -1 }, /delay/],
    [{ backoff: { type: 'linear', delay: 1 } }, /backoff.type/], [{ backoff: -5 }, /backoff delay/], [{ idempotencyKey: 'x'.repeat(201) }, /idempotencyKey/],
  ] as const) {
    t.throws(() => newJob('a', null, options as never, now), { code: 'JOB_OPTIONS_INVALID', message: reason });
  }
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  t.throws(() => newJob('a', cyclic, {}, now), { code: 'JOB_OPTIONS_INVALID', message: /JSON-serializable/ });
  t.equal(checkName('mail.send'), 'mail.send');
  for (const bad of ['', '1abc', 'a:b', 'a b', 'x'.repeat(201)]) t.throws(() => checkName(bad), { code: 'JOB_OPTIONS_INVALID' }, JSON.stringify(bad).slice(0, 20));
});

t.test('BullMQ ids and states', async (t) => {
  const keyed = jobIdFor('mail.send', 'key:order-1');
  t.same(jobIdFor('mail.send', 'key:order-1'), keyed, 'the same key gives the same id');
  t.notSame(jobIdFor('mail.other', 'key:order-1').bullId, keyed.bullId, 'keys are per name');
  t.same(parseJobId(keyed.id), { name: 'mail.send', bullId: keyed.bullId });
  t.equal(parseJobId('no-separator'), null);
  t.equal(parseJobId('~x'), null);
  t.same(['completed', 'failed', 'active', 'waiting', 'prioritized'].map((s) => stateOf(s, 0)), ['completed', 'dead', 'active', 'waiting', 'waiting']);
  t.equal(stateOf('delayed', 0), 'delayed');
  t.equal(stateOf('delayed', 1), 'failed', 'a delayed retry');
});

t.test('errorText keeps the message, bounded, never a stack', async (t) => {
  const error = new TypeError('bad input');
  t.equal(errorText(error), 'TypeError: bad input');
  t.equal(errorText(new Error('plain')), 'plain');
  t.equal(errorText('x'.repeat(3000)).length, 2000);
  t.notMatch(errorText(new Error('m')), /at .*\.ts/);
});
