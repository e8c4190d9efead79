import { apiKey } from '@better-auth/api-key';
import type { BetterAuthOptions, BetterAuthPlugin } from 'better-auth';
import { admin, bearer } from 'better-auth/plugins';
import type { EmailSend } from '../../capabilities/emailSend.ts';
import type { SmsSend } from '../../capabilities/smsSend.ts';
import type { Logger } from '../../kernel/logger.ts';
import type { AuthEngine } from './authEngine.ts';
import { TABLES } from './authEngine.ts';
import type { AuthOptions } from './authOptions.ts';
import { AUTH_BASE_PATH } from './authPaths.ts';
import { CLIENT_IP_HEADER } from './clientIpHeader.ts';
import { passwordOptions, verificationOptions } from './emailFlows.ts';
import { oauthParts } from './oauthProviders.ts';
import { phoneNumberOptionsOf } from './phoneNumberOptions.ts';
import { phoneCodeHashPlugin } from './phoneCodeHash.ts';
import { PHONE_FIELDS, phoneNumberPlugin } from './phoneNumberPlugin.ts';
import { signInMethods } from './signInMethods.ts';
import { PROVISIONED_FIELD } from './provisionedAccounts.ts';
import type { AuthDatabase } from './openAuthDatabase.ts';

export interface EngineSettings {
  environmentId: string;
  database: AuthDatabase;
  /** This environment's secret, derived from OS_AUTH_SECRET. */
  secret: string;
  production: boolean;
  options: AuthOptions;
  email: EmailSend | undefined;
  /** Present when phone sign-in is on (the auth plugin checks that at start). */
  sms: SmsSend | undefined;
  log: Logger;
  /** The environment's own auth path (`/api/v1/auth` for the default environment). */
  authBase: string;
  /** Filled once the engine exists, for callbacks that need it. */
  engine: { current: AuthEngine | null };
  /** The passkey plugin when passkeys are on (passkeyPlugin.ts, loaded only then). */
  passkeys?: BetterAuthPlugin | null;
}

export { CLIENT_IP_HEADER };

/** Engine paths served by our own routes instead (one way to mint keys and create users). */
const DISABLED_PATHS = ['/api-key/create', '/api-key/update', '/api-key/delete', '/api-key/list', '/api-key/get', '/api-key/verify', '/admin/create-user'];

/** The engine's configuration for one environment: its tables, secret, cookies and plugins. */
export function engineOptions(s: EngineSettings): BetterAuthOptions {
  const { options, log } = s;
  const flows = { environmentId: s.environmentId, options, email: s.email, engine: s.engine };
  const verification = verificationOptions(flows);
  const oauth = oauthParts(options, s.authBase);
  const phone = phoneNumberOptionsOf(options.phoneNumber);
  return {
    appName: 'osr',
    secret: s.secret,
    basePath: AUTH_BASE_PATH,
    ...(options.baseURL ? { baseURL: options.baseURL } : {}),
    database: s.database.engineHandle,
    // The server's own origin is trusted through the request it serves.
    // With a configured public origin, the Host header of a request is never trusted.
    trustedOrigins: (request?: Request) => [...options.trustedOrigins, options.baseURL ? new URL(options.baseURL).origin : request ? new URL(request.url).origin : null],
    telemetry: { enabled: false },
    logger: {
      level: 'warn',
      log(level, message, ...args) {
        // Without a configured baseURL the origin comes from each request, on purpose.
        if (!options.baseURL && message.includes('Base URL is not set')) return;
        const target = level === 'error' ? log.error.bind(log) : level === 'warn' ? log.warn.bind(log) : log.debug.bind(log);
        target({ engine: args.length > 0 ? args.map(String).join(' ') : undefined }, message);
      },
    },
    // Our own limiter covers the sensitive routes (see rateLimiter.ts), in every NODE_ENV.
    rateLimit: { enabled: false },
    disabledPaths: DISABLED_PATHS,
    advanced: {
      cookiePrefix: `osr-${s.environmentId}`,
      useSecureCookies: s.production,
      ipAddress: { ipAddressHeaders: [CLIENT_IP_HEADER] },
    },
    user: {
      modelName: TABLES.user,
      additionalFields: {
        // input: false everywhere: users cannot set these through update-user or sign-up.
        must_change_password: { type: 'boolean', required: true, defaultValue: false, input: false },
        // An account an administrator created or imported (provisionedAccounts.ts).
        [PROVISIONED_FIELD]: { type: 'boolean', required: false, defaultValue: false, input: false },
        // With phone sign-in on, its plugin declares these two fields (same columns).
        ...(phone && s.sms ? {} : {
          phoneNumber: { type: 'string', required: false, unique: true, input: false, fieldName: PHONE_FIELDS.phoneNumber },
          phoneNumberVerified: { type: 'boolean', required: false, defaultValue: false, input: false, fieldName: PHONE_FIELDS.phoneNumberVerified },
        } as const),
      },
    },
    session: { modelName: TABLES.session, expiresIn: options.sessionExpiresIn, updateAge: options.sessionUpdateAge },
    account: { modelName: TABLES.account },
    verification: { modelName: TABLES.verification },
    emailAndPassword: { enabled: true, ...passwordOptions(flows) },
    socialProviders: oauth.socialProviders,
    ...(verification ? { emailVerification: verification } : {}),
    databaseHooks: {
      account: {
        update: {
          async after(account, context) {
            // A changed password clears the forced rotation (inside the change's transaction).
            if (context?.path === '/change-password' && account.providerId === 'credential') {
              await context.context.internalAdapter.updateUser(account.userId, { must_change_password: false });
            }
          },
        },
      },
    },
    plugins: [
      // Signed tokens only: changing OS_AUTH_SECRET invalidates every bearer token too.
      bearer({ requireSignature: true }),
      admin({ defaultRole: 'user', adminRoles: ['admin'] }),
      apiKey({
        defaultPrefix: 'osk_',
        schema: { apikey: { modelName: TABLES.apiKey } },
        // The engine's per-key quota (10 a day by default) is not an authentication rule.
        rateLimit: { enabled: false },
        keyExpiration: { minExpiresIn: 0, maxExpiresIn: options.apiKeyMaxExpiresIn / 86_400 },
        maximumNameLength: 100,
        startingCharactersConfig: { shouldStore: true, charactersLength: 8 },
        enableSessionForAPIKeys: false,
      }),
      ...oauth.plugins,
      ...signInMethods(options, s.email, s.environmentId, s.passkeys ?? null),
      ...(phone && s.sms ? [phoneNumberPlugin(phone, phone.signUp ?? options.signUp, s.sms, s.environmentId), phoneCodeHashPlugin(s.secret)] : []),
    ],
  };
}
