import { randomUUID } from 'node:crypto';
import type { EventPayload, EventsBus, EventTopic, SignalPathState } from '../../capabilities/eventsBus.ts';
import { createHeartbeat, HEARTBEAT, type Heartbeat, type HeartbeatOptions, type HeartbeatState } from './heartbeat.ts';

/** What a transport reports of its listening connection. */
export interface TransportEvents {
  /** A message arrived on the events channel. */
  deliver(message: string): void;
  /** A heartbeat of this process came back. */
  echo(token: string): void;
  /** Listening (again) on the events channel and this process's heartbeat channel. */
  up(): void;
  /** The listening connection was lost. */
  down(): void;
}

/** What a transport does: send a message to every process, and deliver what arrives. */
export interface Transport {
  kind: EventsBus['transport'];
  send(message: string): Promise<void>;
  /** Sends a heartbeat token to this process's own heartbeat channel, through the listening path. */
  beat(token: string): Promise<void>;
  open(events: TransportEvents): Promise<void>;
  /** Drops the listening connection and connects anew (its heartbeat is overdue: it may be half-open). */
  reconnect(): void;
  close(): Promise<void>;
}

const TOPICS = new Set<EventTopic>(['access.changed', 'principals.changed', 'approvals.changed', 'settings.changed', 'records.changed', 'realtime.interest']);
/** A message larger than this is not ours (PostgreSQL's NOTIFY payload limit is 8000 bytes). */
const MAX_MESSAGE = 4000;

export interface BusLog {
  warn(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
}

/**
 * The bus over a transport. Messages carry the sender's id so a process skips its own, and only
 * known topics with an environment id are delivered (anything else on the channel is dropped).
 * A transport other than `local` is trusted only while its heartbeat comes back (heartbeat.ts).
 */
export function createEventsBus(
  transport: Transport, onError: (error: unknown) => void, log?: BusLog, options: HeartbeatOptions = HEARTBEAT,
): EventsBus & { open(): Promise<void>; close(): Promise<void> } {
  const origin = randomUUID();
  const handlers = new Map<EventTopic, Array<(payload: EventPayload) => void>>();
  const watched: Array<() => SignalPathState> = [];
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
  const reportChange = (live: boolean, state: HeartbeatState) => {
    if (live) log?.info({ path: state.path }, `signals: ${state.path} is live again; caches are trusted again (what they held before is forgotten)`);
    else log?.warn({ path: state.path, lastHeardMs: state.lastHeardMs }, `signals: no heartbeat back on ${state.path}; caches are not trusted (reads and credential checks go to the database) until it is live again`);
  };
  const path = `events (${transport.kind})`;
  const heartbeat: Heartbeat | null = transport.kind === 'local'
    ? null
    : createHeartbeat(path, (token) => transport.beat(token), { overdue: () => transport.reconnect(), changed: reportChange }, options);
  if (heartbeat) watched.push(heartbeat.state);
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
    trusted: () => heartbeat === null || heartbeat.live(),
    epoch: () => heartbeat?.epoch() ?? 0,
    watch(name, send, overdue) {
      const watchedBeat = createHeartbeat(name, send, { overdue, changed: reportChange }, options);
      watched.push(watchedBeat.state);
      return {
        ...watchedBeat,
        stop() {
          watchedBeat.stop();
          const at = watched.indexOf(watchedBeat.state);
          if (at !== -1) watched.splice(at, 1);
        },
      };
    },
    signals: () => watched.map((state) => state()),
    async open() {
      await transport.open({
        deliver,
        echo: (token) => heartbeat?.echo(token),
        up: () => heartbeat?.connected(),
        down: () => heartbeat?.lost(),
      });
      opened = true;
    },
    async close() {
      opened = false;
      heartbeat?.stop();
      await transport.close();
    },
  };
}
