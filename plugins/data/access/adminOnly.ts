/**
 * Engine-owned objects only tenant admins read or write through the generic data paths (list, get,
 * query, aggregates, search, export, reports, MCP, AI tools, joins). Their rows copy values of other
 * objects' records or name them (history: old and new field values; record shares: which record is
 * shared with whom; flow runs: the record, input and step outputs of a run), so other paths filter
 * them by the record's access instead (GET /data/:object/:id/history, GET /data/:object/:id/shares,
 * GET /flows/:flow/runs/:runId); audit events and share links are read by admins alone). A permission set naming one of them grants nothing.
 */
export const ADMIN_ONLY_OBJECTS: ReadonlySet<string> = new Set(['sys_record_history', 'sys_record_share', 'sys_flow_run', 'sys_audit_event', 'sys_share_link']);
