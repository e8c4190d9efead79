import { z } from 'zod';

/** Options of the http plugin, set through the top-level `server` config. */
export const httpOptionsSchema = z.strictObject({
  port: z.number().int().min(0).max(65535).default(3000),
  host: z.string().default('127.0.0.1'),
  /** Largest accepted request body in bytes; larger bodies get 413 PAYLOAD_TOO_LARGE. */
  bodyLimit: z.number().int().positive().default(1_048_576),
  /** Whole-request deadline in ms (slow clients are cut off). */
  requestTimeoutMs: z.number().int().positive().default(30_000),
  /** Idle keep-alive connections are closed after this many ms. */
  keepAliveTimeoutMs: z.number().int().positive().default(5_000),
  /** Trust X-Forwarded-* from a proxy in front. */
  trustProxy: z.boolean().default(false),
  /** false: no socket; requests go through inject (tests, embedding). */
  listen: z.boolean().default(true),
  /** Log one line per request. */
  logRequests: z.boolean().default(true),
});

export type HttpOptions = z.output<typeof httpOptionsSchema>;
