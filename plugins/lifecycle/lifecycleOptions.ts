import { z } from 'zod';

/** `lifecycle.retention_overrides`: contract name -> days to keep (0 keeps forever). */
export const retentionOverridesSchema = z.record(z.string().min(1).max(200), z.number().int().min(0).max(36_500));

/** Options of the lifecycle plugin (from the config's `lifecycle` section). */
export const lifecycleOptionsSchema = z.strictObject({
  retentionOverrides: retentionOverridesSchema.default({}),
  /** Rows deleted per statement: each batch is its own short statement, so no lock is held long. */
  batchSize: z.number().int().min(1).max(10_000).default(500),
  /** Batches per contract and environment in one run; what is left waits for the next run. */
  maxBatches: z.number().int().min(1).max(100_000).default(200),
  /** When the daily run happens (5-field cron, UTC). */
  schedule: z.string().min(9).max(100).default('30 3 * * *'),
});

export type LifecycleOptions = z.output<typeof lifecycleOptionsSchema>;
