import { outboxOutsideProduction, type DevOutbox } from '../../capabilities/devOutbox.ts';
import type { EmailMessage } from '../../capabilities/emailSend.ts';
import type { SettingsStore } from '../../capabilities/settingsStore.ts';
import type { Logger } from '../../kernel/logger.ts';
import type { Delivery } from './emailLog.ts';
import { emailOptionsSchema, type EmailOptions } from './emailOptions.ts';
import { logProvider } from './logProvider.ts';
import { mergeSettings } from './mergeSettings.ts';
import { resolveEmailSettings } from './resolveEmailSettings.ts';
import { smtpProvider } from './smtpProvider.ts';

export interface Provider {
  send(message: EmailMessage): Promise<Delivery>;
  close(): Promise<void>;
}

/** A transport replaced by new settings is closed this long after, once mails in flight on it are done. */
const CLOSE_AFTER_MS = 30_000;

export function providerOf(options: EmailOptions, production: boolean, log: Logger, outbox: () => DevOutbox | undefined = () => undefined, env: NodeJS.ProcessEnv = process.env): Provider {
  const settings = resolveEmailSettings(options, env, production);
  return settings.provider === 'smtp' ? smtpProvider(settings.smtp, log) : logProvider(log, () => outboxOutsideProduction(production, outbox()));
}

/**
 * The options of an environment's settings merged over the config file's, and the environment
 * variables they may read. A server named in settings gets only the login named in settings:
 * never the config file's user and password, nor SMTP_USER, SMTP_PASSWORD or the variable the
 * config file's `passwordEnv` names (a tenant admin would otherwise send them to a host it chose).
 */
export function settingsOptions(base: EmailOptions, values: Record<string, unknown>): { options: EmailOptions; env: NodeJS.ProcessEnv } {
  const merged = mergeSettings(base as Record<string, unknown>, values);
  const chosen = values.smtp as Record<string, unknown> | undefined;
  if (chosen?.host === undefined) return { options: emailOptionsSchema.parse(merged), env: process.env };
  const { user: _user, password: _password, passwordEnv, ...rest } = merged.smtp as Record<string, unknown>;
  const smtp = { ...rest, ...(chosen.user !== undefined ? { user: chosen.user } : {}), ...(chosen.password !== undefined ? { password: chosen.password } : {}) };
  const env = { ...process.env };
  for (const name of ['SMTP_USER', 'SMTP_PASSWORD', typeof passwordEnv === 'string' ? passwordEnv : 'SMTP_PASSWORD']) delete env[name];
  return { options: emailOptionsSchema.parse({ ...merged, smtp }), env };
}

/**
 * The provider of each message: the config file's, or the one built from its environment's
 * `email` settings (merged over the config file) while their revision stays the same.
 */
export function environmentProviders(deps: { options: EmailOptions; fallback: Provider; production: boolean; log: Logger; store: () => SettingsStore | undefined; outbox?: () => DevOutbox | undefined }) {
  const built = new Map<string, { revision: string; provider: Provider }>();
  const retire = (provider: Provider) => setTimeout(() => void provider.close().catch(() => undefined), CLOSE_AFTER_MS).unref();
  return {
    async providerFor(message: EmailMessage): Promise<Provider> {
      const environmentId = message.environmentId ?? message.about?.environmentId;
      const store = deps.store();
      if (!environmentId || !store) return deps.fallback;
      const settings = await store.read(environmentId, 'email');
      const current = built.get(environmentId);
      if (!settings) {
        if (current) {
          built.delete(environmentId);
          retire(current.provider);
        }
        return deps.fallback;
      }
      if (current?.revision === settings.revision) return current.provider;
      const { options, env } = settingsOptions(deps.options, settings.values);
      const provider = providerOf(options, deps.production, deps.log.child({ environmentId }), deps.outbox, env);
      built.set(environmentId, { revision: settings.revision, provider });
      if (current) retire(current.provider);
      return provider;
    },
    async close(): Promise<void> {
      await Promise.all([...built.values()].map((b) => b.provider.close()));
      built.clear();
    },
  };
}
