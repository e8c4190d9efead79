/** Which SQLite reads go to the read workers: aggregations and distinct always, other shapes after two slow runs in a row. */
import t from 'tap';
import { createReadPoolPolicy, defaultReaders } from '../../plugins/data/query/readPool.ts';
import type { QueryAst } from '../../plugins/data/query/types.ts';

const plain = { aggregate: false, distinct: false } as QueryAst;

t.test('aggregations and distinct reads are pooled from their first run', async (t) => {
  const policy = createReadPoolPolicy(5);
  t.equal(policy.pooled({ ...plain, aggregate: true } as QueryAst, 'a'), true, 'aggregation');
  t.equal(policy.pooled({ ...plain, distinct: true } as QueryAst, 'd'), true, 'distinct');
  t.equal(policy.pooled(plain, 'p'), false, 'a plain read of an unknown shape stays on the main thread');
});

t.test('a shape goes to the pool after two slow runs in a row, and comes back after a quick one', async (t) => {
  const policy = createReadPoolPolicy(5);
  policy.ran('s', 9);
  t.equal(policy.pooled(plain, 's'), false, 'one slow run is not enough (it may be the machine)');
  policy.ran('s', 1);
  policy.ran('s', 9);
  t.equal(policy.pooled(plain, 's'), false, 'a quick run in between starts the count again');
  policy.ran('s', 9);
  t.equal(policy.pooled(plain, 's'), true, 'two slow runs in a row: pooled');
  t.equal(policy.pooled(plain, 'other'), false, 'per shape');
  policy.ran('s', 5);
  t.equal(policy.pooled(plain, 's'), true, 'a run at the threshold counts as slow');
  policy.ran('s', 4.9);
  t.equal(policy.pooled(plain, 's'), false, 'a quick run sends it back to the main thread');
});

t.test('at most 512 slow shapes are remembered, the least recently slow dropped first', async (t) => {
  const policy = createReadPoolPolicy(1);
  for (let i = 0; i <= 512; i++) {
    policy.ran(`k${i}`, 2);
    policy.ran(`k${i}`, 2);
  }
  t.equal(policy.pooled(plain, 'k0'), false, 'the oldest left');
  t.equal(policy.pooled(plain, 'k1'), true, 'the next is kept');
  t.equal(policy.pooled(plain, 'k512'), true, 'the newest is kept');
});

t.test('readers by default: the cores, at least 1 and at most 4', async (t) => {
  t.same([1, 2, 3, 8, 64].map((cores) => defaultReaders(cores)), [1, 2, 3, 4, 4], 'per core count');
});
