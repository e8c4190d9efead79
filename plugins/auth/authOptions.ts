import { z } from 'zod';
import { oidcProvidersSchema, socialProvidersSchema } from './oauthOptions.ts';
import { phoneNumberSettingSchema } from './phoneNumberOptions.ts';

const rule = (max: number, windowSeconds: number) =>
  z.strictObject({
    max: z.number().int().positive().default(max),
    windowSeconds: z.number().int().positive().default(windowSeconds),
  }).default({ max, windowSeconds });

const family = (ip: [number, number], account: [number, number]) =>
  z.strictObject({ perIp: rule(...ip), perAccount: rule(...account) })
    .default({ perIp: { max: ip[0], windowSeconds: ip[1] }, perAccount: { max: account[0], windowSeconds: account[1] } });

/** Rate limits of the sensitive auth routes; counters live in process memory. */
export const rateLimitSchema = z.strictObject({
  enabled: z.boolean().default(true),
  /** `POST /auth/sign-in`, the engine's `/auth/sign-in/*` and `/auth/sign-up/*`. */
  signIn: family([30, 60], [10, 300]),
  /** `/auth/request-password-reset`, `/auth/reset-password`, `/auth/change-password`. */
  passwordReset: family([10, 300], [5, 900]),
  /** `/auth/send-verification-email`, `/auth/verify-email`. */
  verification: family([10, 300], [5, 900]),
  /** `POST /oauth/register` (dynamic client registration of the OAuth provider): per IP only, there is no account yet. */
  clientRegistration: z.strictObject({ perIp: rule(10, 3600) }).default({ perIp: { max: 10, windowSeconds: 3600 } }),
});

/**
 * Options of the auth plugin (`plugins.auth` in config). The host adds `admin` and
 * `trustedOrigins` from the top-level `auth` config.
 */
export const authOptionsSchema = z.strictObject({
  /** First tenant admin of every environment, created once (config auth.admin, env OS_ADMIN_EMAIL/OS_ADMIN_PASSWORD). */
  admin: z.strictObject({ email: z.email(), password: z.string().min(8) }).optional(),
  /**
   * Set by `osr start` outside production when no `admin` is configured: a start that finds no admin
   * creates one with a one-time password and prints it once (plugins/auth/developmentAdmin.ts).
   * `origin` is the server's address, for the printed commands. Ignored in production.
   */
  developmentAdmin: z.strictObject({ origin: z.string().min(1).max(200) }).optional(),
  /** Origins allowed to call the auth routes from a browser, besides the server's own (config auth.trustedOrigins). */
  trustedOrigins: z.array(z.string()).default([]),
  /** Public origin of the server, e.g. `https://app.example.com`; default: taken from each request's Host. */
  baseURL: z.url().optional(),
  /** Let anyone create an account with POST /auth/sign-up/email (off: admins create and import users). */
  signUp: z.boolean().default(false),
  minPasswordLength: z.number().int().min(8).max(128).default(8),
  /** Session lifetime in seconds (default 7 days). */
  sessionExpiresIn: z.number().int().positive().default(604_800),
  /** A session used after this many seconds gets its lifetime extended (default 1 day). */
  sessionUpdateAge: z.number().int().nonnegative().default(86_400),
  /** How long a verified credential is remembered in memory, in ms; 0 checks every request. */
  credentialCacheMs: z.number().int().nonnegative().max(60_000).default(5_000),
  /** Largest `expiresIn` of an API key, in seconds (default 365 days). */
  apiKeyMaxExpiresIn: z.number().int().positive().default(31_536_000),
  /** Lifetime of a password-reset link, in seconds (default 1 hour). */
  passwordResetExpiresIn: z.number().int().min(60).max(604_800).default(3_600),
  /** Email verification (needs an `email.send` provider). */
  emailVerification: z.strictObject({
    /** Mail a verification link on self sign-up. */
    sendOnSignUp: z.boolean().default(true),
    /** Refuse password sign-in until the address is verified (a new link is mailed on each refused attempt). */
    required: z.boolean().default(false),
    /** Following the link also signs the user in. */
    autoSignIn: z.boolean().default(false),
    /** Lifetime of a verification link, in seconds (default 1 hour). */
    expiresIn: z.number().int().min(60).max(604_800).default(3_600),
  }).prefault({}),
  /** Generic OpenID Connect / OAuth 2.0 providers (callbacks at /auth/oauth2/callback/<id>). */
  oidcProviders: oidcProvidersSchema,
  /** Built-in social providers by id (callbacks at /auth/callback/<id>). */
  socialProviders: socialProvidersSchema,
  /** Second factor (TOTP and backup codes), which each user may turn on for their account. */
  twoFactor: z.strictObject({
    enabled: z.boolean().default(true),
    /** Name shown in authenticator apps. */
    issuer: z.string().min(1).max(100).default('osr'),
  }).prefault({}),
  /** Sign-in by a link mailed to the address (needs an `email.send` provider). */
  magicLink: z.strictObject({
    enabled: z.boolean().default(false),
    /** Lifetime of a link, in seconds (default 5 minutes). */
    expiresIn: z.number().int().min(60).max(86_400).default(300),
  }).prefault({}),
  /** OAuth 2.0 device authorization grant (RFC 8628) for devices without a browser. */
  deviceAuthorization: z.strictObject({
    enabled: z.boolean().default(false),
    /** Client ids allowed to ask for a device code. */
    clientIds: z.array(z.string().min(1)).default([]),
    /** Lifetime of a device code, in seconds (default 30 minutes). */
    expiresIn: z.number().int().min(60).max(86_400).default(1_800),
    /** Seconds a device waits between polls. */
    interval: z.number().int().min(1).max(60).default(5),
    /** Page (path or URL) where the user enters the code. */
    verificationUri: z.string().min(1).default('/device'),
  }).prefault({}),
  /** Passkeys (WebAuthn): users register them while signed in, then sign in with one alone. */
  passkeys: z.strictObject({
    enabled: z.boolean().default(false),
    /** Relying party id, a registrable domain such as `example.com`; default: the host of `baseURL`, else `localhost`. */
    rpID: z.string().min(1).max(253).regex(/^[a-z0-9.-]+$/i, 'a domain name, without scheme or port').optional(),
    /** Name shown by the browser and the authenticator. */
    rpName: z.string().min(1).max(100).default('osr'),
    /** Origins the ceremonies may run on; default: the origin of `baseURL`, else the request's (trusted) Origin. */
    origins: z.array(z.url()).min(1).optional(),
    /** Refuse a passkey sign-in whose authenticator did not verify the user (PIN, biometrics). */
    requireUserVerification: z.boolean().default(true),
  }).prefault({}),
  /** Phone-number sign-in with SMS codes (config auth.plugins.phoneNumber): true or options; needs `sms.send`. */
  phoneNumber: phoneNumberSettingSchema.optional(),
  /**
   * OAuth 2.1 authorization server for connected agents (MCP clients): discovery, dynamic client
   * registration, authorization code with PKCE (S256), consent by the signed-in user; its access
   * tokens hold the granted scopes (data:read, data:write, actions:execute). Needs `baseURL` (the issuer).
   */
  oauthProvider: z.strictObject({
    enabled: z.boolean().default(false),
    /** Lifetime of an access token, in seconds (default 1 hour). */
    accessTokenTtl: z.number().int().min(60).max(86_400).default(3_600),
    /** Lifetime of a refresh token (issued when the client asks for offline_access), in seconds (default 14 days). */
    refreshTokenTtl: z.number().int().min(300).max(7_776_000).default(1_209_600),
    /** Page (path or URL) a visitor without a session is sent to with `?returnTo=<the authorization step>`; without it they get 401. */
    loginPage: z.string().min(1).max(500).optional(),
  }).prefault({}),
  /** Lifetime of the set-password link of an email invitation, in seconds (default 7 days). */
  inviteExpiresIn: z.number().int().positive().default(604_800),
  rateLimit: rateLimitSchema.default({
    enabled: true,
    signIn: { perIp: { max: 30, windowSeconds: 60 }, perAccount: { max: 10, windowSeconds: 300 } },
    passwordReset: { perIp: { max: 10, windowSeconds: 300 }, perAccount: { max: 5, windowSeconds: 900 } },
    verification: { perIp: { max: 10, windowSeconds: 300 }, perAccount: { max: 5, windowSeconds: 900 } },
    clientRegistration: { perIp: { max: 10, windowSeconds: 3600 } },
  }),
});

export type AuthOptions = z.output<typeof authOptionsSchema>;
export type RateLimitOptions = AuthOptions['rateLimit'];
export type RateFamily = keyof Omit<RateLimitOptions, 'enabled'>;
