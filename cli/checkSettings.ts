import type { DoctorCheck } from './runDoctor.ts';

/** Environment variables each namespace reads as its last resort. */
const VARIABLES: Record<string, readonly string[]> = {
  email: ['SMTP_HOST', 'SMTP_PORT', 'SMTP_SECURE', 'SMTP_USER', 'SMTP_PASSWORD', 'EMAIL_FROM'],
  sms: ['SMS_FROM', 'TWILIO_ACCOUNT_SID', 'TWILIO_AUTH_TOKEN', 'VONAGE_API_KEY', 'VONAGE_API_SECRET'],
  auth: [], // the variables the config file's providers name (clientSecretEnv)
  ai: ['OPENAI_API_KEY', 'OPENAI_BASE_URL'],
};

/** The variables the config file's sign-in providers read their client secrets from (`clientSecretEnv`). */
function secretVariables(auth: unknown): string[] {
  const options = (auth ?? {}) as { oidcProviders?: Array<{ clientSecretEnv?: unknown }>; socialProviders?: Record<string, { clientSecretEnv?: unknown } | undefined> };
  const providers = [...(Array.isArray(options.oidcProviders) ? options.oidcProviders : []), ...Object.values(options.socialProviders ?? {})];
  return [...new Set(providers.map((p) => p?.clientSecretEnv).filter((name): name is string => typeof name === 'string'))];
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
    const names = ns === 'auth' ? secretVariables(config.plugins.auth) : VARIABLES[ns]!;
    const vars = names.filter((v) => env[v] !== undefined && env[v] !== '');
    return `${ns}: config file ${inFile[ns] ? 'yes' : 'no'}, variables ${vars.length > 0 ? vars.join(' ') : 'none'}`;
  });
  return {
    name: 'settings',
    ok: true,
    detail: `per key, an environment's settings (PUT /api/v1/settings/:namespace, tenant admins) over the config file over environment variables; ${parts.join('; ')}`,
  };
}
