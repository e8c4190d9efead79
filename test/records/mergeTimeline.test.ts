import t from 'tap';
import { mergeTimeline, type Activity } from '../../plugins/activities/mergeTimeline.ts';
import { decodeCursor, encodeCursor, MAX_OFFSET, startOffsets } from '../../plugins/activities/timelineCursor.ts';

const item = (kind: Activity['kind'], at: string, id: string): Activity => ({ kind, at, by: null, summary: id, ref: { id }, data: {} });

t.test('merges the sources newest first, ties in source order, and advances each offset by what it showed', async (t) => {
  const pages = {
    history: { items: [item('history', '2026-01-03T00:00:00.000Z', 'h2'), item('history', '2026-01-01T00:00:00.000Z', 'h1')], more: true },
    comment: { items: [item('comment', '2026-01-03T00:00:00.000Z', 'c1')], more: false },
    file: { items: [item('file', '2026-01-02T00:00:00.000Z', 'f1')], more: false },
  };
  const first = mergeTimeline(pages, { ...startOffsets(), history: 4 }, 3);
  t.same(first.items.map((i) => i.summary), ['c1', 'h2', 'f1'], 'same instant: comment before history');
  t.same(first.offsets, { approval: 0, email: 0, file: 1, comment: 1, history: 5 });
  t.equal(first.more, true, 'h1 is left');
  const all = mergeTimeline(pages, startOffsets(), 10);
  t.same(all.items.map((i) => i.summary), ['c1', 'h2', 'f1', 'h1']);
  t.equal(all.more, true, 'history said more');
  t.equal(mergeTimeline({ file: { items: [], more: false } }, startOffsets(), 5).more, false);
});

t.test('emails merge with the other sources: same instant, approval then email then file', async (t) => {
  const pages = {
    email: { items: [item('email', '2026-01-02T00:00:00.000Z', 'e2'), item('email', '2026-01-01T00:00:00.000Z', 'e1')], more: false },
    file: { items: [item('file', '2026-01-02T00:00:00.000Z', 'f1')], more: false },
    approval: { items: [item('approval', '2026-01-02T00:00:00.000Z', 'a1')], more: false },
  };
  const first = mergeTimeline(pages, startOffsets(), 3);
  t.same(first.items.map((i) => i.summary), ['a1', 'e2', 'f1']);
  t.same(first.offsets, { approval: 1, email: 1, file: 1, comment: 0, history: 0 });
  t.equal(first.more, true, 'e1 is left');
});

t.test('a cursor is bound to its record and checked', async (t) => {
  const offsets = { approval: 1, email: 5, file: 2, comment: 3, history: 4 };
  const cursor = encodeCursor('ticket', 'r1', offsets);
  t.same(decodeCursor(cursor, 'ticket', 'r1'), offsets);
  const before = Buffer.from('{"v":1,"o":"ticket","r":"r1","n":[1,2,3,4]}').toString('base64url');
  t.same(decodeCursor(before, 'ticket', 'r1'), { approval: 1, email: 0, file: 2, comment: 3, history: 4 }, 'a cursor made before emails joined still reads');
  for (const [bad, reason] of [
    [encodeCursor('ticket', 'r2', offsets), /another record/],
    [encodeCursor('memo', 'r1', offsets), /another record/],
    ['%%%', /not a cursor/],
    [Buffer.from('{"v":1,"o":"ticket","r":"r1","n":[1,2,3]}').toString('base64url'), /not a cursor/],
    [Buffer.from('{"v":2,"o":"ticket","r":"r1","n":[1,2,3,4]}').toString('base64url'), /not a cursor/],
    [Buffer.from('{"v":3,"o":"ticket","r":"r1","n":[1,2,3,4,5]}').toString('base64url'), /not a cursor/],
    [Buffer.from(`{"v":1,"o":"ticket","r":"r1","n":[1,2,3,${MAX_OFFSET + 1}]}`).toString('base64url'), /whole numbers/],
    [Buffer.from('{"v":1,"o":"ticket","r":"r1","n":[1,2,-3,0]}').toString('base64url'), /whole numbers/],
    [Buffer.from('{"v":1,"o":"ticket","r":"r1","n":[1,2,1.5,0]}').toString('base64url'), /whole numbers/],
  ] as const) {
    t.throws(() => decodeCursor(bad, 'ticket', 'r1'), { code: 'BAD_CURSOR', details: { reason } });
  }
});
