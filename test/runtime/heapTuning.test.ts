// After boot the runtime sets V8's heap growth factor and has one full collection run shortly
// after, so that the limit in force is computed with it (runtime/heapTuning.ts).
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { runInNewContext } from 'node:vm';
import t from 'tap';
import { HEAP_LIMIT_DELAY_MS, fullCollection, limitHeapGrowth } from '../../runtime/heapTuning.ts';

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

t.test('a stop before the delay cancels the collection; otherwise it runs once per process', async (t) => {
  const calls: string[] = [];
  const cancel = limitHeapGrowth(() => calls.push('first'));
  cancel();
  await wait(HEAP_LIMIT_DELAY_MS + 200);
  t.same(calls, [], 'cancelled before the delay: nothing ran');

  limitHeapGrowth(() => calls.push('second'));
  const third = limitHeapGrowth(() => calls.push('third'));
  third();
  await wait(HEAP_LIMIT_DELAY_MS + 200);
  t.same(calls, ['second'], 'one collection: a second runtime of the process neither schedules nor cancels another');

  limitHeapGrowth(() => calls.push('fourth'));
  await wait(HEAP_LIMIT_DELAY_MS + 200);
  t.same(calls, ['second'], 'after it ran, later boots in the process schedule none');
});

t.test('the collection is a full one and leaves no gc function behind', async (t) => {
  const kinds: number[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) kinds.push((entry as unknown as { detail: { kind: number } }).detail.kind);
  });
  observer.observe({ entryTypes: ['gc'] });
  fullCollection();
  await wait(100);
  observer.disconnect();
  t.ok(kinds.includes(constants.NODE_PERFORMANCE_GC_MAJOR), `a major collection ran (kinds seen: ${kinds.join(', ')})`);
  t.equal(typeof (globalThis as { gc?: unknown }).gc, 'undefined', 'no gc on the global object');
  t.equal(runInNewContext('typeof gc'), 'undefined', 'a context made afterwards has no gc either');
});
