import { z } from 'zod';
import type { SettingsNamespace } from '../../capabilities/settingsStore.ts';
import { aiSettingsSchema } from '../ai/aiOptions.ts';
import { authSettingsSchema } from '../auth/authSettings.ts';
import { emailOptionsSchema } from '../email/emailOptions.ts';
import { smsSettingsSchema } from '../sms/smsOptions.ts';
import type { SecretPattern } from './secretPaths.ts';
import type { HostPattern } from './settingsHosts.ts';

export interface NamespaceDefinition {
  /** The config file's own schema for these keys: a value valid here is valid there. */
  schema: z.ZodType;
  /** Where secrets sit: encrypted at rest, write-only. */
  secrets: readonly SecretPattern[];
  /** Where the values choose a host the runtime connects to: checked on write (settingsHosts.ts). */
  hosts: readonly HostPattern[];
  /** The config file section the namespace stands in for, per environment. */
  configPath: string;
}

/**
 * The `email` settings: the config file's keys, less `smtp.passwordEnv`. A tenant admin names no
 * environment variable of the process: its value would go as the password to a server it chose.
 */
const emailSettingsSchema = emailOptionsSchema.extend({ smtp: emailOptionsSchema.shape.smtp.unwrap().omit({ passwordEnv: true }).optional() });

/**
 * The namespaces, each validated by the schema its config section uses. Keys that hold for the
 * whole process and not for one environment (a log's retention) stay in the config file.
 */
export const NAMESPACES: Record<SettingsNamespace, NamespaceDefinition> = {
  email: { schema: emailSettingsSchema, secrets: ['smtp.password'], hosts: ['smtp.host'], configPath: 'plugins.email' },
  sms: { schema: smsSettingsSchema, secrets: ['twilio.accountSid', 'twilio.authToken', 'vonage.apiKey', 'vonage.apiSecret'], hosts: ['twilio.baseUrl', 'vonage.baseUrl'], configPath: 'sms' },
  auth: {
    schema: authSettingsSchema,
    secrets: ['oidcProviders.*.clientSecret', 'socialProviders.*.clientSecret'],
    // Social providers' endpoints are the engine's own; a generic provider's come from its discovery document.
    hosts: ['oidcProviders.*.discoveryUrl'],
    configPath: 'plugins.auth (oidcProviders, socialProviders)',
  },
  ai: { schema: aiSettingsSchema, secrets: ['providers.*.apiKey'], hosts: ['providers.*.baseURL'], configPath: 'plugins.ai (providers, defaultModel)' },
};
