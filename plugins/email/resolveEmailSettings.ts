import { codedError } from '../../kernel/errors.ts';
import type { EmailOptions } from './emailOptions.ts';

export interface SmtpSettings {
  host: string;
  port: number;
  secure: boolean;
  requireTLS: boolean;
  auth: { user: string; pass: string } | null;
  from: string;
  timeoutMs: number;
}

export type EmailSettings = { provider: 'log' } | { provider: 'smtp'; smtp: SmtpSettings };

const nonEmpty = (value: string | undefined) => (value && value.trim() !== '' ? value.trim() : undefined);

/**
 * Which provider to use and how to reach it, from options first and environment variables second.
 * Production never falls back to the log provider on its own: mails would vanish unnoticed.
 */
export function resolveEmailSettings(options: EmailOptions, env: NodeJS.ProcessEnv, production: boolean): EmailSettings {
  const smtp = options.smtp;
  const host = nonEmpty(smtp?.host) ?? nonEmpty(env.SMTP_HOST);
  const provider = options.provider ?? (production || host ? 'smtp' : 'log');
  if (provider === 'log') return { provider };

  // `path`: the key of plugins.email (and of the `email` settings) that is missing.
  const missing = (what: string, fix: string, path: string) => codedError('EMAIL_NOT_CONFIGURED', { reason: `${what} is not set`, fix, path });
  if (!host) throw missing('the SMTP host', 'set plugins.email.smtp.host or SMTP_HOST, or disable the plugin with plugins.email.enabled: false', 'smtp.host');
  const from = nonEmpty(options.from) ?? nonEmpty(env.EMAIL_FROM);
  if (!from) throw missing('the sender address', 'set plugins.email.from or EMAIL_FROM', 'from');

  const envSecure = nonEmpty(env.SMTP_SECURE);
  const secure = smtp?.secure ?? (envSecure ? envSecure === 'true' || envSecure === '1' : false);
  const envPort = nonEmpty(env.SMTP_PORT);
  if (smtp?.port === undefined && envPort !== undefined && !/^\d{1,5}$/.test(envPort)) {
    throw codedError('EMAIL_NOT_CONFIGURED', { reason: `SMTP_PORT '${envPort.slice(0, 20)}' is not a port number`, fix: 'set SMTP_PORT to a number', path: 'smtp.port' });
  }
  const port = smtp?.port ?? (envPort ? Number(envPort) : secure ? 465 : 587);
  const user = nonEmpty(smtp?.user) ?? nonEmpty(env.SMTP_USER);
  const pass = smtp?.password ?? nonEmpty(env[smtp?.passwordEnv ?? 'SMTP_PASSWORD']);
  if (user && !pass) throw missing(`the password of SMTP user '${user}'`, `set ${smtp?.passwordEnv ?? 'SMTP_PASSWORD'} (or plugins.email.smtp.password)`, 'smtp.password');
  return {
    provider,
    smtp: {
      host, port, secure, from,
      requireTLS: smtp?.requireTLS ?? false,
      auth: user && pass ? { user, pass } : null,
      timeoutMs: smtp?.timeoutMs ?? 20_000,
    },
  };
}
