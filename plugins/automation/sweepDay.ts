import type { DataContext, DataEngine, DataRecord } from '../../capabilities/dataEngine.ts';
import type { SideTableAccess } from '../../capabilities/dataDatabase.ts';
import type { FlowsRunner } from '../../capabilities/flowsRunner.ts';
import type { SweepSlot } from '../../capabilities/automationSweep.ts';
import type { ResolvedFlow } from '../../metadata/flowTypes.ts';

/** Marks of the records each time-relative flow was started for, per slot: a record starts once per slot. */
export const SWEEP_TABLE = 'osr_flow_sweep';
/** Records read per page while sweeping. */
const PAGE = 200;
const DAY_MS = 86_400_000;

export const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** `YYYY-MM-DD` plus `days` (UTC). */
export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/** The slots of a flow on a day: for each offset the day its field must hold, or the window. */
export function slotsOf(flow: ResolvedFlow, date: string): Array<{ slot: string; from: string; to: string }> {
  const relative = flow.start?.timeRelative;
  if (!relative) return [];
  if (relative.withinDays !== undefined) return [{ slot: `within:${relative.withinDays}`, from: date, to: addDays(date, relative.withinDays) }];
  // The flow starts on field + offset: on `date`, the records whose field is date - offset.
  return (relative.offsetDays ?? []).map((offset) => {
    const day = addDays(date, -offset);
    return { slot: `offset:${offset}`, from: day, to: day };
  });
}

/** The condition on the date field: its value within [from, to] days (a datetime field by instants, UTC). */
export function dayCondition(field: string, type: string, from: string, to: string): Record<string, unknown> {
  if (type === 'date') return from === to ? { [field]: from } : { [field]: { $gte: from, $lte: to } };
  return { [field]: { $gte: `${from}T00:00:00.000Z`, $lt: `${addDays(to, 1)}T00:00:00.000Z` } };
}

export async function ensureSweepTable(db: SideTableAccess): Promise<void> {
  if (await db.knex.schema.hasTable(SWEEP_TABLE)) return;
  await db.knex.schema.createTable(SWEEP_TABLE, (table) => {
    table.string('flow', 63).notNullable();
    table.string('record_id', 64).notNullable();
    table.string('slot', 40).notNullable();
    table.string('run_id', 64);
    table.string('started_at', 40).notNullable();
    table.primary(['flow', 'record_id', 'slot']);
  }).catch(async (error: unknown) => {
    if (!(await db.knex.schema.hasTable(SWEEP_TABLE))) throw error;
  });
}

export interface SweepDeps {
  engine: DataEngine;
  runner: FlowsRunner;
  /** Side-table access of the environment (the marks). */
  withDb<T>(work: (db: SideTableAccess) => Promise<T>): Promise<T>;
  fieldType(object: string, field: string): string;
  onFailure(flow: string, recordId: string, error: unknown): void;
}

/**
 * One flow, one slot, one environment: every matching record (read in the system context, page by
 * page) not yet marked for the slot is started with the record as `record`, then marked. The start
 * carries an idempotency key made of the slot and the record, so a sweep stopped between a start
 * and its mark starts nothing twice when it runs again.
 */
export async function sweepSlot(deps: SweepDeps, environmentId: string, flow: ResolvedFlow, slot: { slot: string; from: string; to: string }): Promise<SweepSlot> {
  const relative = flow.start!.timeRelative!;
  const out: SweepSlot = { ...slot, matched: 0, started: 0, already: 0, failed: 0 };
  const ctx: DataContext = { environmentId, principal: null, system: true };
  const where = dayCondition(relative.field, deps.fieldType(relative.object, relative.field), slot.from, slot.to);
  let cursor: string | null = null;
  do {
    const page = await deps.engine.query(relative.object, { where, orderBy: ['id'], limit: PAGE, ...(cursor ? { cursor } : {}) }, ctx, { total: false });
    cursor = page.nextCursor ?? null;
    const ids = page.items.map((r) => String(r.id));
    out.matched += ids.length;
    const marked = new Set(await deps.withDb(async (db) => (await db.knex(SWEEP_TABLE).select('record_id').where({ flow: flow.name, slot: slot.slot }).whereIn('record_id', ids)).map((r: { record_id: string }) => r.record_id)));
    for (const record of page.items as DataRecord[]) {
      const id = String(record.id);
      if (marked.has(id)) {
        out.already++;
        continue;
      }
      try {
        const { runId } = await deps.runner.start(flow.name, {}, { environmentId, principal: null, record, trigger: 'timeRelative', idempotencyKey: `${slot.slot}:${id}` });
        await deps.withDb((db) => db.knex(SWEEP_TABLE).insert({ flow: flow.name, record_id: id, slot: slot.slot, run_id: runId, started_at: new Date().toISOString() }).onConflict(['flow', 'record_id', 'slot']).ignore());
        out.started++;
      } catch (error) {
        out.failed++;
        deps.onFailure(flow.name, id, error);
      }
    }
  } while (cursor !== null);
  return out;
}
