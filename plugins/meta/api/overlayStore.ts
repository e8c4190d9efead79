import type { Principal } from '../../../capabilities/authSession.ts';
import type { DataContext, DataEngine, DataRecord } from '../../../capabilities/dataEngine.ts';
import { HISTORY_OBJECT, OVERLAY_OBJECT } from './overlayObjects.ts';

export interface OverlayKey {
  type: string;
  /** The item the entry belongs to (`account` for `account.industry`). */
  item: string;
  section: string;
  entry: string;
}

export interface OverlayRow {
  section: string;
  entry: string;
  value: unknown;
  updatedAt: string;
  updatedBy: string | null;
}

export interface HistoryEntry {
  id: string;
  section: string;
  name: string;
  action: 'upsert' | 'delete';
  before: unknown;
  after: unknown;
  user: string | null;
  actorKind: string | null;
  at: string;
}

export interface Caller {
  environmentId: string;
  principal: Principal | null;
  requestId?: string;
}

const PAGE = 500;

// The rows are engine-owned: the API has checked the caller, the engine writes as the system (who
// is still recorded from the principal).
const systemContext = (caller: Caller): DataContext => ({ ...caller, system: true });

const toRow = (r: DataRecord): OverlayRow => ({
  section: String(r.section), entry: String(r.entry), value: r.value, updatedAt: String(r.updated_at), updatedBy: (r.updated_by as string | null) ?? null,
});

/** Overlays of the metadata and their audit trail, stored per environment through the data engine. */
export function createOverlayStore(engine: DataEngine) {
  async function rows(where: Record<string, unknown>, caller: Caller): Promise<DataRecord[]> {
    const out: DataRecord[] = [];
    let cursor: string | null | undefined = null;
    do {
      const page = await engine.query(OVERLAY_OBJECT, { where, orderBy: [{ field: 'entry', order: 'asc' }], limit: PAGE, ...(cursor ? { cursor } : {}) }, systemContext(caller), { total: false });
      out.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor);
    return out;
  }

  const find = async (key: OverlayKey, caller: Caller) =>
    (await rows({ item_type: key.type, section: key.section, entry: key.entry }, caller))[0] ?? null;

  return {
    /** Overlays of a type, or of one item of it. */
    async list(type: string, item: string | null, caller: Caller): Promise<Array<OverlayRow & { item: string }>> {
      const found = await rows(item === null ? { item_type: type } : { item_type: type, item_name: item }, caller);
      return found.map((r) => ({ ...toRow(r), item: String(r.item_name) }));
    },

    async get(key: OverlayKey, caller: Caller): Promise<OverlayRow | null> {
      const row = await find(key, caller);
      return row ? toRow(row) : null;
    },

    /** Replace the entry's overlay and record the change, atomically. */
    async upsert(key: OverlayKey, value: unknown, caller: Caller): Promise<void> {
      const ctx = systemContext(caller);
      await engine.transaction(ctx, async (tx) => {
        const existing = (await tx.query(OVERLAY_OBJECT, { where: { item_type: key.type, section: key.section, entry: key.entry }, limit: 1 }, ctx, { total: false })).items[0];
        if (existing) await tx.update(OVERLAY_OBJECT, String(existing.id), { value }, { expectedVersion: Number(existing.version) }, ctx);
        else await tx.create(OVERLAY_OBJECT, { item_type: key.type, item_name: key.item, section: key.section, entry: key.entry, value }, ctx);
        await tx.create(HISTORY_OBJECT, {
          item_type: key.type, item_name: key.item, section: key.section, entry: key.entry, action: 'upsert',
          ...(existing ? { before: existing.value } : {}), after: value, actor_kind: caller.principal?.kind ?? null,
        }, ctx);
      });
    },

    /** Remove the entry's overlay and record it; false when there was none. */
    async remove(key: OverlayKey, caller: Caller): Promise<boolean> {
      const ctx = systemContext(caller);
      return engine.transaction(ctx, async (tx) => {
        const existing = (await tx.query(OVERLAY_OBJECT, { where: { item_type: key.type, section: key.section, entry: key.entry }, limit: 1 }, ctx, { total: false })).items[0];
        if (!existing) return false;
        await tx.delete(OVERLAY_OBJECT, String(existing.id), { expectedVersion: Number(existing.version) }, ctx);
        await tx.create(HISTORY_OBJECT, {
          item_type: key.type, item_name: key.item, section: key.section, entry: key.entry, action: 'delete',
          before: existing.value, actor_kind: caller.principal?.kind ?? null,
        }, ctx);
        return true;
      });
    },

    /** Changes of one item, newest first, a page at a time. */
    async history(type: string, item: string, page: { limit: number; cursor?: string }, caller: Caller): Promise<{ items: HistoryEntry[]; nextCursor: string | null }> {
      const result = await engine.query(HISTORY_OBJECT, {
        where: { item_type: type, item_name: item },
        orderBy: [{ field: 'created_at', order: 'desc' }, { field: 'id', order: 'desc' }],
        limit: page.limit,
        ...(page.cursor ? { cursor: page.cursor } : {}),
      }, systemContext(caller), { total: false });
      return {
        items: result.items.map((r) => ({
          id: String(r.id), section: String(r.section), name: String(r.entry), action: r.action as 'upsert' | 'delete',
          before: r.before ?? null, after: r.after ?? null, user: (r.created_by as string | null) ?? null,
          actorKind: (r.actor_kind as string | null) ?? null, at: String(r.created_at),
        })),
        nextCursor: result.nextCursor ?? null,
      };
    },
  };
}

export type OverlayStore = ReturnType<typeof createOverlayStore>;
