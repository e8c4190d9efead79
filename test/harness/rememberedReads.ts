/**
 * Helpers for tests of remembered totals and pages (countCache.ts): background work through
 * `data.database` (the job queue's polls) makes the runtime forget them now and then, so a test
 * retries until one read follows another with nothing in between.
 */
import type { DataDatabase } from '../../capabilities/dataDatabase.ts';
import type { DataContext, DataEngine } from '../../capabilities/dataEngine.ts';
import type { TestRuntime } from './startTestRuntime.ts';

/**
 * Reads twice, up to 50 times, until the second read runs no statement of `seen` (statements the
 * test collects from the environment's knex, emptied here before the second read).
 */
export async function untilRemembered(read: () => Promise<unknown>, seen: string[]): Promise<boolean> {
  for (let i = 0; i < 50; i++) {
    await read();
    seen.length = 0;
    await read();
    if (seen.length === 0) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}

/**
 * A transaction of `engine` left open after `work`: `ready` resolves once the work is done inside
 * it, `commit()` lets it commit and resolves when it has.
 */
export function openTransaction(engine: DataEngine, ctx: DataContext, work: (tx: DataEngine) => Promise<unknown>): { ready: Promise<void>; commit(): Promise<void> } {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let done!: () => void;
  const ready = new Promise<void>((resolve) => (done = resolve));
  const open = engine.transaction(ctx, async (tx) => {
    await work(tx);
    done();
    await gate;
  });
  return {
    ready,
    commit: async () => {
      release();
      await open;
    },
  };
}

/** The statements of an environment's knex that read `table` (its rows, groups or totals), as they run. */
export async function tableReads(rt: TestRuntime, environmentId: string, table: string): Promise<string[]> {
  const seen: string[] = [];
  const from = new RegExp(`from [\`"]${table}[\`"]`, 'i');
  await rt.runtime.kernel.service<DataDatabase>('data.database')!.withDatabase(environmentId, async ({ knex }) => {
    knex.on('query', (q: { sql: string }) => {
      if (from.test(q.sql)) seen.push(q.sql);
    });
  });
  return seen;
}
