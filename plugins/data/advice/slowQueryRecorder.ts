import { shapeKey, type IndexShape } from './indexShape.ts';

/** One slow query shape of an environment, with how often and how slowly it ran. */
export interface SlowShape {
  shape: IndexShape;
  count: number;
  totalMs: number;
  maxMs: number;
  /** Epoch ms of its last slow run. */
  lastAt: number;
}

export interface SlowQueryRecorder {
  /** The threshold in ms: runs at least this slow are recorded. */
  readonly thresholdMs: number;
  /** Records one run of `shape` that took `ms` (ignored under the threshold); true when the shape is new to the environment. */
  record(environmentId: string, shape: IndexShape, ms: number): boolean;
  /** The environment's slow shapes, slowest in total first. */
  shapes(environmentId: string): SlowShape[];
}

/** Shapes kept per environment; past this many, the one least recently slow goes. */
export const SLOW_SHAPES_PER_ENVIRONMENT = 200;

/** A bounded in-memory recorder of slow query shapes (memory: at most `maxShapes` entries per environment). */
export function createSlowQueryRecorder(thresholdMs: number, maxShapes = SLOW_SHAPES_PER_ENVIRONMENT, now: () => number = Date.now): SlowQueryRecorder {
  const envs = new Map<string, Map<string, SlowShape>>();
  return {
    thresholdMs,
    record(environmentId, shape, ms) {
      if (ms < thresholdMs) return false;
      let shapes = envs.get(environmentId);
      if (!shapes) envs.set(environmentId, (shapes = new Map()));
      const key = shapeKey(shape);
      const known = shapes.get(key);
      // Re-inserted on every hit: the Map's first entry is the least recently slow.
      if (known) shapes.delete(key);
      else if (shapes.size >= maxShapes) shapes.delete(shapes.keys().next().value!);
      const entry = known ?? { shape, count: 0, totalMs: 0, maxMs: 0, lastAt: 0 };
      entry.count++;
      entry.totalMs += ms;
      entry.maxMs = Math.max(entry.maxMs, ms);
      entry.lastAt = now();
      shapes.set(key, entry);
      return known === undefined;
    },
    shapes(environmentId) {
      return [...(envs.get(environmentId)?.values() ?? [])].sort((a, b) => b.totalMs - a.totalMs);
    },
  };
}
