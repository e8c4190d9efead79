/**
 * A tenant admin's `sms` and `ai` settings never reach the process's own credentials: no
 * environment variable can be named, and a provider chosen in settings gets only the credentials
 * given in settings. Settings that keep the operator's provider keep its credentials.
 */
import t from 'tap';
import { aiSettingsSchema } from '../../plugins/ai/aiOptions.ts';
import { resolveProviders } from '../../plugins/ai/resolveProviders.ts';
import { settingsProviders } from '../../plugins/ai/settingsProviders.ts';
import { NAMESPACES } from '../../plugins/settings/settingsNamespaces.ts';
import { settingsOptions } from '../../plugins/sms/environmentSenders.ts';
import { resolveSmsSettings } from '../../plugins/sms/resolveSmsSettings.ts';
import { smsOptionsSchema } from '../../plugins/sms/smsOptions.ts';

const SID = 'AC0123456789abcdef0123456789abcdef';
const TENANT_SID = 'ACfedcba9876543210fedcba9876543210';
const ENV = { TWILIO_ACCOUNT_SID: SID, TWILIO_AUTH_TOKEN: 'operator-token', VONAGE_API_KEY: 'operator-key', VONAGE_API_SECRET: 'operator-secret', OPENAI_API_KEY: 'sk-operator', OPERATOR_KEY: 'sk-config' };

t.test('sms: settings name no variable; a provider they choose gets only their credentials', async (t) => {
  for (const key of ['accountSidEnv', 'authTokenEnv']) t.equal(NAMESPACES.sms.schema.safeParse({ twilio: { [key]: 'OS_AUTH_SECRET' } }).success, false, `twilio.${key} is refused`);
  for (const key of ['apiKeyEnv', 'apiSecretEnv']) t.equal(NAMESPACES.sms.schema.safeParse({ vonage: { [key]: 'OS_AUTH_SECRET' } }).success, false, `vonage.${key} is refused`);
  t.ok(NAMESPACES.sms.schema.safeParse({ provider: 'twilio', twilio: { accountSid: TENANT_SID, authToken: 'x' } }).success, 'credentials of its own are accepted');

  const base = smsOptionsSchema.parse({ provider: 'twilio', from: '+15005550006' });
  const resolve = (values: Record<string, unknown>) => resolveSmsSettings(settingsOptions(base, values), ENV, true);

  t.match(resolve({ from: '+15005550007' }), { provider: 'twilio', twilio: { accountSid: SID, authToken: 'operator-token', from: '+15005550007', baseUrl: 'https://api.twilio.com' } }, "another sender keeps the operator's provider and credentials");
  t.match(resolve({ twilio: { messagingServiceSid: `MG${'1'.repeat(32)}` } }), { twilio: { accountSid: SID, messagingServiceSid: `MG${'1'.repeat(32)}` } }, 'so does a Messaging Service');
  t.throws(() => resolve({ twilio: { baseUrl: 'https://sms.tenant.example' } }), { code: 'SMS_NOT_CONFIGURED', details: { path: 'twilio.accountSid' } }, 'a server chosen in settings without credentials: refused, not the operator\'s');
  t.throws(() => resolve({ provider: 'twilio' }), { code: 'SMS_NOT_CONFIGURED', details: { path: 'twilio.accountSid' } }, 'naming the provider is choosing it');
  t.throws(() => resolve({ twilio: { accountSid: TENANT_SID } }), { code: 'SMS_NOT_CONFIGURED', details: { path: 'twilio.authToken', reason: 'the Twilio Auth Token (twilio.authToken) is not set' } }, 'a credential of its own is never completed by the operator\'s');
  t.throws(() => resolve({ provider: 'vonage', from: 'Tenant' }), { code: 'SMS_NOT_CONFIGURED', details: { path: 'vonage.apiKey' } }, 'VONAGE_API_KEY is not used for a provider chosen in settings');
  t.same(resolve({ twilio: { baseUrl: 'https://sms.tenant.example/', accountSid: TENANT_SID, authToken: 'tenant-token' } }), {
    provider: 'twilio', twilio: { accountSid: TENANT_SID, authToken: 'tenant-token', from: '+15005550006', messagingServiceSid: null, baseUrl: 'https://sms.tenant.example', timeoutMs: 10_000 },
  }, 'the credentials of the settings, at their server');
  t.same(resolve({ provider: 'vonage', from: 'Tenant', vonage: { apiKey: 'tk', apiSecret: 'ts' } }), { provider: 'vonage', vonage: { apiKey: 'tk', apiSecret: 'ts', from: 'Tenant', baseUrl: 'https://rest.nexmo.com', timeoutMs: 10_000 } });
  t.same(resolve({ provider: 'log' }), { provider: 'log' });
});

t.test('ai: providers merged by id; a baseURL chosen in settings gets only the key of the settings', async (t) => {
  t.equal(NAMESPACES.ai.schema.safeParse({ providers: [{ id: 'x', baseURL: 'https://ai.example/v1', apiKeyEnv: 'OS_AUTH_SECRET' }] }).success, false, 'apiKeyEnv is refused');
  const base = resolveProviders({ providers: [{ id: 'main', baseURL: 'https://ai.operator.example/v1', apiKeyEnv: 'OPERATOR_KEY', models: ['big'] }] }, ENV);
  const merge = (values: unknown) => settingsProviders(base, 'main/big', aiSettingsSchema.parse(values));

  t.same(merge({}), { providers: base, defaultModel: 'main/big' }, 'no settings: the config file');
  t.same(merge({ providers: [{ id: 'main', apiKey: 'sk-tenant' }], defaultModel: 'main/small' }).providers[0], { id: 'main', baseURL: 'https://ai.operator.example/v1', apiKey: 'sk-tenant', models: ['big'] }, 'the config file\'s server with the key of the settings');
  t.same(merge({ providers: [{ id: 'main', baseURL: 'https://ai.tenant.example/v1/' }] }).providers[0], { id: 'main', baseURL: 'https://ai.tenant.example/v1', apiKey: null, models: null, chosenBySettings: true }, 'a server chosen in settings: no key of the operator, reached through the checked connections');
  t.same(merge({ providers: [{ id: 'openai', baseURL: 'https://ai.tenant.example/v1' }] }).providers.find((p) => p.id === 'openai')?.apiKey, null, 'nor OPENAI_API_KEY');
  t.same(merge({ providers: [{ id: 'openai', models: ['gpt-x'] }] }).providers.find((p) => p.id === 'openai'), { id: 'openai', baseURL: 'https://api.openai.com/v1', apiKey: 'sk-operator', models: ['gpt-x'] }, 'the implicit openai keeps its key where it keeps its server');
  const added = merge({ providers: [{ id: 'own', baseURL: 'http://127.0.0.1:11434/v1', apiKey: 'sk-own' }], defaultModel: 'own/llama' });
  t.same(added.providers.map((p) => p.id), ['main', 'openai', 'own'], 'a new id is added, the others stay');
  t.equal(added.defaultModel, 'own/llama');
  t.throws(() => merge({ providers: [{ id: 'own' }] }), { code: 'AI_NOT_CONFIGURED', details: { path: 'providers.own.baseURL' } });
  t.throws(() => merge({ providers: [{ id: 'own', baseURL: 'http://h/v1' }, { id: 'own', baseURL: 'http://g/v1' }] }), { code: 'AI_NOT_CONFIGURED', details: { path: 'providers.own.id' } });
  t.throws(() => merge({ defaultModel: 'ghost/m' }), { code: 'AI_NOT_CONFIGURED', details: { path: 'defaultModel' } });
});
