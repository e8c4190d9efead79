import { z } from 'zod';

/** Built-in social providers that can be configured (the engine's own implementations). */
export const SOCIAL_PROVIDER_IDS = ['apple', 'discord', 'facebook', 'github', 'gitlab', 'google', 'linkedin', 'microsoft', 'slack', 'twitter'] as const;

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name');

/** A provider's client secret: given, or read from a named environment variable at start. */
const secretFields = {
  clientSecret: z.string().min(1).optional(),
  /** Name of the environment variable holding the client secret (preferred over `clientSecret`). */
  clientSecretEnv: envName.optional(),
};

/** A generic OpenID Connect / OAuth 2.0 provider's keys besides its secret; callback at `/auth/oauth2/callback/<id>`. */
const oidcFields = {
  id: z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'lower-case letters, digits and dashes'),
  /** Display name. */
  name: z.string().min(1).max(100),
  /** The provider's `.well-known/openid-configuration` URL. */
  discoveryUrl: z.url(),
  clientId: z.string().min(1),
  scopes: z.array(z.string().min(1)).default(['openid', 'email', 'profile']),
  /** Proof Key for Code Exchange (on unless the provider cannot do it). */
  pkce: z.boolean().default(true),
  /** Create an account for a first-time user of this provider (the operator runs it, so on by default). */
  signUp: z.boolean().default(true),
};

const notSocialId = (p: { id: string }) => !(SOCIAL_PROVIDER_IDS as readonly string[]).includes(p.id);
const socialIdTaken = { message: 'is the id of a built-in social provider; choose another', path: ['id'] };

/** A built-in social provider's keys besides its secret; callback at `/auth/callback/<id>`. */
const socialFields = {
  clientId: z.string().min(1),
  /** Scopes besides the provider's defaults. */
  scopes: z.array(z.string().min(1)).optional(),
  /** Create an account for a first-time user (default: `plugins.auth.signUp`). */
  signUp: z.boolean().optional(),
};

/** A generic OpenID Connect / OAuth 2.0 provider; callback at `/auth/oauth2/callback/<id>`. */
export const oidcProviderSchema = z.strictObject({ ...oidcFields, ...secretFields }).refine(notSocialId, socialIdTaken);

/** A built-in social provider; callback at `/auth/callback/<id>`. */
export const socialProviderSchema = z.strictObject({ ...socialFields, ...secretFields });

const uniqueIds = [(list: Array<{ id: string }>) => new Set(list.map((p) => p.id)).size === list.length, { message: 'provider ids must be unique' }] as const;

export const oidcProvidersSchema = z.array(oidcProviderSchema).default([]).refine(...uniqueIds);

export const socialProvidersSchema = z.partialRecord(z.enum(SOCIAL_PROVIDER_IDS), socialProviderSchema).default({});

/**
 * The same providers as an environment's `auth` settings hold them (docs/settings.md): the secret
 * only as a value, never `clientSecretEnv`. A tenant admin names no variable of the process: its
 * value would go as the client secret to an endpoint the admin chose.
 */
export const oidcProvidersSettingsSchema = z.array(z.strictObject({ ...oidcFields, clientSecret: secretFields.clientSecret }).refine(notSocialId, socialIdTaken)).refine(...uniqueIds);

export const socialProvidersSettingsSchema = z.partialRecord(z.enum(SOCIAL_PROVIDER_IDS), z.strictObject({ ...socialFields, clientSecret: secretFields.clientSecret }));

export type OidcProviderOptions = z.output<typeof oidcProviderSchema>;
export type SocialProviderOptions = z.output<typeof socialProviderSchema>;
