import type { DataEngine } from '../../../capabilities/dataEngine.ts';
import type { MetadataRegistry } from '../../../capabilities/metadataRegistry.ts';
import type { AutoIndexUse } from './autoIndexUse.ts';
import { indexShapeOf } from './indexShape.ts';
import type { SlowQueryRecorder } from './slowQueryRecorder.ts';

/**
 * The engine with its list and query reads timed: a read that took at least the recorder's
 * threshold has its shape (indexShape.ts) recorded for index advice. The shape is only worked
 * out for slow reads, so a fast read costs two clock readings. With `use` (autoIndex), a read of an
 * object holding an automatic index also has its shape noted there, fast or slow, so an index
 * still serving reads is not dropped as unused.
 */
export function recordSlowQueries(engine: DataEngine, recorder: SlowQueryRecorder, metadata: Pick<MetadataRegistry, 'object'>, onSlow?: (environmentId: string) => void, use?: AutoIndexUse): DataEngine {
  const query: DataEngine['query'] = (name, input, ctx, options) => {
    const started = performance.now();
    const answer = engine.query(name, input, ctx, options);
    return answer.then((result) => {
      const ms = performance.now() - started;
      if (use?.watching(ctx.environmentId, name)) {
        const object = metadata.object(name);
        const shape = object ? indexShapeOf(input, object) : null;
        if (shape) use.note(ctx.environmentId, shape, Date.now());
      }
      if (ms >= recorder.thresholdMs) {
        const object = metadata.object(name);
        const shape = object ? indexShapeOf(input, object) : null;
        if (shape) {
          // A new shape may want a new index (autoIndex): known shapes were considered already.
          if (recorder.record(ctx.environmentId, shape, ms)) onSlow?.(ctx.environmentId);
        }
      }
      return result;
    });
  };
  return { ...engine, query };
}
