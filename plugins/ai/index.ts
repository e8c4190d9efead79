import { definePlugin } from '../../kernel/definePlugin.ts';
import { aiOptionsSchema } from './aiOptions.ts';
import { addChatRoutes } from './chatRoutes.ts';
import { createModelCatalog } from './modelCatalog.ts';
import { createProviderClient, type ProviderClient } from './providerClient.ts';
import { resolveProviders } from './resolveProviders.ts';
import { createUsageLimiter } from './usageLimiter.ts';

/**
 * AI: chat, completion and streaming through any OpenAI-compatible provider, agents declared in
 * metadata, persistent conversations whose tools read as the caller, and an approval queue for
 * the mutations a model proposes. Route keys: ai:chat, ai:read, ai:approve (docs/ai.md).
 */
export default definePlugin({
  name: 'ai',
  version: '16.0.0',
  kernel: '^16.0.0',
  requires: ['http.routes'],
  options: aiOptionsSchema,
  register(ctx) {
    const providers = resolveProviders(ctx.options, process.env);
    const clients = new Map<string, ProviderClient>(providers.map((p) => [p.id, createProviderClient(p, ctx.options.requestTimeoutMs)]));
    const catalog = createModelCatalog(providers, clients, ctx.options.defaultModel);
    const limiter = createUsageLimiter(ctx.options.limits);
    addChatRoutes(ctx.resolve('http.routes'), catalog, limiter, ctx.log);
    ctx.log.debug({ providers: providers.map((p) => ({ id: p.id, baseURL: p.baseURL, key: p.apiKey ? 'set' : 'none' })) }, 'ai: providers');
  },
});
