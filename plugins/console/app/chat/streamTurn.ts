import { ApiError, request } from '../api.ts';
import type { ToolSummary, TurnAnswer } from './chatModel.ts';
import { sseEvents } from './sseEvents.ts';

export interface TurnWatcher {
  /** A piece of the model's text, as it arrives. */
  delta(text: string): void;
  /** A tool call, once it ran. */
  tool(summary: ToolSummary): void;
}

/**
 * Runs one turn of a conversation through `POST /ai/conversations/:id/messages/stream`, telling
 * `watch` what arrives; resolves with the stored turn (the `done` event). A refusal before the
 * stream and an `error` event reject with their ApiError; `signal` aborts the turn (nothing is stored).
 */
export async function streamTurn(conversation: string, content: string, watch: TurnWatcher, signal: AbortSignal): Promise<TurnAnswer> {
  const response = await request(`/ai/conversations/${encodeURIComponent(conversation)}/messages/stream`, {
    method: 'POST', body: { content }, headers: { accept: 'text/event-stream' }, signal,
  });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const parser = sseEvents();
  let answer: TurnAnswer | null = null;
  const handle = (event: string, data: unknown) => {
    if (event === 'delta') watch.delta(String((data as { content?: unknown })?.content ?? ''));
    else if (event === 'tool') watch.tool(data as ToolSummary);
    else if (event === 'done') answer = data as TurnAnswer;
    else if (event === 'error') {
      const e = (data as { error?: { code?: string; message?: string; details?: Record<string, unknown> } })?.error ?? {};
      throw new ApiError(200, e.code ?? 'AI_PROVIDER_ERROR', e.message ?? 'The turn failed.', e.details ?? {});
    }
  };
  try {
    for (;;) {
      const { value, done } = await reader.read();
      for (const e of done ? parser.end() : parser.push(value)) handle(e.event, e.data);
      if (done) break;
    }
  } catch (error) {
    if (error instanceof ApiError) throw error;
    if (signal.aborted) throw new ApiError(0, 'ABORTED', 'Stopped: nothing of this turn was kept.');
    throw new ApiError(0, 'NETWORK', `The connection ended before the answer was complete (${(error as Error).message}).`);
  } finally {
    reader.releaseLock();
  }
  if (!answer) throw new ApiError(0, 'NETWORK', 'The connection ended before the answer was complete.');
  return answer;
}
