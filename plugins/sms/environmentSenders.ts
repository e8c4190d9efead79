import { outboxOutsideProduction, type DevOutbox } from '../../capabilities/devOutbox.ts';
import { builtFromSettings } from '../../capabilities/builtFromSettings.ts';
import type { SettingsStore } from '../../capabilities/settingsStore.ts';
import type { SmsMessage, SmsSend } from '../../capabilities/smsSend.ts';
import type { Logger } from '../../kernel/logger.ts';
import { mergeSettings } from '../../capabilities/mergeSettings.ts';
import { logProvider } from './logProvider.ts';
import { resolveSmsSettings, type SmsInput } from './resolveSmsSettings.ts';
import type { SmsOptions } from './smsOptions.ts';
import { twilioProvider } from './twilioProvider.ts';
import { vonageProvider } from './vonageProvider.ts';

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * The sender the options resolve to (throws SMS_NOT_CONFIGURED, naming the key, where they cannot
 * be used). `fetchFor`: how to reach each provider (the settings' checked connections where the
 * settings chose its `baseUrl`).
 */
export function senderOf(options: SmsInput, env: NodeJS.ProcessEnv, production: boolean, log: Logger, outbox: () => DevOutbox | undefined = () => undefined, fetchFor: (provider: 'twilio' | 'vonage') => typeof fetch = () => fetch): { sender: SmsSend; provider: 'twilio' | 'vonage' | 'log' } {
  const settings = resolveSmsSettings(options, env, production);
  const sender = settings.provider === 'twilio' ? twilioProvider(settings.twilio, log, fetchFor('twilio'))
    : settings.provider === 'vonage' ? vonageProvider(settings.vonage, log, fetchFor('vonage'))
      : logProvider(log, () => outboxOutsideProduction(production, outbox()));
  return { sender, provider: settings.provider };
}

/**
 * An environment's `sms` settings merged over the config file's section. Credentials given in
 * settings are used as they are. A provider whose choice is the settings' (they name `provider`,
 * or that provider's `baseUrl`), or for which they give any credential, gets only the credentials
 * the settings give: never the variables the config file names (TWILIO_ACCOUNT_SID, ...), which a
 * tenant admin would otherwise send to a server it chose.
 */
export function settingsOptions(base: SmsOptions, values: Json): SmsInput {
  const merged = mergeSettings(base as unknown as Json, values) as unknown as SmsInput;
  const own = (section: 'twilio' | 'vonage', credentials: readonly string[]) => {
    const given = isObject(values[section]) ? values[section] : {};
    return values.provider !== undefined || given.baseUrl !== undefined || credentials.some((k) => given[k] !== undefined);
  };
  return {
    ...merged,
    twilio: own('twilio', ['accountSid', 'authToken']) ? { ...merged.twilio, accountSidEnv: null, authTokenEnv: null } : merged.twilio,
    vonage: own('vonage', ['apiKey', 'apiSecret']) ? { ...merged.vonage, apiKeyEnv: null, apiSecretEnv: null } : merged.vonage,
  };
}

/**
 * The sender of each message: the config file's, or the one built from its environment's `sms`
 * settings (merged over the config file) while their revision stays the same. A message without
 * an environment uses the config file's.
 */
export function environmentSenders(deps: { options: SmsOptions; fallback: SmsSend; production: boolean; log: Logger; store: () => SettingsStore | undefined; outbox?: () => DevOutbox | undefined }) {
  const built = builtFromSettings<SmsSend>('sms', deps.store, (values, environmentId) => {
    // A provider whose baseUrl the settings give is reached through the settings' checked connections; the config file's hosts are the operator's.
    const chosen = (provider: 'twilio' | 'vonage') => isObject(values[provider]) && values[provider].baseUrl !== undefined;
    const connections = deps.store()?.connections;
    return senderOf(settingsOptions(deps.options, values), process.env, deps.production, deps.log.child({ environmentId }), deps.outbox,
      (provider) => (chosen(provider) && connections ? connections.fetch : fetch)).sender;
  });
  return {
    async senderFor(message: SmsMessage): Promise<SmsSend> {
      return (await built.of(message.environmentId)) ?? deps.fallback;
    },
  };
}
