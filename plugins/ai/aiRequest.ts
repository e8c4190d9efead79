import type { FastifyReply, FastifyRequest } from 'fastify';

/** The limiter key of a caller: users are counted per environment. */
export const callerKey = (request: FastifyRequest): string => `${request.environmentId}:${request.principal?.userId ?? 'anonymous'}`;

/** One server-sent event. */
export const sse = (event: string, data: unknown): string => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/** Aborted when the client of this request goes away before its answer is written. */
export function clientGone(reply: FastifyReply): { signal: AbortSignal; release(): void } {
  const controller = new AbortController();
  const onClose = () => {
    if (!reply.raw.writableFinished) controller.abort();
  };
  reply.raw.once('close', onClose);
  return { signal: controller.signal, release: () => reply.raw.removeListener('close', onClose) };
}

const usage = {
  type: 'object',
  properties: { promptTokens: { type: 'integer' }, completionTokens: { type: 'integer' }, totalTokens: { type: 'integer' } },
  required: ['promptTokens', 'completionTokens', 'totalTokens'],
};

const modelName = { type: 'string', minLength: 3, maxLength: 300, description: '`<provider>/<model>`; default: plugins.ai.defaultModel' };

export const schemas = {
  usage,
  chatBody: {
    type: 'object',
    additionalProperties: false,
    required: ['messages'],
    properties: {
      model: modelName,
      messages: {
        type: 'array', minItems: 1, maxItems: 200,
        items: {
          type: 'object', additionalProperties: false, required: ['role', 'content'],
          properties: { role: { type: 'string', enum: ['system', 'user', 'assistant'] }, content: { type: 'string', maxLength: 100_000 } },
        },
      },
      temperature: { type: 'number', minimum: 0, maximum: 2 },
      maxTokens: { type: 'integer', minimum: 1, maximum: 200_000 },
    },
  },
  chatAnswer: {
    type: 'object',
    properties: {
      model: { type: 'string' },
      message: { type: 'object', properties: { role: { type: 'string', enum: ['assistant'] }, content: { type: 'string' } }, required: ['role', 'content'] },
      usage,
    },
    required: ['model', 'message', 'usage'],
  },
  completeBody: {
    type: 'object',
    additionalProperties: false,
    required: ['prompt'],
    properties: {
      model: modelName,
      prompt: { type: 'string', minLength: 1, maxLength: 200_000 },
      temperature: { type: 'number', minimum: 0, maximum: 2 },
      maxTokens: { type: 'integer', minimum: 1, maximum: 200_000 },
    },
  },
  completeAnswer: {
    type: 'object',
    properties: { model: { type: 'string' }, text: { type: 'string' }, usage },
    required: ['model', 'text', 'usage'],
  },
  models: {
    type: 'object',
    properties: {
      items: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' }, provider: { type: 'string' } }, required: ['id', 'provider'] } },
      errors: {
        type: 'array',
        items: { type: 'object', properties: { provider: { type: 'string' }, error: { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' } } } } },
      },
    },
    required: ['items', 'errors'],
  },
} as const;

export interface ChatBody {
  model?: string;
  messages: Array<{ role: 'system' | 'user' | 'assistant'; content: string }>;
  temperature?: number;
  maxTokens?: number;
}
