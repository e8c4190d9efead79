import { outboxOutsideProduction, type DevOutbox } from '../../capabilities/devOutbox.ts';
import type { EmailMessage } from '../../capabilities/emailSend.ts';
import { builtFromSettings } from '../../capabilities/builtFromSettings.ts';
import type { SettingsConnections, SettingsStore } from '../../capabilities/settingsStore.ts';
import type { Logger } from '../../kernel/logger.ts';
import type { Delivery } from './emailLog.ts';
import { emailOptionsSchema, type EmailOptions } from './emailOptions.ts';
import { logProvider } from './logProvider.ts';
import { mergeSettings } from '../../capabilities/mergeSettings.ts';
import { resolveEmailSettings } from './resolveEmailSettings.ts';
import { smtpProvider } from './smtpProvider.ts';

export interface Provider {
  send(message: EmailMessage): Promise<Delivery>;
  close(): Promise<void>;
}

/** A transport replaced by new settings is closed this long after, once mails in flight on it are done. */
const CLOSE_AFTER_MS = 30_000;

export function providerOf(options: EmailOptions, production: boolean, log: Logger, outbox: () => DevOutbox | undefined = () => undefined, env: NodeJS.ProcessEnv = process.env, connect?: SettingsConnections['connect']): Provider {
  const settings = resolveEmailSettings(options, env, production);
  return settings.provider === 'smtp' ? smtpProvider(settings.smtp, log, connect) : logProvider(log, () => outboxOutsideProduction(production, outbox()));
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
  const retire = (provider: Provider) => setTimeout(() => void provider.close().catch(() => undefined), CLOSE_AFTER_MS).unref();
  const built = builtFromSettings<Provider>('email', deps.store, (values, environmentId) => {
    const { options, env } = settingsOptions(deps.options, values);
    // A server the settings name is reached through the settings' checked connections; the config file's is the operator's.
    const chosen = (values.smtp as Record<string, unknown> | undefined)?.host !== undefined;
    const connections = deps.store()?.connections;
    return providerOf(options, deps.production, deps.log.child({ environmentId }), deps.outbox, env, chosen && connections?.checked ? connections.connect : undefined);
  }, retire);
  return {
    async providerFor(message: EmailMessage): Promise<Provider> {
      return (await built.of(message.environmentId ?? message.about?.environmentId)) ?? deps.fallback;
    },
    async close(): Promise<void> {
      await Promise.all(built.current().map((provider) => provider.close()));
      built.clear();
    },
  };
}
