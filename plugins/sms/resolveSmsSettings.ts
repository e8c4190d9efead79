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
 * What the resolver reads: the `sms` options, and, from an environment's settings, credentials
 * given as values. A variable name set to null is not read: the credential comes from the value
 * or nowhere (a provider chosen in settings never gets the operator's variables).
 */
export type SmsInput = Omit<SmsOptions, 'twilio' | 'vonage'> & {
  twilio: Omit<SmsOptions['twilio'], 'accountSidEnv' | 'authTokenEnv'> & { accountSidEnv: string | null; authTokenEnv: string | null; accountSid?: string; authToken?: string };
  vonage: Omit<SmsOptions['vonage'], 'apiKeyEnv' | 'apiSecretEnv'> & { apiKeyEnv: string | null; apiSecretEnv: string | null; apiKey?: string; apiSecret?: string };
};

/**
 * Which provider to use and its credentials: given as values (an environment's settings), else
 * from the environment variables the options name (config files end up in repositories).
 * Production never falls back to the log provider on its own: codes would vanish unnoticed.
 * Each refusal names in `path` the key of the `sms` settings it concerns.
 */
export function resolveSmsSettings(options: SmsInput, env: NodeJS.ProcessEnv, production: boolean): SmsSettings {
  const provider = options.provider ?? (production ? undefined : 'log');
  if (!provider) {
    throw codedError('SMS_NOT_CONFIGURED', {
      reason: 'no provider is chosen (production does not fall back to the log provider)',
      fix: "set sms.provider to 'twilio' or 'vonage' and its credentials in the environment, or 'log' to only log recipients, or disable the plugin with plugins.sms.enabled: false",
      path: 'provider',
    });
  }
  if (provider === 'log') return { provider };
  const missing = (what: string, fix: string, path: string) => codedError('SMS_NOT_CONFIGURED', { reason: `${what} is not set`, fix, path });
  /** A credential: its value, else its variable (when one is named). */
  const secret = (value: string | undefined, variable: string | null, path: string) => {
    const found = nonEmpty(value) ?? (variable === null ? undefined : nonEmpty(env[variable]));
    return { found, where: variable === null ? path : variable };
  };
  const from = nonEmpty(options.from) ?? nonEmpty(env.SMS_FROM);
  if (from !== undefined && !/^(\+[1-9]\d{6,14}|[A-Za-z0-9 ]{1,11})$/.test(from)) {
    throw codedError('SMS_NOT_CONFIGURED', { reason: 'SMS_FROM is neither an E.164 number nor an alphanumeric sender id', fix: 'set SMS_FROM (or sms.from) to a number such as +15005550006', path: 'from' });
  }
  if (provider === 'twilio') {
    const t = options.twilio;
    const sid = secret(t.accountSid, t.accountSidEnv, 'twilio.accountSid');
    if (!sid.found) throw missing(`the Twilio Account SID (${sid.where})`, `set ${sid.where}`, 'twilio.accountSid');
    if (!/^AC[0-9a-fA-F]{32}$/.test(sid.found)) throw codedError('SMS_NOT_CONFIGURED', { reason: `${sid.where} is not an Account SID (AC and 32 hex digits)`, fix: `set ${sid.where} to the SID shown in the Twilio console`, path: 'twilio.accountSid' });
    const token = secret(t.authToken, t.authTokenEnv, 'twilio.authToken');
    if (!token.found) throw missing(`the Twilio Auth Token (${token.where})`, `set ${token.where}`, 'twilio.authToken');
    const service = t.messagingServiceSid ?? null;
    if (!from && !service) throw missing('the sender', 'set sms.from or SMS_FROM, or sms.twilio.messagingServiceSid', 'from');
    return {
      provider,
      twilio: { accountSid: sid.found, authToken: token.found, from: service ? null : from!, messagingServiceSid: service, baseUrl: trimSlash(t.baseUrl), timeoutMs: options.timeoutMs },
    };
  }
  const v = options.vonage;
  const key = secret(v.apiKey, v.apiKeyEnv, 'vonage.apiKey');
  if (!key.found) throw missing(`the Vonage API key (${key.where})`, `set ${key.where}`, 'vonage.apiKey');
  const apiSecret = secret(v.apiSecret, v.apiSecretEnv, 'vonage.apiSecret');
  if (!apiSecret.found) throw missing(`the Vonage API secret (${apiSecret.where})`, `set ${apiSecret.where}`, 'vonage.apiSecret');
  if (!from) throw missing('the sender', 'set sms.from or SMS_FROM', 'from');
  return { provider, vonage: { apiKey: key.found, apiSecret: apiSecret.found, from, baseUrl: trimSlash(v.baseUrl), timeoutMs: options.timeoutMs } };
}
