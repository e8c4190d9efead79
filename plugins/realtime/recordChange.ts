/** What happened to a record, as every process's realtime feed knows it: no field values. */
export interface RecordChange {
  /** Unique across processes and increasing within the process that wrote: `<ms>-<process>-<seq>`; the SSE event id. */
  id: string;
  environmentId: string;
  object: string;
  recordId: string;
  op: 'created' | 'updated' | 'deleted';
  /** The record's version after the write (null for a delete). */
  version: number | null;
  /** When the write committed (ms since the epoch, the writer's clock). */
  at: number;
  /**
   * The writer's read-your-writes token once the write committed (`data.writeTokens`), where its
   * process has one: a process that has not heard that write yet reads the record from the
   * database, not from what it remembered before (its own signal may arrive after this message).
   */
  token?: string;
}

const OPS = new Set(['created', 'updated', 'deleted']);

/** A change as another process sent it on the bus, checked field by field (anything else is dropped). */
export function changeFrom(environmentId: string, data: Record<string, unknown> | undefined): RecordChange | null {
  if (!data) return null;
  const { id, object, recordId, op, version, at, token } = data;
  if (typeof id !== 'string' || id.length > 100 || typeof object !== 'string' || typeof recordId !== 'string' || typeof op !== 'string' || !OPS.has(op)) return null;
  if (typeof at !== 'number' || !(version === null || typeof version === 'number')) return null;
  if (token !== undefined && (typeof token !== 'string' || token.length > 200)) return null;
  return { id, environmentId, object, recordId, op: op as RecordChange['op'], version, at, ...(token !== undefined ? { token } : {}) };
}
