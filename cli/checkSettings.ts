import type { DoctorCheck } from './runDoctor.ts';

/** Environment variables each namespace reads as its last resort. */
const VARIABLES: Record<string, readonly string[]> = {
  email: ['SMTP_HOST', 'SMTP_PORT', 'SMTP_SECURE', 'SMTP_USER', 'SMTP_PASSWORD', 'EMAIL_FROM'],
  sms: ['SMS_FROM', 'TWILIO_ACCOUNT_SID', 'TWILIO_AUTH_TOKEN', 'VONAGE_API_KEY', 'VONAGE_API_SECRET'],
  auth: [], // the variables the config file's providers name (clientSecretEnv)
  ai: ['OPENAI_API_KEY', 'OPENAI_BASE_URL'],
};

type Section = Record<string, unknown> | undefined;
const names = (...values: unknown[]) => values.filter((v): v is string => typeof v === 'string');

/**
 * Variables the config file names for credentials (`sms.twilio.accountSidEnv`, an AI provider's
 * `apiKeyEnv`, a sign-in provider's `clientSecretEnv`), beside the usual ones.
 */
function namedVariables(config: { plugins: Record<string, unknown>; sms?: unknown }, namespace: string): string[] {
  if (namespace === 'sms') {
    const sms = (config.sms ?? config.plugins.sms) as { twilio?: Section; vonage?: Section } | undefined;
    return names(sms?.twilio?.accountSidEnv, sms?.twilio?.authTokenEnv, sms?.vonage?.apiKeyEnv, sms?.vonage?.apiSecretEnv);
  }
  if (namespace === 'ai') {
    const providers = (config.plugins.ai as { providers?: unknown } | undefined)?.providers;
    return Array.isArray(providers) ? names(...providers.map((p) => (p as Section)?.apiKeyEnv)) : [];
  }
  if (namespace === 'auth') {
    const options = (config.plugins.auth ?? {}) as { oidcProviders?: unknown; socialProviders?: Record<string, Section> };
    const providers = [...(Array.isArray(options.oidcProviders) ? options.oidcProviders : []), ...Object.values(options.socialProviders ?? {})];
    return names(...providers.map((p) => (p as Section)?.clientSecretEnv));
  }
  return [];
}

/**
 * The precedence of the settings namespaces (docs/settings.md), key by key: an environment's
 * settings set at /api/v1/settings/:namespace, then the config file, then environment variables;
 * and, per namespace, which of the two lower layers has something here.
 */
export function checkSettings(config: { plugins: Record<string, unknown>; sms?: unknown }, env: NodeJS.ProcessEnv): DoctorCheck {
  const inFile: Record<string, boolean> = {
    email: config.plugins.email !== undefined,
    sms: config.sms !== undefined || config.plugins.sms !== undefined,
    auth: ['oidcProviders', 'socialProviders'].some((k) => (config.plugins.auth as Record<string, unknown> | undefined)?.[k] !== undefined),
    ai: ['providers', 'defaultModel'].some((k) => (config.plugins.ai as Record<string, unknown> | undefined)?.[k] !== undefined),
  };
  const parts = Object.keys(VARIABLES).map((ns) => {
    const vars = [...new Set([...VARIABLES[ns]!, ...namedVariables(config, ns)])].filter((v) => env[v] !== undefined && env[v] !== '');
    return `${ns}: config file ${inFile[ns] ? 'yes' : 'no'}, variables ${vars.length > 0 ? vars.join(' ') : 'none'}`;
  });
  return {
    name: 'settings',
    ok: true,
    detail: `per key, an environment's settings (PUT /api/v1/settings/:namespace, tenant admins) over the config file over environment variables; ${parts.join('; ')}; `
      + 'a server or provider chosen in settings (email: smtp.host; sms: provider or baseUrl; ai: a provider\'s baseURL) gets only the credentials set there, never the config file\'s or these variables',
  };
}
