import { z } from 'zod';
import type { SettingsNamespace } from '../../capabilities/settingsStore.ts';
import { aiSettingsSchema } from '../ai/aiOptions.ts';
import { oidcProvidersSchema, socialProvidersSchema } from '../auth/oauthOptions.ts';
import { emailOptionsSchema } from '../email/emailOptions.ts';
import { smsSettingsSchema } from '../sms/smsOptions.ts';
import type { SecretPattern } from './secretPaths.ts';

export interface NamespaceDefinition {
  /** The config file's own schema for these keys: a value valid here is valid there. */
  schema: z.ZodType;
  /** Where secrets sit: encrypted at rest, write-only. */
  secrets: readonly SecretPattern[];
  /** The config file section the namespace stands in for, per environment. */
  configPath: string;
  /**
   * Whether its consumer reads the namespace per environment. One that does not refuses writes
   * (SETTINGS_NOT_APPLIED): a value accepted must change something.
   */
  applied: boolean;
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
  email: { schema: emailSettingsSchema, secrets: ['smtp.password'], configPath: 'plugins.email', applied: true },
  sms: { schema: smsSettingsSchema, secrets: ['twilio.accountSid', 'twilio.authToken', 'vonage.apiKey', 'vonage.apiSecret'], configPath: 'sms', applied: true },
  auth: {
    schema: z.strictObject({ oidcProviders: oidcProvidersSchema.optional(), socialProviders: socialProvidersSchema.optional() }),
    secrets: ['oidcProviders.*.clientSecret', 'socialProviders.*.clientSecret'],
    configPath: 'plugins.auth (oidcProviders, socialProviders)',
    applied: false,
  },
  ai: { schema: aiSettingsSchema, secrets: ['providers.*.apiKey'], configPath: 'plugins.ai (providers, defaultModel)', applied: true },
};
