import { CacheFreshness } from '../../capabilities/cacheFreshness.ts';
import type { EventsBus } from '../../capabilities/eventsBus.ts';
/** How long another process's new process may go unseen here when its bus message is lost. */
export const LOCKED_OBJECTS_TTL_MS = 5_000;
/** Stored processes read at once; with more, every object is treated as having one. */
const MAX_STORED = 200;

interface Entry { objects: ReadonlySet<string> | 'all'; loadedAt: number }

export interface LockedObjectsDeps {
  /** Objects of the declared processes; undefined until they are loaded (every object may lock). */
  declared: () => ReadonlySet<string> | undefined;
  /** The `object` of up to `limit` stored processes of an environment. */
  stored: (environmentId: string, limit: number) => Promise<string[]>;
  ttlMs?: number;
  now?: () => number;
  /** Nothing is trusted while the bus cannot vouch for having heard other processes (cacheFreshness.ts). */
  bus?: Pick<EventsBus, 'trusted' | 'epoch'>;
}

/**
 * Which objects of an environment have an approval process (declared or stored): a record of any
 * other object cannot have a request, so its writes skip the lock's query. Processes are only ever
 * added; one created or read here is known at once, one created in another process once the bus
 * message arrives or at most `ttlMs` later.
 */
export function createLockedObjects(deps: LockedObjectsDeps) {
  const ttl = deps.ttlMs ?? LOCKED_OBJECTS_TTL_MS;
  const now = deps.now ?? Date.now;
  const entries = new Map<string, Entry>();
  const loads = new Map<string, Promise<Entry>>();
  // A load that started before a change does not store its result.
  const freshness = new CacheFreshness(deps.bus, () => {
    entries.clear();
    loads.clear();
  });

  function load(environmentId: string): Promise<Entry> {
    const running = loads.get(environmentId);
    if (running) return running;
    const mark = freshness.mark();
    const started = now();
    const promise = deps.stored(environmentId, MAX_STORED).then((objects) => {
      const entry: Entry = { objects: objects.length >= MAX_STORED ? 'all' : new Set(objects), loadedAt: started };
      if (freshness.holds(environmentId, mark)) entries.set(environmentId, entry);
      return entry;
    }).finally(() => loads.delete(environmentId));
    loads.set(environmentId, promise);
    return promise;
  }

  function invalidate(environmentId: string): void {
    freshness.changed(environmentId);
    entries.delete(environmentId);
    loads.delete(environmentId);
  }

  return {
    /** Whether a record of `object` may have a request (and so its writes must be checked). */
    mayLock(environmentId: string, object: string): boolean {
      const declared = deps.declared();
      if (!declared || declared.has(object) || !freshness.usable()) return true;
      const entry = entries.get(environmentId);
      if (!entry || now() - entry.loadedAt >= ttl) {
        // Not known (or stale): check this write, and learn the set in the background. The write
        // never waits for the load: it holds a pooled connection in its transaction, and writes
        // waiting on a load that waits for a free connection would hold every one of them.
        load(environmentId).catch(() => undefined);
        return true;
      }
      return entry.objects === 'all' || entry.objects.has(object);
    },
    /** A process of `object` exists (created or read here): known at once. */
    add(environmentId: string, object: string): void {
      const entry = entries.get(environmentId);
      invalidate(environmentId);
      if (entry && entry.objects !== 'all') entries.set(environmentId, { objects: new Set([...entry.objects, object]), loadedAt: entry.loadedAt });
    },
    invalidate,
  };
}

export type LockedObjects = ReturnType<typeof createLockedObjects>;
