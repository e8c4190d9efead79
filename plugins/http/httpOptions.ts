import { z } from 'zod';

/** Options of the http plugin; the host fills them from the top-level `server` config. */
export const httpOptionsSchema = z.strictObject({
  port: z.number().int().min(0).max(65535).default(3000),
  host: z.string().default('127.0.0.1'),
  bodyLimit: z.number().int().positive().default(1_048_576),
  requestTimeoutMs: z.number().int().positive().default(30_000),
  keepAliveTimeoutMs: z.number().int().positive().default(5_000),
  trustProxy: z.boolean().default(false),
  /** false: no socket; requests go through inject (tests, embedding). */
  listen: z.boolean().default(true),
  /** Log one line per request. */
  logRequests: z.boolean().default(true),
});

export type HttpOptions = z.output<typeof httpOptionsSchema>;
