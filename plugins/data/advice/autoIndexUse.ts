import type { IndexShape } from './indexShape.ts';

/** An automatic index as the use tracker knows it. */
export interface WatchedIndex {
  name: string;
  object: string;
  columns: readonly string[];
}

/**
 * Which automatic indexes the engine's reads used since the last sweep, in memory (at most one
 * entry per automatic index). Only reads of an object holding an automatic index are looked at, so
 * reads of other objects cost one map lookup.
 */
export interface AutoIndexUse {
  /** Whether the environment's object holds an automatic index (its reads are worth a shape). */
  watching(environmentId: string, object: string): boolean;
  /** Notes a read of `shape`: every automatic index it may use is marked used at `at`. */
  note(environmentId: string, shape: IndexShape, at: number): void;
  watch(environmentId: string, index: WatchedIndex): void;
  unwatch(environmentId: string, name: string): void;
  /** The uses noted since the last take (index name -> epoch ms of the last), and forgets them. */
  take(environmentId: string): Map<string, number>;
}

/**
 * Whether a read of `shape` may use an index on `columns`: its first column is one the read fixes or
 * bounds, or the read's first sort. Generous on purpose: an index kept by mistake costs writes, one
 * dropped by mistake costs the reads it served.
 */
export function shapeMayUse(shape: IndexShape, columns: readonly string[]): boolean {
  const first = columns[0];
  if (first === undefined) return false;
  return shape.equality.includes(first) || shape.range.includes(first) || shape.sort[0]?.column === first;
}

export function createAutoIndexUse(): AutoIndexUse {
  const watched = new Map<string, Map<string, WatchedIndex[]>>();
  const used = new Map<string, Map<string, number>>();
  return {
    watching: (environmentId, object) => (watched.get(environmentId)?.get(object)?.length ?? 0) > 0,
    note(environmentId, shape, at) {
      const indexes = watched.get(environmentId)?.get(shape.object) ?? [];
      for (const index of indexes) {
        if (!shapeMayUse(shape, index.columns)) continue;
        let marks = used.get(environmentId);
        if (!marks) used.set(environmentId, (marks = new Map()));
        marks.set(index.name, at);
      }
    },
    watch(environmentId, index) {
      let objects = watched.get(environmentId);
      if (!objects) watched.set(environmentId, (objects = new Map()));
      const list = (objects.get(index.object) ?? []).filter((i) => i.name !== index.name);
      objects.set(index.object, [...list, index]);
    },
    unwatch(environmentId, name) {
      const objects = watched.get(environmentId);
      for (const [object, list] of objects ?? []) objects!.set(object, list.filter((i) => i.name !== name));
      used.get(environmentId)?.delete(name);
    },
    take(environmentId) {
      const marks = used.get(environmentId) ?? new Map<string, number>();
      used.delete(environmentId);
      return marks;
    },
  };
}
