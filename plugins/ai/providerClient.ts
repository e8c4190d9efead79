/**
 * The provider boundary: the only file that talks to an AI provider, through the `openai` SDK
 * (any OpenAI-compatible server). It maps the wire format to the plugin's own shapes and every
 * failure to a coded error: unreachable, 4xx/5xx or malformed answers are AI_PROVIDER_ERROR, a
 * deadline passed is AI_TIMEOUT. The key stays inside the SDK client; the SDK's own logging is off.
 */
import OpenAI from 'openai';
import { codedError, isCodedError } from '../../kernel/errors.ts';
import type { ResolvedProvider } from './resolveProviders.ts';

export interface ToolCall {
  id: string;
  name: string;
  /** The arguments as the model wrote them (JSON text, not yet checked). */
  arguments: string;
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | null;
  toolCalls?: ToolCall[];
  toolCallId?: string;
}

export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface Usage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  temperature?: number;
  maxTokens?: number;
  tools?: ToolSpec[];
  /** The caller went away: the provider request is aborted. */
  signal?: AbortSignal;
}

export interface ChatAnswer {
  message: { role: 'assistant'; content: string | null; toolCalls: ToolCall[] };
  usage: Usage;
}

export type StreamEvent = { type: 'delta'; content: string } | { type: 'toolCalls'; calls: ToolCall[] } | { type: 'usage'; usage: Usage };

export interface ProviderClient {
  readonly id: string;
  chat(request: ChatRequest): Promise<ChatAnswer>;
  /** Deltas in order, then the tool calls assembled from their deltas (if any), then one usage event. */
  chatStream(request: ChatRequest): AsyncIterable<StreamEvent>;
  complete(request: { model: string; prompt: string; temperature?: number; maxTokens?: number; signal?: AbortSignal }): Promise<{ text: string; usage: Usage }>;
  models(signal?: AbortSignal): Promise<string[]>;
}

const NO_USAGE: Usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };

function usageOf(raw: unknown): Usage {
  if (typeof raw !== 'object' || raw === null) return NO_USAGE;
  const u = raw as { prompt_tokens?: unknown; completion_tokens?: unknown; total_tokens?: unknown };
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.floor(v) : 0);
  const prompt = n(u.prompt_tokens);
  const completion = n(u.completion_tokens);
  return { promptTokens: prompt, completionTokens: completion, totalTokens: n(u.total_tokens) || prompt + completion };
}

function malformed(provider: string, what: string) {
  return codedError('AI_PROVIDER_ERROR', { provider, reason: `malformed answer (${what})` });
}

/** A deadline and the caller's signal as one signal; `timedOut` says which one fired. */
function deadline(timeoutMs: number, caller?: AbortSignal) {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => { timedOut = true; controller.abort(); }, timeoutMs);
  const onCaller = () => controller.abort();
  if (caller?.aborted) controller.abort();
  else caller?.addEventListener('abort', onCaller, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    done() { clearTimeout(timer); caller?.removeEventListener('abort', onCaller); },
  };
}

function toWire(messages: ChatMessage[]): OpenAI.Chat.ChatCompletionMessageParam[] {
  return messages.map((m): OpenAI.Chat.ChatCompletionMessageParam => {
    if (m.role === 'tool') return { role: 'tool', content: m.content ?? '', tool_call_id: m.toolCallId ?? '' };
    if (m.role === 'assistant') {
      return {
        role: 'assistant',
        content: m.content,
        ...(m.toolCalls && m.toolCalls.length > 0
          ? { tool_calls: m.toolCalls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } })) }
          : {}),
      };
    }
    return { role: m.role, content: m.content ?? '' };
  });
}

function toolsOf(tools: ToolSpec[] | undefined): { tools?: OpenAI.Chat.ChatCompletionTool[] } {
  if (!tools || tools.length === 0) return {};
  return { tools: tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } })) };
}

/** `fetchWith`: how to reach the provider (the settings' checked connections where the settings chose its baseURL); the global fetch otherwise. */
export function createProviderClient(provider: ResolvedProvider, timeoutMs: number, fetchWith?: typeof fetch): ProviderClient {
  const client = new OpenAI({
    ...(fetchWith ? { fetch: fetchWith } : {}),
    apiKey: provider.apiKey ?? 'no-key',
    baseURL: provider.baseURL,
    // The deadline is ours (it covers the body and the whole stream); retries would hide a failing provider.
    maxRetries: 0,
    timeout: timeoutMs + 1000,
    logLevel: 'off',
    organization: null,
    project: null,
    webhookSecret: null,
  });
  const id = provider.id;

  /** Runs a provider call under the deadline; maps every failure to a coded error (the caller's abort stays an abort). */
  async function call<T>(caller: AbortSignal | undefined, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const clock = deadline(timeoutMs, caller);
    try {
      return await work(clock.signal);
    } catch (error) {
      throw mapError(error, clock.timedOut(), caller);
    } finally {
      clock.done();
    }
  }

  function mapError(error: unknown, timedOut: boolean, caller: AbortSignal | undefined): Error {
    if (isCodedError(error)) return error;
    if (timedOut || error instanceof OpenAI.APIConnectionTimeoutError) return codedError('AI_TIMEOUT', { provider: id, timeoutMs });
    if (caller?.aborted) return Object.assign(new Error('The client went away'), { name: 'AbortError' });
    if (error instanceof OpenAI.APIError && error.status !== undefined) {
      return codedError('AI_PROVIDER_ERROR', { provider: id, reason: `the provider answered HTTP ${error.status}`, providerStatus: error.status });
    }
    if (error instanceof OpenAI.APIConnectionError) return codedError('AI_PROVIDER_ERROR', { provider: id, reason: 'the provider is unreachable' });
    if (error instanceof SyntaxError) return malformed(id, 'not valid JSON');
    return codedError('AI_PROVIDER_ERROR', { provider: id, reason: 'the provider answer could not be read' });
  }

  return {
    id,
    chat: (request) => call(request.signal, async (signal) => {
      const raw: unknown = await client.chat.completions.create({
        model: request.model,
        messages: toWire(request.messages),
        ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
        ...(request.maxTokens !== undefined ? { max_tokens: request.maxTokens } : {}),
        ...toolsOf(request.tools),
      }, { signal });
      const choice = (raw as { choices?: unknown })?.choices;
      const message = Array.isArray(choice) ? (choice[0] as { message?: unknown } | undefined)?.message : undefined;
      if (typeof message !== 'object' || message === null) throw malformed(id, 'no choices[0].message');
      const { content, tool_calls: calls } = message as { content?: unknown; tool_calls?: unknown };
      if (content !== undefined && content !== null && typeof content !== 'string') throw malformed(id, 'message.content is not text');
      if (calls !== undefined && calls !== null && !Array.isArray(calls)) throw malformed(id, 'message.tool_calls is not a list');
      const toolCalls: ToolCall[] = [];
      for (const c of (calls ?? []) as Array<{ id?: unknown; function?: { name?: unknown; arguments?: unknown } }>) {
        if (typeof c?.id !== 'string' || typeof c.function?.name !== 'string') throw malformed(id, 'a tool call without id or function name');
        toolCalls.push({ id: c.id, name: c.function.name, arguments: typeof c.function.arguments === 'string' ? c.function.arguments : '' });
      }
      return { message: { role: 'assistant', content: (content as string | null | undefined) ?? null, toolCalls }, usage: usageOf((raw as { usage?: unknown }).usage) };
    }),

    chatStream(request) {
      return {
        async *[Symbol.asyncIterator]() {
          const clock = deadline(timeoutMs, request.signal);
          let usage: Usage = NO_USAGE;
          const calls = new Map<number, ToolCall>();
          try {
            const stream = await client.chat.completions.create({
              model: request.model,
              messages: toWire(request.messages),
              stream: true,
              stream_options: { include_usage: true },
              ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
              ...(request.maxTokens !== undefined ? { max_tokens: request.maxTokens } : {}),
              ...toolsOf(request.tools),
            }, { signal: clock.signal });
            for await (const chunk of stream as AsyncIterable<unknown>) {
              if (typeof chunk !== 'object' || chunk === null) throw malformed(id, 'a stream chunk is not an object');
              const c = chunk as { choices?: Array<{ delta?: { content?: unknown } }>; usage?: unknown };
              if (c.usage) usage = usageOf(c.usage);
              if (c.choices !== undefined && !Array.isArray(c.choices)) throw malformed(id, 'chunk.choices is not a list');
              const delta = c.choices?.[0]?.delta as { content?: unknown; tool_calls?: unknown } | undefined;
              const content = delta?.content;
              if (typeof content === 'string' && content !== '') yield { type: 'delta', content };
              if (delta?.tool_calls !== undefined && delta.tool_calls !== null) {
                if (!Array.isArray(delta.tool_calls)) throw malformed(id, 'delta.tool_calls is not a list');
                for (const part of delta.tool_calls as Array<{ index?: unknown; id?: unknown; function?: { name?: unknown; arguments?: unknown } }>) {
                  const index = typeof part?.index === 'number' ? part.index : 0;
                  const call = calls.get(index) ?? { id: '', name: '', arguments: '' };
                  if (typeof part.id === 'string') call.id = part.id;
                  if (typeof part.function?.name === 'string') call.name += part.function.name;
                  if (typeof part.function?.arguments === 'string') call.arguments += part.function.arguments;
                  calls.set(index, call);
                }
              }
            }
            // The SDK's stream ends quietly when aborted: a deadline or a caller gone is not an answer.
            if (clock.signal.aborted) throw mapError(new Error('aborted'), clock.timedOut(), request.signal);
            if (calls.size > 0) {
              const list = [...calls.entries()].sort((a, b) => a[0] - b[0]).map(([, call]) => call);
              if (list.some((call) => call.id === '' || call.name === '')) throw malformed(id, 'a streamed tool call without id or function name');
              yield { type: 'toolCalls', calls: list };
            }
          } catch (error) {
            throw mapError(error, clock.timedOut(), request.signal);
          } finally {
            clock.done();
          }
          yield { type: 'usage', usage };
        },
      };
    },

    complete: (request) => call(request.signal, async (signal) => {
      const raw: unknown = await client.completions.create({
        model: request.model,
        prompt: request.prompt,
        ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
        ...(request.maxTokens !== undefined ? { max_tokens: request.maxTokens } : {}),
      }, { signal });
      const choices = (raw as { choices?: unknown })?.choices;
      const text = Array.isArray(choices) ? (choices[0] as { text?: unknown } | undefined)?.text : undefined;
      if (typeof text !== 'string') throw malformed(id, 'no choices[0].text');
      return { text, usage: usageOf((raw as { usage?: unknown }).usage) };
    }),

    models: (signal) => call(signal, async (inner) => {
      const page: unknown = await client.models.list({ signal: inner });
      const data = (page as { data?: unknown })?.data;
      if (!Array.isArray(data)) throw malformed(id, 'no data list');
      return data.map((m) => (m as { id?: unknown })?.id).filter((m): m is string => typeof m === 'string');
    }),
  };
}
