import { z } from 'zod';

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name');

/** Provider endpoints may be overridden (a regional edge, a local test server); plain http only on loopback. */
const baseUrl = z.url().refine((value) => {
  const url = new URL(value);
  return url.protocol === 'https:' || (url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname));
}, 'must be https (plain http only for 127.0.0.1, localhost or [::1])');

/** Options of the sms plugin (the `sms` namespace of config; `plugins.sms` works too). */
export const smsOptionsSchema = z.strictObject({
  /** `twilio` or `vonage` deliver; `log` only logs the recipient (development). Default: `log` outside production, none in production. */
  provider: z.enum(['twilio', 'vonage', 'log']).optional(),
  /** Sender: an E.164 number or an alphanumeric sender id (env SMS_FROM). Twilio may use `twilio.messagingServiceSid` instead. */
  from: z.string().min(1).max(20).regex(/^(\+[1-9]\d{6,14}|[A-Za-z0-9 ]{1,11})$/, 'an E.164 number or an alphanumeric sender id of at most 11 characters').optional(),
  /** Time allowed for the provider's answer, in milliseconds. */
  timeoutMs: z.number().int().positive().max(60_000).default(10_000),
  twilio: z.strictObject({
    /** Variable holding the Account SID (`AC...`). */
    accountSidEnv: envName.default('TWILIO_ACCOUNT_SID'),
    /** Variable holding the Auth Token. */
    authTokenEnv: envName.default('TWILIO_AUTH_TOKEN'),
    /** Send through a Messaging Service (`MG...`) instead of `from`. */
    messagingServiceSid: z.string().regex(/^MG[0-9a-fA-F]{32}$/, 'a Messaging Service SID (MG and 32 hex digits)').optional(),
    baseUrl: baseUrl.default('https://api.twilio.com'),
  }).prefault({}),
  vonage: z.strictObject({
    /** Variable holding the API key. */
    apiKeyEnv: envName.default('VONAGE_API_KEY'),
    /** Variable holding the API secret. */
    apiSecretEnv: envName.default('VONAGE_API_SECRET'),
    baseUrl: baseUrl.default('https://rest.nexmo.com'),
  }).prefault({}),
});

export type SmsOptions = z.output<typeof smsOptionsSchema>;

const twilioOptions = smsOptionsSchema.shape.twilio.unwrap();
const vonageOptions = smsOptionsSchema.shape.vonage.unwrap();
const credential = z.string().min(1).max(500);

/**
 * The `sms` settings of an environment (docs/settings.md): the keys of the `sms` section, with the
 * credentials themselves in place of the names of the variables holding them. A tenant admin names
 * no environment variable of the process: its value would go to a provider it chose.
 */
export const smsSettingsSchema = smsOptionsSchema.extend({
  twilio: twilioOptions.omit({ accountSidEnv: true, authTokenEnv: true }).extend({ accountSid: credential.optional(), authToken: credential.optional() }).optional(),
  vonage: vonageOptions.omit({ apiKeyEnv: true, apiSecretEnv: true }).extend({ apiKey: credential.optional(), apiSecret: credential.optional() }).optional(),
});
export type SmsOptionsInput = z.input<typeof smsOptionsSchema>;
