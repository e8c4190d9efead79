import { defineCapability } from './defineCapability.ts';

/** Topics processes tell each other about; each payload names the environment it concerns. */
export type EventTopic =
  /** Permission sets, positions, assignments, shares or sharing rules changed: drop cached grants and plans. */
  | 'access.changed'
  /** Sessions, users or API keys changed: drop cached principals. */
  | 'principals.changed'
  /** An approval process was created: drop the cached set of objects whose records may be locked. */
  | 'approvals.changed'
  /** An environment's settings (docs/settings.md) changed: drop cached settings and what was built from them. */
  | 'settings.changed'
  /** A committed write of a record (realtime: `data` is the change: object, record id, operation, version). */
  | 'records.changed'
  /** Which objects a process has realtime subscribers for (`data.objects`), so writers elsewhere announce their changes. */
  | 'realtime.interest';

export interface EventPayload {
  environmentId: string;
  /** What the topic carries besides the environment (small: a message is at most 4,000 bytes). */
  data?: Record<string, unknown>;
}

/** A signal path as /health and the log tell it. */
export interface SignalPathState {
  path: string;
  /** Whether its heartbeat came back within the bound: caches that rely on it are trusted. */
  live: boolean;
  /** Milliseconds since the latest heartbeat that came back was sent; null if none did. */
  lastHeardMs: number | null;
}

/** A heartbeat kept on a signal path of another plugin (the data engine's LISTEN connections). */
export interface WatchedPath {
  /** The path listens (again): trusted once the first heartbeat is back. */
  connected(): void;
  /** The path was lost. */
  lost(): void;
  /** A heartbeat token came back through the path. */
  echo(token: string): void;
  /** Whether the path is proven live now. */
  live(): boolean;
  /** Moves each time the path was not proven live for a while (messages may have been missed). */
  epoch(): number;
  stop(): void;
}

export interface EventsBus {
  /** `redis` (pub/sub), `postgres` (LISTEN/NOTIFY on the main database), `workers` (the processes of one `osr start --workers N`, through their primary) or `local` (this process only). */
  readonly transport: 'redis' | 'postgres' | 'workers' | 'local';
  /** Tell every other process; fire and forget (a process that may have missed it stops trusting its caches). */
  publish(topic: EventTopic, payload: EventPayload): void;
  /** Handle what other processes publish (not this process's own messages); register phase only. */
  subscribe(topic: EventTopic, handler: (payload: EventPayload) => void): void;
  /**
   * Whether this process has surely heard what other processes published until a moment ago
   * (the heartbeat's bound, under a second): false while the path is down or its heartbeat is
   * overdue. Always true for `local`. Caches serve nothing while it is false (cacheFreshness.ts).
   */
  trusted(): boolean;
  /** Moves each time trust was lost: what was remembered before may have missed messages. */
  epoch(): number;
  /**
   * Keeps a heartbeat on another signal path: `send` sends a token to this process through it,
   * the caller passes what comes back to `echo`; `overdue` runs when none came back for a while.
   */
  watch(path: string, send: (token: string) => Promise<void>, overdue: () => void): WatchedPath;
  /** Every signal path of this process and whether it is live (for /health). */
  signals(): SignalPathState[];
}

export const eventsBus = defineCapability<EventsBus>()({
  id: 'events.bus',
  cardinality: 'single',
  description: 'Cross-process events that keep caches in step when several runtime processes serve one database: Redis pub/sub, else PostgreSQL LISTEN/NOTIFY.',
});
