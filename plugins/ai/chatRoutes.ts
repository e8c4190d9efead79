import { PassThrough } from 'node:stream';
import type { HttpRoutes } from '../../capabilities/httpRoutes.ts';
import { codedError, isCodedError } from '../../kernel/errors.ts';
import type { Logger } from '../../kernel/logger.ts';
import { callerKey, clientGone, schemas, sse, type ChatBody } from './aiRequest.ts';
import type { EnvironmentCatalogs } from './environmentCatalogs.ts';
import type { AiUsageLimiter } from './sharedUsageLimiter.ts';

const tags = ['ai'];
const noQuery = { type: 'object', additionalProperties: false };

/** GET /ai/models, POST /ai/chat, /ai/complete and /ai/chat/stream: thin edges over the provider clients. */
export function addChatRoutes(routes: HttpRoutes, catalogs: EnvironmentCatalogs, limiter: AiUsageLimiter, log: Logger): void {
  routes.add({
    method: 'GET', path: '/ai/models', tags, permission: 'ai:chat',
    summary: "Models of the providers of the environment (its ai settings over the config file) as <provider>/<model>; a provider that fails is listed in errors",
    schema: { querystring: noQuery, response: { 200: schemas.models } },
    handler: (request, reply) => {
      const gone = clientGone(reply);
      return catalogs.of(request.environmentId).then((catalog) => catalog.list(gone.signal)).finally(gone.release);
    },
  });

  routes.add({
    method: 'POST', path: '/ai/chat', tags, permission: 'ai:chat', scope: 'data:read', errorStatuses: [429, 502, 504],
    summary: 'One chat completion: { model?, messages, temperature?, maxTokens? } -> { message, usage }',
    schema: { querystring: noQuery, body: schemas.chatBody, response: { 200: schemas.chatAnswer } },
    handler: async (request, reply) => {
      const body = request.body as ChatBody;
      const gone = clientGone(reply);
      try {
        const { client, model, id } = await (await catalogs.of(request.environmentId)).resolve(body.model, gone.signal);
        await limiter.admit(callerKey(request));
        const answer = await client.chat({ model, messages: body.messages, temperature: body.temperature, maxTokens: body.maxTokens, signal: gone.signal });
        await limiter.spend(callerKey(request), answer.usage.totalTokens);
        return { model: id, message: { role: 'assistant', content: answer.message.content ?? '' }, usage: answer.usage };
      } finally {
        gone.release();
      }
    },
  });

  routes.add({
    method: 'POST', path: '/ai/complete', tags, permission: 'ai:chat', scope: 'data:read', errorStatuses: [429, 502, 504],
    summary: 'A raw text completion: { model?, prompt, temperature?, maxTokens? } -> { text, usage }',
    schema: { querystring: noQuery, body: schemas.completeBody, response: { 200: schemas.completeAnswer } },
    handler: async (request, reply) => {
      const body = request.body as { model?: string; prompt: string; temperature?: number; maxTokens?: number };
      const gone = clientGone(reply);
      try {
        const { client, model, id } = await (await catalogs.of(request.environmentId)).resolve(body.model, gone.signal);
        await limiter.admit(callerKey(request));
        const answer = await client.complete({ model, prompt: body.prompt, temperature: body.temperature, maxTokens: body.maxTokens, signal: gone.signal });
        await limiter.spend(callerKey(request), answer.usage.totalTokens);
        return { model: id, text: answer.text, usage: answer.usage };
      } finally {
        gone.release();
      }
    },
  });

  routes.add({
    method: 'POST', path: '/ai/chat/stream', tags, permission: 'ai:chat', scope: 'data:read', errorStatuses: [429],
    summary: 'Chat over server-sent events: `delta` events in order, then `usage`, or `error` when the provider fails; closing the connection aborts the provider request',
    schema: { querystring: noQuery, body: schemas.chatBody },
    handler: async (request, reply) => {
      const body = request.body as ChatBody;
      const { client, model, id } = await (await catalogs.of(request.environmentId)).resolve(body.model);
      const key = callerKey(request);
      await limiter.admit(key);
      const gone = clientGone(reply);
      const out = new PassThrough();
      void (async () => {
        try {
          for await (const event of client.chatStream({ model, messages: body.messages, temperature: body.temperature, maxTokens: body.maxTokens, signal: gone.signal })) {
            if (event.type === 'delta') out.write(sse('delta', { content: event.content }));
            else if (event.type === 'usage') {
              await limiter.spend(key, event.usage.totalTokens);
              out.write(sse('usage', { model: id, usage: event.usage }));
            }
          }
        } catch (error) {
          if (!gone.signal.aborted) {
            const coded = isCodedError(error) ? error : codedError('AI_PROVIDER_ERROR', { provider: client.id, reason: 'the stream failed' });
            if (!isCodedError(error)) log.error({ err: error }, 'ai: stream failed');
            out.write(sse('error', { error: coded.toJSON() }));
          }
        } finally {
          gone.release();
          out.end();
        }
      })();
      reply.header('content-type', 'text/event-stream; charset=utf-8').header('cache-control', 'no-store').header('x-accel-buffering', 'no');
      return reply.send(out);
    },
  });
}
