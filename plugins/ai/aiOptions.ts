import { z } from 'zod';

const providerSchema = z.strictObject({
  /** The provider's name in model ids: `<id>/<model>`. */
  id: z.string().regex(/^[a-z][a-z0-9_-]{0,62}$/, 'must be lowercase letters, digits, - and _ (at most 63), starting with a letter'),
  /** Base URL of an OpenAI-compatible API, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`. */
  baseURL: z.string().url().regex(/^https?:\/\//, 'must be an http(s) URL'),
  /** Name of the environment variable that holds the API key (never the key itself); omitted: the provider takes no key. */
  apiKeyEnv: z.string().regex(/^[A-Z_][A-Z0-9_]{0,127}$/, 'must be an environment variable name such as OPENAI_API_KEY').optional(),
  /** The models offered; omitted: asked from the provider's models endpoint. */
  models: z.array(z.string().min(1).max(200)).max(500).optional(),
});

export type ProviderOptions = z.infer<typeof providerSchema>;

/** `plugins.ai` in runtime.config.ts (docs/ai.md lists every key). */
export const aiOptionsSchema = z.strictObject({
  providers: z.array(providerSchema).max(50).default([]),
  /** `<providerId>/<model>` used when a request names no model. */
  defaultModel: z.string().regex(/^[a-z][a-z0-9_-]{0,62}\/.+$/, 'must be <providerId>/<model>').optional(),
  /** Longest wait for one provider call (a stream: for the whole stream), in ms. */
  requestTimeoutMs: z.number().int().min(100).max(600_000).default(60_000),
  /** Model calls the agent loop makes for one user message before it stops. */
  maxSteps: z.number().int().min(1).max(50).default(8),
  /** Rows `query_data` hands the model at most per call. */
  maxToolRows: z.number().int().min(1).max(500).default(50),
  /** Whether the user in whose conversation an action was proposed may approve it herself (single-person setups); off: another approver must. */
  allowSelfApproval: z.boolean().default(false),
  /** Days a pending action waits for a decision before it expires. */
  pendingActionTtlDays: z.number().min(0.00001).max(365).default(7),
  /** Per user: AI requests per minute and provider tokens per day; over every process when Redis is configured, else per process. */
  limits: z.strictObject({
    requestsPerMinute: z.number().int().min(1).max(100_000).default(30),
    tokensPerDay: z.number().int().min(1).max(1_000_000_000).default(200_000),
  }).default({ requestsPerMinute: 30, tokensPerDay: 200_000 }),
  /** Prefix of the usage counters in Redis (when redis.url is set), keeping deployments sharing one Redis apart. */
  redisKeyPrefix: z.string().min(1).max(100).default('osr:ai:'),
});

export type AiOptions = z.infer<typeof aiOptionsSchema>;

/**
 * A provider in an environment's `ai` settings (docs/settings.md): the key itself (`apiKey`, kept
 * encrypted) in place of `apiKeyEnv`, since a tenant admin names no environment variable of the
 * process; `baseURL` may be left out for a provider of the config file (same id), to give it
 * another key or list of models.
 */
const providerSettingsSchema = providerSchema.omit({ apiKeyEnv: true }).extend({
  baseURL: providerSchema.shape.baseURL.optional(),
  /** The API key; omitted: the config file's key when the provider keeps its baseURL, else none. */
  apiKey: z.string().min(1).max(1000).optional(),
});

export type ProviderSettings = z.infer<typeof providerSettingsSchema>;

/** The `ai` settings namespace: `providers` (merged by id over the config file's) and `defaultModel`. */
export const aiSettingsSchema = z.strictObject({
  providers: z.array(providerSettingsSchema).max(50).optional(),
  defaultModel: aiOptionsSchema.shape.defaultModel,
});

export type AiSettings = z.infer<typeof aiSettingsSchema>;
