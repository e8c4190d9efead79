import type { SideTableAccess } from '../../capabilities/dataDatabase.ts';

/** Deliveries of inbound hooks seen in the last day: a delivery id answers once (docs/automation.md). */
export const DELIVERY_TABLE = 'osr_hook_delivery';
/** How long a delivery id is remembered. */
export const DELIVERY_WINDOW_MS = 24 * 3600 * 1000;

/**
 * The delivery key of a signed request: its signature, remembered like a delivery id, so that a
 * replay of the request (whatever its X-OSR-Delivery) is a duplicate. The space keeps it apart
 * from every delivery id a sender may send (visible ASCII only).
 */
export function signatureDelivery(signature: string): string {
  return `v1 ${signature}`;
}

/** Creates the table when missing (another process may do so at the same time). */
export async function ensureDeliveryTable(db: SideTableAccess): Promise<void> {
  if (await db.knex.schema.hasTable(DELIVERY_TABLE)) return;
  await db.knex.schema.createTable(DELIVERY_TABLE, (table) => {
    table.string('flow', 63).notNullable();
    table.string('delivery_id', 200).notNullable();
    table.string('received_at', 40).notNullable();
    table.string('run_id', 64);
    table.primary(['flow', 'delivery_id']);
    table.index(['received_at']);
  }).catch(async (error: unknown) => {
    if (!(await db.knex.schema.hasTable(DELIVERY_TABLE))) throw error;
  });
}

/**
 * Claims a delivery id for a flow: true when this call is the first within the window (a row
 * older than the window is taken over), false for a duplicate. One statement each way, so two
 * concurrent deliveries of one id claim it once.
 */
export async function claimDelivery(db: SideTableAccess, flow: string, deliveryId: string, now: Date): Promise<boolean> {
  const receivedAt = now.toISOString();
  const inserted = await db.knex(DELIVERY_TABLE).insert({ flow, delivery_id: deliveryId, received_at: receivedAt, run_id: null }).onConflict(['flow', 'delivery_id']).ignore().returning('flow');
  if (inserted.length > 0) return true;
  const cutoff = new Date(now.getTime() - DELIVERY_WINDOW_MS).toISOString();
  const taken = await db.knex(DELIVERY_TABLE).update({ received_at: receivedAt, run_id: null }).where({ flow, delivery_id: deliveryId }).andWhere('received_at', '<', cutoff);
  return taken > 0;
}

/** The run a claimed delivery started (answered to a duplicate). */
export async function recordDeliveryRun(db: SideTableAccess, flow: string, deliveryId: string, runId: string): Promise<void> {
  await db.knex(DELIVERY_TABLE).update({ run_id: runId }).where({ flow, delivery_id: deliveryId });
}

/** The run of a delivery seen before, when it started one. */
export async function deliveryRun(db: SideTableAccess, flow: string, deliveryId: string): Promise<string | null> {
  const row = (await db.knex(DELIVERY_TABLE).select('run_id').where({ flow, delivery_id: deliveryId }).first()) as { run_id: string | null } | undefined;
  return row?.run_id ?? null;
}

/** A delivery whose run could not start (its input was refused): forgotten, so a corrected one may come again. */
export async function releaseDelivery(db: SideTableAccess, flow: string, deliveryId: string): Promise<void> {
  await db.knex(DELIVERY_TABLE).where({ flow, delivery_id: deliveryId }).delete();
}

/** An accepted delivery as operators read it: its flow, the sender's delivery id if any, when, and its run. */
export interface DeliveryListItem {
  flow: string;
  /** The sender's `X-OSR-Delivery`, or null when it sent none. */
  deliveryId: string | null;
  receivedAt: string;
  /** Null while the run is being started. */
  runId: string | null;
}

/** Where a page of deliveries starts: after this one (newest first). */
export interface DeliveryCursor {
  receivedAt: string;
  key: string;
}

/**
 * Accepted deliveries, newest first, `limit` of them after `after`: one per signed request (its
 * signature's row), with the sender's delivery id found through the run both rows name.
 */
export async function listDeliveries(db: SideTableAccess, options: { flow?: string; limit: number; after?: DeliveryCursor }): Promise<{ items: DeliveryListItem[]; next: DeliveryCursor | null }> {
  if (!(await db.knex.schema.hasTable(DELIVERY_TABLE))) return { items: [], next: null };
  const query = db.knex(DELIVERY_TABLE).select('flow', 'delivery_id', 'received_at', 'run_id').where('delivery_id', 'like', 'v1 %');
  if (options.flow) query.andWhere({ flow: options.flow });
  const after = options.after;
  if (after) query.andWhere((w) => w.where('received_at', '<', after.receivedAt).orWhere((same) => same.where('received_at', '=', after.receivedAt).andWhere('delivery_id', '<', after.key)));
  const rows = (await query.orderBy([{ column: 'received_at', order: 'desc' }, { column: 'delivery_id', order: 'desc' }]).limit(options.limit + 1)) as Array<{ flow: string; delivery_id: string; received_at: string; run_id: string | null }>;
  const page = rows.slice(0, options.limit);
  const runs = [...new Set(page.map((r) => r.run_id).filter((id): id is string => id !== null))];
  const named = runs.length === 0 ? [] : (await db.knex(DELIVERY_TABLE).select('flow', 'delivery_id', 'run_id').whereIn('run_id', runs).andWhere('delivery_id', 'not like', 'v1 %')) as Array<{ flow: string; delivery_id: string; run_id: string }>;
  const idOf = new Map(named.map((n) => [`${n.flow}\n${n.run_id}`, n.delivery_id]));
  const items = page.map((r) => ({ flow: r.flow, deliveryId: r.run_id ? idOf.get(`${r.flow}\n${r.run_id}`) ?? null : null, receivedAt: r.received_at, runId: r.run_id }));
  const last = page[page.length - 1];
  return { items, next: rows.length > options.limit && last ? { receivedAt: last.received_at, key: last.delivery_id } : null };
}
