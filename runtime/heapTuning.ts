import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * V8 settings for a long-running server process. Imported first by createRuntime.ts, so the first
 * one is in place before the runtime's modules run.
 *
 * V8 decides per allocation site whether new objects go straight to the old generation
 * ("pretenuring") when most objects of that site survived a young collection. During boot almost
 * everything survives (modules, metadata, the database client), so sites that requests use too
 * (knex builds a full query interface for every transaction) are marked that way, and every write
 * then left its garbage in the old generation until a full collection: the heap grew to 200 MB
 * under write load with 45 MB live. Without pretenuring, request garbage dies young and is
 * reclaimed by the young-generation collector.
 */
setFlagsFromString('--no-allocation-site-pretenuring');

/** How long after boot the heap limit is set again from what survives (see limitHeapGrowth). */
export const HEAP_LIMIT_DELAY_MS = 1_000;

/**
 * Returns a function that cancels the collection while it is pending (the runtime's stop).
 *
 * Once booted: the old generation may grow to 1.5 times what survived the last full collection
 * before the next one (V8 allows up to 4 times when collections are cheap). Work that keeps much
 * in flight (an import of thousands of rows) then peaks near 235 MB instead of 350 MB, for about
 * 1% of the time in full collections. Boot keeps V8's default, where nearly everything survives.
 *
 * V8 sets that limit at each full collection, so the one in force after boot was set with the
 * default factor: under load the old generation then first grew to twice what was live (about
 * 100 MB with 45 MB live) before the first full collection applied the new factor, and the
 * process's peak came from that first cycle. One full collection shortly after boot (about 35 ms,
 * once; `HEAP_LIMIT_DELAY_MS` later, so that it does not delay readiness) sets the limit with the
 * new factor from the start: the mix's peak fell by about 30 MB (bench/README.md, Memory).
 */
export function limitHeapGrowth(collect: () => void = fullCollection): () => void {
  setFlagsFromString('--heap-growing-percent=50');
  // Once per process: every later full collection applies the factor by itself.
  if (collected || pending) return () => undefined;
  const timer = setTimeout(() => {
    pending = null;
    collected = true;
    collect();
  }, HEAP_LIMIT_DELAY_MS);
  timer.unref();
  pending = timer;
  return () => {
    if (pending !== timer) return;
    clearTimeout(timer);
    pending = null;
  };
}

let collected = false;
let pending: NodeJS.Timeout | null = null;

/** One full collection, without exposing `gc` to the process's own contexts. */
export function fullCollection(): void {
  setFlagsFromString('--expose-gc');
  try {
    (runInNewContext('gc') as () => void)();
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}
