import { z } from 'zod';
import { parseAllowEntry } from './httpAllow.ts';

export const flowsOptionsSchema = z.strictObject({
  http: z.strictObject({
    /** URL prefixes the http step may call; empty: every http step fails. */
    allow: z.array(z.string().superRefine((value, ctx) => {
      try {
        parseAllowEntry(value);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
      }
    })).max(500).default([]),
  }).default({ allow: [] }),
  /** Attempts of a run's job when the runner itself fails (a database outage), not when a step fails. */
  jobAttempts: z.number().int().min(1).max(20).default(5),
  /**
   * A running run (or one going into a wait) unchanged for this many milliseconds whose job was
   * never queued is queued again, and one whose job is dead is failed: every process checks every
   * half of it. 0: only at boot. Default 60 000.
   */
  recoverAfterMs: z.union([z.literal(0), z.number().int().min(1000).max(86_400_000)]).default(60_000),
});

export type FlowsOptions = z.infer<typeof flowsOptionsSchema>;
