import { z } from 'zod';

/** `plugins.realtime` options (docs/realtime.md). */
export const realtimeOptionsSchema = z.strictObject({
  /** Open streams per user (per environment), across its sessions and keys. */
  maxConnectionsPerUser: z.number().int().min(1).max(10_000).default(10),
  /** Open streams this process serves in all. */
  maxConnections: z.number().int().min(1).max(100_000).default(5_000),
  /** Objects one stream may follow. */
  maxObjects: z.number().int().min(1).max(100).default(10),
  /** Events waiting for a slow reader before it is sent `reset` and closed. */
  queueLimit: z.number().int().min(10).max(100_000).default(1_000),
  /** Changes kept for streams that resume with Last-Event-ID: how many, and for how long. */
  replay: z.strictObject({
    size: z.number().int().min(0).max(1_000_000).default(10_000),
    ageMs: z.number().int().min(0).max(86_400_000).default(300_000),
  }).default({ size: 10_000, ageMs: 300_000 }),
  /** A comment line on idle streams this often, so proxies keep them open. */
  heartbeatMs: z.number().int().min(1_000).max(300_000).default(15_000),
  /** How often every stream's credential is checked again (a revoked one ends its stream). */
  recheckMs: z.number().int().min(100).max(60_000).default(1_000),
  /** Records each access group remembers having sent (for `updated` against `entered`, and `left`). */
  knownPerGroup: z.number().int().min(100).max(1_000_000).default(50_000),
  /** Records every group of this process remembers together (the largest group forgets first). */
  knownTotal: z.number().int().min(100).max(50_000_000).default(1_000_000),
  /**
   * Diagnostic: false gives every stream access groups of its own, so each change is read once per
   * stream instead of once per group (what grouping saves, bench/realtimeBench.ts). Keep it true.
   */
  grouping: z.boolean().default(true),
});

export type RealtimeOptions = z.infer<typeof realtimeOptionsSchema>;
