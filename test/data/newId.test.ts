import t from 'tap';
import { newId } from '../../plugins/data/sql/newId.ts';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

t.test('ids are version 7 UUIDs carrying the time they were made', async (t) => {
  const before = Date.now();
  const id = newId();
  const after = Date.now();
  t.match(id, UUID_V7);
  const ms = Number.parseInt(id.replace(/-/g, '').slice(0, 12), 16);
  t.ok(ms >= before && ms <= after + 1, `timestamp ${ms} within [${before}, ${after}]`);
});

t.test('ids made one after another sort in the order they were made, and never repeat', async (t) => {
  const ids = Array.from({ length: 50_000 }, () => newId());
  let ordered = 0;
  for (let i = 1; i < ids.length; i++) if (ids[i - 1]! < ids[i]!) ordered++;
  t.equal(ordered, ids.length - 1, 'every id is greater than the one before');
  t.equal(new Set(ids).size, ids.length);
  t.ok(ids.every((id) => UUID_V7.test(id)));
});

t.test('a clock that steps back does not break the order', async (t) => {
  const realNow = Date.now;
  const first = newId();
  try {
    Date.now = () => realNow() - 60_000;
    const second = newId();
    const third = newId();
    t.ok(first < second && second < third, `${first} < ${second} < ${third}`);
  } finally {
    Date.now = realNow;
  }
});

t.test('ids made in the same millisecond differ in their random part', async (t) => {
  const realNow = Date.now;
  try {
    Date.now = () => 1_800_000_000_000;
    const a = newId();
    const b = newId();
    t.not(a.slice(-10), b.slice(-10), 'the last 40 bits are random');
  } finally {
    Date.now = realNow;
  }
});
