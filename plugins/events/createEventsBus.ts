import { randomUUID } from 'node:crypto';
import type { EventPayload, EventsBus, EventTopic } from '../../capabilities/eventsBus.ts';

/** What a transport does: send a message to every process, and deliver what arrives. */
export interface Transport {
  kind: EventsBus['transport'];
  send(message: string): Promise<void>;
  open(deliver: (message: string) => void): Promise<void>;
  close(): Promise<void>;
}

const TOPICS = new Set<EventTopic>(['access.changed', 'principals.changed', 'approvals.changed', 'records.changed', 'realtime.interest']);
/** A message larger than this is not ours (PostgreSQL's NOTIFY payload limit is 8000 bytes). */
const MAX_MESSAGE = 4000;

/**
 * The bus over a transport. Messages carry the sender's id so a process skips its own, and only
 * known topics with an environment id are delivered (anything else on the channel is dropped).
 */
export function createEventsBus(transport: Transport, onError: (error: unknown) => void): EventsBus & { open(): Promise<void>; close(): Promise<void> } {
  const origin = randomUUID();
  const handlers = new Map<EventTopic, Array<(payload: EventPayload) => void>>();
  let opened = false;
  const deliver = (message: string) => {
    if (message.length > MAX_MESSAGE) return;
    let parsed: { origin?: unknown; topic?: unknown; environmentId?: unknown; data?: unknown };
    try {
      parsed = JSON.parse(message);
    } catch {
      return;
    }
    if (parsed.origin === origin || !TOPICS.has(parsed.topic as EventTopic) || typeof parsed.environmentId !== 'string') return;
    for (const handler of handlers.get(parsed.topic as EventTopic) ?? []) {
      try {
        const data = typeof parsed.data === 'object' && parsed.data !== null && !Array.isArray(parsed.data) ? (parsed.data as Record<string, unknown>) : undefined;
        handler(data ? { environmentId: parsed.environmentId, data } : { environmentId: parsed.environmentId });
      } catch (error) {
        onError(error);
      }
    }
  };
  return {
    transport: transport.kind,
    publish(topic, payload) {
      if (!opened) return;
      const message = JSON.stringify({ origin, topic, environmentId: payload.environmentId, ...(payload.data ? { data: payload.data } : {}) });
      if (message.length > MAX_MESSAGE) {
        onError(new Error(`events: a '${topic}' message of ${message.length} bytes is over the ${MAX_MESSAGE}-byte limit and was not sent`));
        return;
      }
      transport.send(message).catch(onError);
    },
    subscribe(topic, handler) {
      handlers.set(topic, [...(handlers.get(topic) ?? []), handler]);
    },
    async open() {
      await transport.open(deliver);
      opened = true;
    },
    async close() {
      opened = false;
      await transport.close();
    },
  };
}
