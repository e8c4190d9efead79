import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../kernel/definePlugin.ts';
import { aiOptionsSchema, aiSettingsSchema } from './aiOptions.ts';
import { addAiRoutes } from './aiRoutes.ts';
import { addChatRoutes } from './chatRoutes.ts';
import { createConversations } from './conversations.ts';
import { environmentCatalogs } from './environmentCatalogs.ts';
import { createModelCatalog } from './modelCatalog.ts';
import { createPendingActions } from './pendingActions.ts';
import type { ProviderClient } from './providerClient.ts';
import { resolveProviders } from './resolveProviders.ts';
import { settingsProviders } from './settingsProviders.ts';
import { sharedUsageLimiter, type AiUsageLimiter } from './sharedUsageLimiter.ts';
import { createUsageLimiter } from './usageLimiter.ts';

const limiters = new WeakMap<object, AiUsageLimiter>();

/**
 * AI: chat, completion and streaming through any OpenAI-compatible provider, agents declared in
 * metadata, persistent conversations whose tools read as the caller, and an approval queue for
 * the mutations a model proposes; an environment's `ai` settings add or replace providers. Route keys: ai:chat, ai:read, ai:approve (docs/ai.md).
 */
export default definePlugin({
  name: 'ai',
  version: '16.0.0',
  kernel: '^16.0.0',
  requires: ['http.routes', 'data.engine', 'metadata.registry', 'runtime.info'],
  optional: ['actions.registry', 'events.counter', 'audit.record', 'settings.store', 'access.grants', 'auth.identity'],
  options: aiOptionsSchema,
  async register(ctx) {
    const metadata = ctx.resolve('metadata.registry');
    metadata.contributeApp(fileURLToPath(new URL('./system-app', import.meta.url)));
    const engine = ctx.resolve('data.engine');
    const actions = () => ctx.resolve('actions.registry');
    const providers = resolveProviders(ctx.options, process.env);
    // The provider SDK is loaded only when a provider is configured.
    const { createProviderClient } = providers.length > 0 ? await import('./providerClient.ts') : { createProviderClient: null };
    const clients = new Map<string, ProviderClient>(providers.map((p) => [p.id, createProviderClient!(p, ctx.options.requestTimeoutMs)]));
    const fallback = createModelCatalog(providers, clients, ctx.options.defaultModel);
    // An environment whose admin set `ai` settings (docs/settings.md) uses its own providers.
    const catalogs = environmentCatalogs({ providers, defaultModel: ctx.options.defaultModel, requestTimeoutMs: ctx.options.requestTimeoutMs, fallback, store: () => ctx.resolve('settings.store') });
    // A settings write is checked by the resolver that reads it: what is stored, requests can use.
    ctx.resolve('settings.store')?.resolveWith('ai', (values) => {
      settingsProviders(providers, ctx.options.defaultModel, aiSettingsSchema.parse(values));
    });
    const limiter = sharedUsageLimiter(ctx.options.limits, createUsageLimiter(ctx.options.limits));
    limiters.set(ctx, limiter);
    const access = ctx.resolve('access.grants');
    const identity = ctx.resolve('auth.identity');
    const pending = createPendingActions({
      engine, actions, ttlDays: ctx.options.pendingActionTtlDays, allowSelfApproval: ctx.options.allowSelfApproval,
      ...(access ? { readableFields: (dataCtx, object, fields) => access.readableFields(dataCtx, object, fields) } : {}),
      ...(identity ? { userNames: async (env, ids) => new Map((await identity.contactsOf(env, ids)).map((c) => [c.id, c.name])) } : {}),
    });
    const conversations = createConversations({ engine, metadata, actions, catalogs, limiter, pending, maxSteps: ctx.options.maxSteps, maxToolRows: ctx.options.maxToolRows });
    const routes = ctx.resolve('http.routes');
    addChatRoutes(routes, catalogs, limiter, ctx.log);
    addAiRoutes(routes, conversations, pending, ctx.log, ctx.resolve('audit.record'));
    ctx.log.debug({ providers: providers.map((p) => ({ id: p.id, baseURL: p.baseURL, key: p.apiKey ? 'set' : 'none' })) }, 'ai: providers');
  },
  start(ctx) {
    const counter = ctx.has('events.counter') ? ctx.resolve('events.counter') : null;
    if (!counter?.shared) return;
    const onError = (error: unknown) => ctx.log.warn({ err: error }, 'ai: the shared usage count in Redis failed; counting in this process meanwhile');
    limiters.get(ctx)!.share(counter, ctx.options.redisKeyPrefix, onError);
  },
  async stop(ctx) {
    await limiters.get(ctx)?.close();
  },
});
