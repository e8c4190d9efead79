import { z } from 'zod';
import { codedError } from '../../kernel/errors.ts';
import { mergeSettings } from '../../capabilities/mergeSettings.ts';
import type { AuthOptions } from './authOptions.ts';
import { oidcProvidersSchema, oidcProvidersSettingsSchema, socialProvidersSchema, socialProvidersSettingsSchema } from './oauthOptions.ts';

/** The `auth` settings namespace (docs/settings.md): the sign-in providers of one environment. */
export const authSettingsSchema = z.strictObject({
  oidcProviders: oidcProvidersSettingsSchema.optional(),
  socialProviders: socialProvidersSettingsSchema.optional(),
});

/** Whether an environment's `auth` settings name any provider (else the config file's apply as they are). */
export const namesProviders = (values: Record<string, unknown>) => values.oidcProviders !== undefined || values.socialProviders !== undefined;

/**
 * The auth options of an environment: its `auth` settings over the config file's, key by key
 * (docs/settings.md, Precedence). The `oidcProviders` list replaces the file's list; the
 * `socialProviders` object is merged into the file's, provider by provider. A provider the
 * settings name gets only the client secret the settings give: never the file's `clientSecret`,
 * nor the variable its `clientSecretEnv` names (a tenant admin would otherwise send the operator's
 * secret with a client, or to an endpoint, of its choosing).
 */
export function authSettingsOptions(base: AuthOptions, values: Record<string, unknown>): AuthOptions {
  const settings = authSettingsSchema.parse(values);
  const merged = mergeSettings({ oidcProviders: base.oidcProviders, socialProviders: base.socialProviders }, settings);
  const social = { ...(merged.socialProviders as Record<string, Record<string, unknown>>) };
  for (const [id, chosen] of Object.entries(settings.socialProviders ?? {})) {
    const { clientSecret: _secret, clientSecretEnv: _variable, ...rest } = social[id]!;
    social[id] = { ...rest, ...(chosen?.clientSecret !== undefined ? { clientSecret: chosen.clientSecret } : {}) };
  }
  return {
    ...base,
    oidcProviders: oidcProvidersSchema.parse(merged.oidcProviders),
    socialProviders: socialProvidersSchema.parse(social),
  };
}

/**
 * The check of a settings write (settings.store `resolveWith`): the options sign-in will use, or a
 * coded error naming the key it cannot use (`socialProviders.github.clientSecret`).
 */
export function resolveAuthSettings(base: AuthOptions, values: Record<string, unknown>): AuthOptions {
  const options = authSettingsOptions(base, values);
  for (const id of Object.keys((values.socialProviders as Record<string, unknown> | undefined) ?? {})) {
    const provider = options.socialProviders[id as keyof AuthOptions['socialProviders']];
    // A built-in provider's token endpoint authenticates the client by its secret.
    if (provider && provider.clientSecret === undefined) {
      throw codedError('CONFIG_INVALID', { path: `socialProviders.${id}.clientSecret`, reason: 'the client secret is not set (a provider set here gets only the secret set here)' });
    }
  }
  return options;
}
