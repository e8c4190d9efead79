import { codedError } from '../../kernel/errors.ts';
import type { SmsOptions } from './smsOptions.ts';

export interface TwilioSettings {
  accountSid: string;
  authToken: string;
  /** Exactly one of `from` and `messagingServiceSid`. */
  from: string | null;
  messagingServiceSid: string | null;
  baseUrl: string;
  timeoutMs: number;
}

export interface VonageSettings {
  apiKey: string;
  apiSecret: string;
  from: string;
  baseUrl: string;
  timeoutMs: number;
}

export type SmsSettings =
  | { provider: 'log' }
  | { provider: 'twilio'; twilio: TwilioSettings }
  | { provider: 'vonage'; vonage: VonageSettings };

const nonEmpty = (value: string | undefined) => (value && value.trim() !== '' ? value.trim() : undefined);
const trimSlash = (url: string) => url.replace(/\/+$/, '');

/**
 * Which provider to use and its credentials (from environment variables only: config files end
 * up in repositories). Production never falls back to the log provider on its own: codes would
 * vanish unnoticed.
 */
export function resolveSmsSettings(options: SmsOptions, env: NodeJS.ProcessEnv, production: boolean): SmsSettings {
  const provider = options.provider ?? (production ? undefined : 'log');
  if (!provider) {
    throw codedError('SMS_NOT_CONFIGURED', {
      reason: 'no provider is chosen (production does not fall back to the log provider)',
      fix: "set sms.provider to 'twilio' or 'vonage' and its credentials in the environment, or 'log' to only log recipients, or disable the plugin with plugins.sms.enabled: false",
    });
  }
  if (provider === 'log') return { provider };
  const missing = (what: string, fix: string) => codedError('SMS_NOT_CONFIGURED', { reason: `${what} is not set`, fix });
  const from = nonEmpty(options.from) ?? nonEmpty(env.SMS_FROM);
  if (from !== undefined && !/^(\+[1-9]\d{6,14}|[A-Za-z0-9 ]{1,11})$/.test(from)) {
    throw codedError('SMS_NOT_CONFIGURED', { reason: 'SMS_FROM is neither an E.164 number nor an alphanumeric sender id', fix: 'set SMS_FROM (or sms.from) to a number such as +15005550006' });
  }
  if (provider === 'twilio') {
    const t = options.twilio;
    const accountSid = nonEmpty(env[t.accountSidEnv]);
    if (!accountSid) throw missing(`the Twilio Account SID (${t.accountSidEnv})`, `set ${t.accountSidEnv}`);
    if (!/^AC[0-9a-fA-F]{32}$/.test(accountSid)) throw codedError('SMS_NOT_CONFIGURED', { reason: `${t.accountSidEnv} is not an Account SID (AC and 32 hex digits)`, fix: `set ${t.accountSidEnv} to the SID shown in the Twilio console` });
    const authToken = nonEmpty(env[t.authTokenEnv]);
    if (!authToken) throw missing(`the Twilio Auth Token (${t.authTokenEnv})`, `set ${t.authTokenEnv}`);
    const service = t.messagingServiceSid ?? null;
    if (!from && !service) throw missing('the sender', 'set sms.from or SMS_FROM, or sms.twilio.messagingServiceSid');
    return {
      provider,
      twilio: { accountSid, authToken, from: service ? null : from!, messagingServiceSid: service, baseUrl: trimSlash(t.baseUrl), timeoutMs: options.timeoutMs },
    };
  }
  const v = options.vonage;
  const apiKey = nonEmpty(env[v.apiKeyEnv]);
  if (!apiKey) throw missing(`the Vonage API key (${v.apiKeyEnv})`, `set ${v.apiKeyEnv}`);
  const apiSecret = nonEmpty(env[v.apiSecretEnv]);
  if (!apiSecret) throw missing(`the Vonage API secret (${v.apiSecretEnv})`, `set ${v.apiSecretEnv}`);
  if (!from) throw missing('the sender', 'set sms.from or SMS_FROM');
  return { provider, vonage: { apiKey, apiSecret, from, baseUrl: trimSlash(v.baseUrl), timeoutMs: options.timeoutMs } };
}
