/** The signature check and the sweep's day arithmetic, without a server. */
import t from 'tap';
import { addDays, dayCondition, slotsOf } from '../../plugins/automation/sweepDay.ts';
import { parseSignatureHeader, signPayload, verifySignature } from '../../plugins/automation/verifySignature.ts';
import type { ResolvedFlow } from '../../metadata/flowTypes.ts';

const SECRET = 'whsec-test';
const body = Buffer.from('{"order":42}');
const now = Date.parse('2026-11-25T12:00:00Z');
const t0 = Math.floor(now / 1000);

t.test('signatures', async (t) => {
  const good = `t=${t0},v1=${signPayload(SECRET, t0, body)}`;
  const signature = signPayload(SECRET, t0, body);
  t.same(verifySignature(good, body, SECRET, now), { ok: true, signature }, 'a good signature, answered for deduplication');
  t.same(verifySignature(`t=${t0},v1=${'0'.repeat(64)},v1=${signPayload(SECRET, t0, body)}`, body, SECRET, now), { ok: true, signature }, 'one of several v1 (rotation): the same signature');
  t.same(verifySignature(undefined, body, SECRET, now), { ok: false, reason: 'missing' });
  t.same(verifySignature('', body, SECRET, now), { ok: false, reason: 'missing' });
  t.same(verifySignature('v1=abc', body, SECRET, now), { ok: false, reason: 'malformed' }, 'no timestamp, short signature');
  t.same(verifySignature(`t=${t0}`, body, SECRET, now), { ok: false, reason: 'malformed' }, 'no signature');
  t.same(verifySignature(`t=${t0},v1=${signPayload('other', t0, body)}`, body, SECRET, now), { ok: false, reason: 'mismatch' }, 'another secret');
  t.same(verifySignature(good, Buffer.from('{"order":43}'), SECRET, now), { ok: false, reason: 'mismatch' }, 'another body');
  const old = t0 - 301;
  t.same(verifySignature(`t=${old},v1=${signPayload(SECRET, old, body)}`, body, SECRET, now), { ok: false, reason: 'stale' }, 'older than 300 s');
  const edge = t0 - 300;
  t.same(verifySignature(`t=${edge},v1=${signPayload(SECRET, edge, body)}`, body, SECRET, now), { ok: true, signature: signPayload(SECRET, edge, body) }, '300 s is still inside');
  const future = t0 + 301;
  t.same(verifySignature(`t=${future},v1=${signPayload(SECRET, future, body)}`, body, SECRET, now), { ok: false, reason: 'stale' }, 'from too far in the future');
  t.equal(parseSignatureHeader(`t=1,t=2,v1=${'a'.repeat(64)}`), null, 'two timestamps');
  t.equal(signPayload(SECRET, 1700000000, '{}'), signPayload(SECRET, 1700000000, Buffer.from('{}')), 'string and bytes sign alike');
});

t.test('sweep days', async (t) => {
  t.equal(addDays('2026-02-27', 2), '2026-03-01');
  t.equal(addDays('2026-01-01', -1), '2025-12-31');
  const flow = (timeRelative: object) => ({ name: 'f', start: { timeRelative } }) as unknown as ResolvedFlow;
  t.same(slotsOf(flow({ object: 'task', field: 'due_date', offsetDays: [-3, 0] }), '2026-11-25'), [
    { slot: 'offset:-3', from: '2026-11-28', to: '2026-11-28' },
    { slot: 'offset:0', from: '2026-11-25', to: '2026-11-25' },
  ], 'three days before the due date: records due in three days');
  t.same(slotsOf(flow({ object: 'task', field: 'due_date', withinDays: 7 }), '2026-11-25'), [{ slot: 'within:7', from: '2026-11-25', to: '2026-12-02' }]);
  t.same(dayCondition('due_date', 'date', '2026-11-25', '2026-11-25'), { due_date: '2026-11-25' });
  t.same(dayCondition('due_date', 'date', '2026-11-25', '2026-11-27'), { due_date: { $gte: '2026-11-25', $lte: '2026-11-27' } });
  t.same(dayCondition('at', 'datetime', '2026-11-25', '2026-11-25'), { at: { $gte: '2026-11-25T00:00:00.000Z', $lt: '2026-11-26T00:00:00.000Z' } });
});
