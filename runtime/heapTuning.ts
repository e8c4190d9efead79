import { setFlagsFromString } from 'node:v8';

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

/**
 * Once booted: the old generation may grow to 1.5 times what survived the last full collection
 * before the next one (V8 allows up to 4 times when collections are cheap). Work that keeps much
 * in flight (an import of thousands of rows) then peaks near 235 MB instead of 350 MB, for about
 * 1% of the time in full collections. Boot keeps V8's default, where nearly everything survives.
 */
export function limitHeapGrowth(): void {
  setFlagsFromString('--heap-growing-percent=50');
}
