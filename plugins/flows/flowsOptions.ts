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
});

export type FlowsOptions = z.infer<typeof flowsOptionsSchema>;
