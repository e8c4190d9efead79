import type { Knex } from 'knex';
import type { DataEngine } from '../../../capabilities/dataEngine.ts';

/** A transaction the engine is bound to: every call runs inside it. */
export interface Binding {
  environmentId: string;
  trx: Knex.Transaction;
}

// The transaction of each bound engine, out of the engine's own reach: raw SQL in it is for
// holders of `data.database` (createDataDatabase.ts), not for every holder of an engine.
const bindings = new WeakMap<DataEngine, Binding>();

/** Records that `engine` (made by createDataEngine) is bound to `binding`. */
export function bindEngine(engine: DataEngine, binding: Binding): void {
  bindings.set(engine, binding);
}

/** The transaction an engine made by createDataEngine is bound to, if any. */
export function bindingOf(engine: DataEngine): Binding | undefined {
  return bindings.get(engine);
}
