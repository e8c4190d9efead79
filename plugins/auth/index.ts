import { definePlugin } from '../../kernel/definePlugin.ts';
import { codedError } from '../../kernel/errors.ts';
import { authOptionsSchema } from './authOptions.ts';
import { resolveAuthSettings } from './authSettings.ts';
import { checkMailOrigin } from './checkMailOrigin.ts';
import { createAuthenticator } from './createAuthenticator.ts';
import { createEnvironmentAuth, type EnvironmentAuth } from './createEnvironmentAuth.ts';
import { createIdentityService } from './createIdentityService.ts';
import { createOAuthServer, type OAuthServer } from './oauth/createOAuthServer.ts';
import { oauthEndpoints } from './oauth/oauthEndpoints.ts';
import { checkPasskeyConfig } from './passkeyRelyingParty.ts';
import { PhoneCodeLimiter } from './phoneCodeLimiter.ts';
import { phoneNumberOptionsOf } from './phoneNumberOptions.ts';
import { PrincipalCache } from './principalCache.ts';
import { RateLimiter } from './rateLimiter.ts';

// One map per kernel: the kernel hands the same context object to every phase of a plugin.
const states = new WeakMap<object, Map<string, EnvironmentAuth>>();
const limiters = new WeakMap<object, { auth: RateLimiter; phone: PhoneCodeLimiter | null }>();
const oauthStates = new WeakMap<object, Map<string, OAuthServer>>();

/**
 * Identity: one auth engine (better-auth) per environment, with its own tables in that
 * environment's database and its own secret derived from OS_AUTH_SECRET; while an environment's
 * `auth` settings name sign-in providers, its routes under /auth/* are served by an engine built
 * from them (docs/settings.md). Provides the request
 * authenticator and the identity service; the `auth-routes` plugin serves it over HTTP.
 */
export default definePlugin({
  name: 'auth',
  version: '16.0.0',
  kernel: '^16.0.0',
  requires: ['runtime.info', 'secrets.keys'],
  optional: ['email.send', 'sms.send', 'events.bus', 'events.counter', 'settings.store'],
  provides: ['auth.session', 'auth.identity'],
  // Creating the tables of several environments on a remote database takes a while.
  timeoutMs: 60_000,
  options: authOptionsSchema,
  register(ctx) {
    const environments = new Map<string, EnvironmentAuth>();
    states.set(ctx, environments);
    // A settings write of sign-in providers is checked as sign-in will read it (docs/settings.md).
    ctx.resolve('settings.store')?.resolveWith('auth', (values) => {
      resolveAuthSettings(ctx.options, values);
    });
    const cache = new PrincipalCache(ctx.options.credentialCacheMs);
    // Sessions, users or keys changed in another process: forget what was verified here too.
    const bus = ctx.resolve('events.bus');
    if (bus) cache.share(bus);
    const limiter = new RateLimiter(ctx.options.rateLimit);
    const phone = phoneNumberOptionsOf(ctx.options.phoneNumber);
    const phoneLimiter = phone ? new PhoneCodeLimiter(phone) : null;
    limiters.set(ctx, { auth: limiter, phone: phoneLimiter });
    const oauthServers = new Map<string, OAuthServer>();
    oauthStates.set(ctx, oauthServers);
    const provider = ctx.options.oauthProvider;
    if (provider.enabled && !ctx.options.baseURL) {
      throw codedError('CONFIG_INVALID', { path: 'plugins.auth.baseURL', reason: 'the OAuth provider (plugins.auth.oauthProvider.enabled) needs the server\'s public origin as its issuer: set baseURL, e.g. https://app.example.com' });
    }
    const oauth = provider.enabled ? oauthEndpoints(new URL(ctx.options.baseURL!).origin, (id) => oauthServers.get(id) ?? null, provider.loginPage, (id) => cache.clear(id), (environmentId, ip) => limiter.hit('clientRegistration', { environmentId, ip })) : null;
    ctx.provide('auth.session', createAuthenticator(environments, cache, ctx.log, ctx.options, oauthServers));
    ctx.provide('auth.identity', createIdentityService({
      oauth,
      environments, cache, limiter, options: ctx.options, email: () => ctx.resolve('email.send'),
      phone: phoneLimiter ? { limiter: phoneLimiter, sms: () => ctx.resolve('sms.send') } : null,
    }));
    // The engines start once the runtime serves (requests that need no identity are answered
    // meanwhile; those that do wait for their environment's engine), after other ready hooks.
    ctx.hook('runtime.ready', () => Promise.all([...environments.values()].map((env) => env.ready())), { priority: 1000 });
  },
  async start(ctx) {
    const environments = states.get(ctx)!;
    const info = ctx.resolve('runtime.info');
    const keys = ctx.resolve('secrets.keys');
    const settings = ctx.resolve('settings.store');
    checkPasskeyConfig(ctx.options, info.production);
    const counter = ctx.has('events.counter') ? ctx.resolve('events.counter') : null;
    if (counter?.shared) {
      const onError = (error: unknown) => ctx.log.warn({ err: error }, 'auth: the shared rate-limit count in Redis failed; counting in this process meanwhile');
      const { auth, phone } = limiters.get(ctx)!;
      auth.share(counter, onError);
      phone?.share(counter, onError);
    }
    checkMailOrigin(ctx.options, info.production, ctx.has('email.send'));
    const phoneOn = phoneNumberOptionsOf(ctx.options.phoneNumber) !== null;
    if (phoneOn && !ctx.has('sms.send')) {
      throw codedError('SMS_NOT_CONFIGURED', {
        reason: 'auth.plugins.phoneNumber is on, but no plugin provides sms.send',
        fix: "configure the sms section (sms.provider 'twilio' or 'vonage' with its credentials) and do not disable plugins.sms, or turn auth.plugins.phoneNumber off",
      });
    }
    try {
      for (const env of info.environments) {
        environments.set(env.id, await createEnvironmentAuth({
          env,
          // Per environment: a token of one environment is meaningless in another.
          secret: keys.derive('auth', env.id),
          production: info.production,
          options: ctx.options,
          email: ctx.resolve('email.send'),
          sms: phoneOn ? ctx.resolve('sms.send') : undefined,
          log: ctx.log.child({ environment: env.id }),
          isDefault: env.id === info.defaultEnvironment,
          // Its sign-in providers set by its admins (fresh within a second in every process: the store's rule).
          ...(settings ? { settings: () => settings.read(env.id, 'auth') } : {}),
        }));
      }
    } catch (error) {
      await closeAll(environments);
      throw error;
    }
    // The authorization server serves the default environment (its issuer is the server's origin).
    const main = environments.get(info.defaultEnvironment);
    if (ctx.options.oauthProvider.enabled && main) {
      oauthStates.get(ctx)!.set(main.id, createOAuthServer(main, ctx.options, keys.derive('oauth', main.id).toString('hex'), ctx.log.child({ environment: main.id }), false));
    }
  },
  async stop(ctx) {
    const limiter = limiters.get(ctx);
    await limiter?.auth.close();
    await limiter?.phone?.close();
    const environments = states.get(ctx);
    if (environments) await closeAll(environments);
  },
});

async function closeAll(environments: Map<string, EnvironmentAuth>): Promise<void> {
  await Promise.all([...environments.values()].map((env) => env.close().catch(() => undefined)));
  environments.clear();
}
