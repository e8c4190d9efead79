/**
 * Engine-owned objects only tenant admins read or write through the generic data paths (list, get,
 * query, aggregates, search, export, reports, MCP, AI tools, joins). Their rows copy values of other
 * objects' records (history: old and new field values), so another path filters them by the
 * record's access and field-level security instead (GET /data/:object/:id/history). A permission
 * set naming one of them grants nothing.
 */
export const ADMIN_ONLY_OBJECTS: ReadonlySet<string> = new Set(['sys_record_history']);
