import { z } from 'zod';

/** Options of the share-links plugin (`plugins.share-links`). */
export const shareLinkOptionsSchema = z.strictObject({
  /** Days a link lives when its creator names no expiresAt. */
  defaultDays: z.number().int().min(1).max(3650).default(30),
  /** The latest expiresAt a creator may name, in days from now. */
  maxDays: z.number().int().min(1).max(3650).default(365),
  /** Reads of share links (JSON and page) per client IP and window, in each environment. */
  rateLimit: z.strictObject({
    max: z.number().int().min(1).max(100_000).default(60),
    windowSeconds: z.number().int().min(1).max(86_400).default(60),
  }).default({ max: 60, windowSeconds: 60 }),
  /** The origin `url` starts with (https://app.example.com); without it `url` is a path on this server. */
  publicOrigin: z.string().url().max(200).refine((value) => new URL(value).origin === value.replace(/\/$/, ''), 'must be an origin: scheme, host and port, no path').optional(),
}).refine((options) => options.defaultDays <= options.maxDays, { message: 'defaultDays must not exceed maxDays', path: ['defaultDays'] });

export type ShareLinkOptions = z.output<typeof shareLinkOptionsSchema>;
