import { defineCapability } from './defineCapability.ts';

/** Topics processes tell each other about; each payload names the environment it concerns. */
export type EventTopic =
  /** Permission sets, positions, assignments, shares or sharing rules changed: drop cached grants and plans. */
  | 'access.changed'
  /** Sessions, users or API keys changed: drop cached principals. */
  | 'principals.changed'
  /** An approval process was created: drop the cached set of objects whose records may be locked. */
  | 'approvals.changed'
  /** A committed write of a record (realtime: `data` is the change: object, record id, operation, version). */
  | 'records.changed'
  /** Which objects a process has realtime subscribers for (`data.objects`), so writers elsewhere announce their changes. */
  | 'realtime.interest';

export interface EventPayload {
  environmentId: string;
  /** What the topic carries besides the environment (small: a message is at most 4,000 bytes). */
  data?: Record<string, unknown>;
}

export interface EventsBus {
  /** `redis` (pub/sub), `postgres` (LISTEN/NOTIFY on the main database) or `local` (this process only). */
  readonly transport: 'redis' | 'postgres' | 'local';
  /** Tell every other process; fire and forget (a lost message costs at most a cache TTL). */
  publish(topic: EventTopic, payload: EventPayload): void;
  /** Handle what other processes publish (not this process's own messages); register phase only. */
  subscribe(topic: EventTopic, handler: (payload: EventPayload) => void): void;
}

export const eventsBus = defineCapability<EventsBus>()({
  id: 'events.bus',
  cardinality: 'single',
  description: 'Cross-process events that keep caches in step when several runtime processes serve one database: Redis pub/sub, else PostgreSQL LISTEN/NOTIFY.',
});
