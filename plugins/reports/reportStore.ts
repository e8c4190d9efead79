import type { Principal } from '../../capabilities/authSession.ts';
import type { DataContext, DataEngine, DataRecord } from '../../capabilities/dataEngine.ts';
import { codedError, isCodedError } from '../../kernel/errors.ts';
import type { Schedule } from './reportInput.ts';

export const REPORT_OBJECT = 'sys_report';

/** A stored report as the routes and the delivery job use it. */
export interface StoredReport {
  id: string;
  name: string;
  description: string | null;
  object: string;
  /** A structured query (`object` and the body of POST /data/:object/query) or a use of a dataset (`dataset`, ...). */
  query: Record<string, unknown>;
  shared: boolean;
  ownerId: string;
  schedule: Schedule | null;
  lastDeliveryAt: string | null;
  lastDeliveryError: string | null;
  /** The schedule slot of the delivery under way or last made, and the recipients mailed for it. */
  deliverySlot: string | null;
  deliveredTo: string[];
  createdAt: string;
  updatedAt: string;
  version: number;
}

const json = <T>(value: unknown): T | null => {
  if (value === null || value === undefined) return null;
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
};

export function toStored(row: DataRecord): StoredReport {
  return {
    id: String(row.id),
    name: String(row.name),
    description: (row.description as string | null | undefined) ?? null,
    object: String(row.object),
    query: json(row.query)!,
    shared: row.shared === true || row.shared === 1,
    ownerId: String(row.owner_id),
    schedule: json<Schedule>(row.schedule),
    lastDeliveryAt: (row.last_delivery_at as string | null | undefined) ?? null,
    lastDeliveryError: (row.last_delivery_error as string | null | undefined) ?? null,
    deliverySlot: (row.delivery_slot as string | null | undefined) ?? null,
    deliveredTo: json<string[]>(row.delivered_to) ?? [],
    createdAt: String(row.created_at),
    updatedAt: String(row.updated_at),
    version: Number(row.version),
  };
}

/** Who may read a report: its owner, anyone when it is shared, and admins. */
export const canRead = (report: StoredReport, principal: Principal) => report.ownerId === principal.userId || report.shared || principal.isAdmin;
/** Who may change or delete it: its owner and admins. */
export const canEdit = (report: StoredReport, principal: Principal) => report.ownerId === principal.userId || principal.isAdmin;

/** A report the caller may not read answers exactly like one that does not exist. */
export const reportNotFound = (id: string) => codedError('NOT_FOUND', { what: `Report '${id.slice(0, 64)}'`, id: id.slice(0, 64) });

/**
 * sys_report rows, read and written as engine work (the object is engine-owned: user writes through
 * /data are refused); who may do what is decided here, before each call, from the row's owner.
 */
export function createReportStore(engine: DataEngine) {
  const system = (environmentId: string): DataContext => ({ environmentId, principal: null, system: true });

  async function find(environmentId: string, id: string): Promise<StoredReport | null> {
    try {
      return toStored(await engine.get(REPORT_OBJECT, id, {}, system(environmentId)));
    } catch (error) {
      if (isCodedError(error) && (error.code === 'NOT_FOUND' || error.code === 'VALIDATION_ERROR')) return null;
      throw error;
    }
  }

  return {
    find,

    /** The report when the caller may read it; NOT_FOUND otherwise (never a 403 that would confirm it exists). */
    async readable(environmentId: string, id: string, principal: Principal): Promise<StoredReport> {
      const report = await find(environmentId, id);
      if (!report || !canRead(report, principal)) throw reportNotFound(id);
      return report;
    },

    /** The caller's own reports and the shared ones (admins: every report), by name. */
    async list(environmentId: string, principal: Principal, page: { limit: number; cursor?: string }): Promise<{ items: StoredReport[]; nextCursor: string | null }> {
      const where = principal.isAdmin ? undefined : { $or: [{ owner_id: principal.userId }, { shared: true }] };
      const result = await engine.query(REPORT_OBJECT, {
        ...(where ? { where } : {}), orderBy: 'name', limit: page.limit, ...(page.cursor ? { cursor: page.cursor } : {}),
      }, system(environmentId), { total: false });
      return { items: result.items.map(toStored), nextCursor: result.nextCursor ?? null };
    },

    async create(environmentId: string, ownerId: string, values: { name: string; description?: string | undefined; object: string; query: Record<string, unknown>; shared?: boolean | undefined }): Promise<StoredReport> {
      return toStored(await engine.create(REPORT_OBJECT, {
        owner_id: ownerId,
        name: values.name,
        description: values.description ?? null,
        object: values.object,
        query: values.query,
        shared: values.shared ?? false,
      }, system(environmentId)));
    },

    async update(environmentId: string, id: string, patch: DataRecord, expectedVersion?: number): Promise<StoredReport> {
      return toStored(await engine.update(REPORT_OBJECT, id, patch, expectedVersion === undefined ? {} : { expectedVersion }, system(environmentId)));
    },

    async remove(environmentId: string, id: string): Promise<void> {
      await engine.delete(REPORT_OBJECT, id, {}, system(environmentId));
    },
  };
}

export type ReportStore = ReturnType<typeof createReportStore>;
