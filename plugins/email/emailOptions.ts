import { z } from 'zod';

/** Options of the email plugin (`plugins.email` in config). */
export const emailOptionsSchema = z.strictObject({
  /** `smtp` delivers; `log` only logs recipient and subject (development). Default: `smtp` in production, `log` elsewhere. */
  provider: z.enum(['smtp', 'log']).optional(),
  /** Sender address, e.g. `"Acme" <no-reply@acme.example>` (env EMAIL_FROM). Required for `smtp`. */
  from: z.string().min(3).max(320).optional(),
  smtp: z.strictObject({
    /** Server name or address (env SMTP_HOST). */
    host: z.string().min(1).optional(),
    /** Default 465 when `secure`, else 587 (env SMTP_PORT). */
    port: z.number().int().min(1).max(65_535).optional(),
    /** TLS from the first byte (port 465); false upgrades with STARTTLS when the server offers it (env SMTP_SECURE). */
    secure: z.boolean().optional(),
    /** Refuse to send when a non-`secure` connection cannot be upgraded with STARTTLS. */
    requireTLS: z.boolean().default(false),
    /** Login name (env SMTP_USER). */
    user: z.string().min(1).optional(),
    /** Password; prefer `passwordEnv`. */
    password: z.string().min(1).optional(),
    /** Name of the environment variable holding the password (default SMTP_PASSWORD). */
    passwordEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).default('SMTP_PASSWORD'),
    /** Connection, greeting and socket timeouts, in milliseconds. */
    timeoutMs: z.number().int().positive().max(300_000).default(20_000),
  }).optional(),
});

export type EmailOptions = z.output<typeof emailOptionsSchema>;
