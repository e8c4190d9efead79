import { boundedDetails } from './boundedDetails.ts';
import { bootReport } from './bootReport.ts';

/**
 * The one registry of error codes. Every error the runtime raises, at boot or on a request,
 * is a CodedError whose code is a key of ERRORS. Messages are templates: `{name}` is filled
 * from the error's details, so a test can assert both the code and the sentence.
 */
export interface ErrorDefinition {
  /** HTTP status when the error reaches a client; boot errors use 500. */
  status: number;
  /** Message template; `{key}` is replaced by details[key]. */
  message: string;
}

export const ERRORS = {
  // Request errors (the closed list of the HTTP interface, then specific ones).
  UNAUTHENTICATED: { status: 401, message: 'Authentication required: send a session cookie, a bearer token or an API key.' },
  PERMISSION_DENIED: { status: 403, message: 'Permission denied: {permission} is required.' },
  VALIDATION_ERROR: { status: 400, message: 'The request is not valid: {summary}' },
  NOT_FOUND: { status: 404, message: '{what} was not found.' },
  ROUTE_NOT_FOUND: { status: 404, message: 'No route {method} {path}. GET /api/v1 lists the routes.' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'Operation {operation} is not enabled on object {object}.' },
  CONCURRENT_UPDATE: { status: 409, message: 'The record was changed by someone else: expected version {expectedVersion}, current version {currentVersion}. Reload it and try again.' },
  CONFLICT: { status: 409, message: '{summary}' },
  RATE_LIMITED: { status: 429, message: 'Too many requests: retry after {retryAfter} seconds.' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'The request body is larger than the limit of {limit} bytes.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'Content type {contentType} is not supported: send application/json.' },
  MALFORMED_JSON: { status: 400, message: 'The request body is not valid JSON: {reason}' },
  BAD_CURSOR: { status: 400, message: 'The cursor is not valid for this query: {reason}. Start again without a cursor.' },
  PASSWORD_EXPIRED: { status: 403, message: 'The password of this account must be changed before it can be used: POST /api/v1/auth/change-password { "currentPassword", "newPassword" } with this credential.' },
  FEEDS_DISABLED: { status: 403, message: 'Comments are disabled on object {object} (enable.feeds is false).' },
  FILES_DISABLED: { status: 403, message: 'Files are disabled on object {object}: set enable.files to true.' },
  FILE_TYPE_NOT_ALLOWED: { status: 415, message: 'Files of type {contentType} are not accepted here; allowed: {allowed} (plugins.files.allowedTypes).' },
  ACTIVITIES_DISABLED: { status: 403, message: 'The activity timeline is disabled on object {object}: remove enable.activities: false from its declaration (engine-owned objects have none).' },
  SYSTEM_OBJECT_READ_ONLY: { status: 403, message: 'Object {object} is owned by the engine and is read-only through the data API.' },
  SERVICE_UNAVAILABLE: { status: 503, message: '{service} is unavailable: {reason}. Retry shortly.' },
  // Off by configuration: retrying changes nothing until the operator turns it on.
  SERVICE_OFF: { status: 503, message: '{service} is turned off: {reason}. Fix: {fix}' },
  REQUEST_TIMEOUT: { status: 408, message: 'The request was not fully received within {timeoutMs} ms; the connection was closed.' },
  HEADERS_TOO_LARGE: { status: 431, message: 'The request headers are larger than the server accepts.' },
  MALFORMED_REQUEST: { status: 400, message: 'The HTTP request could not be parsed: {reason}' },
  URI_TOO_LONG: { status: 414, message: 'A segment of the URL path is longer than {limit} characters: shorten it (send long values in a query body instead).' },
  INTERNAL: { status: 500, message: 'An internal error occurred. Quote request id {requestId} when reporting it.' },

  // Identity.
  IMPORT_TOO_LARGE: { status: 400, message: 'The import holds {count} rows; at most {max} are accepted per request. Split it into smaller files.' },
  EMAIL_NOT_CONFIGURED: { status: 500, message: 'Email delivery is not configured: {reason}. Fix: {fix}' },
  SMS_NOT_CONFIGURED: { status: 500, message: 'SMS delivery is not configured: {reason}. Fix: {fix}' },
  SETTINGS_NOT_APPLIED: { status: 400, message: "Settings namespace '{namespace}' is read by no plugin running here: nothing would change. Fix: {fix}" },
  SETTINGS_HOST_REFUSED: { status: 400, message: "The settings at {path} choose host '{host}', {reason}. Fix: {fix}" },
  SMS_PROVIDER_ERROR: { status: 502, message: 'The SMS provider {provider} did not accept the message: {reason}.' },
  PHONE_NUMBER_INVALID: { status: 400, message: 'The phone number is not valid: {reason}. Send it in international E.164 form, such as +4915112345678.' },

  // Access control.
  DELEGATION_NOT_ALLOWED: { status: 403, message: 'Position {position} cannot be delegated: {reason}' },
  DELEGATION_INVALID: { status: 400, message: 'The delegation is not valid: {reason}' },
  SCOPE_DENIED: { status: 403, message: 'The credential is limited to scopes {granted}; {operation} needs {scope}. Fix: {fix}' },
  ORGANIZATION_MISMATCH: { status: 403, message: 'A record of {object} cannot be placed in another organization than the session\'s.' },

  // Configuration.
  CONFIG_INVALID: { status: 500, message: 'Configuration is not valid at {path}: {reason}' },
  CONFIG_NOT_FOUND: { status: 500, message: 'Configuration file {file} was not found.' },
  SECRET_REQUIRED: { status: 500, message: 'OS_AUTH_SECRET is required when NODE_ENV=production. Set it to a long random value (at least 32 characters).' },
  METADATA_INVALID: { status: 500, message: 'Metadata is not valid in {file} at {path}: {reason}' },
  WORKERS_IN_MEMORY_DATABASE: { status: 500, message: "osr start --workers {workers} cannot serve environment '{environment}': its database ({url}) is an in-memory SQLite database, which lives inside one process, so every worker would have a database of its own. Fix: {fix}" },

  // Kernel boot.
  KERNEL_BOOT_FAILED: { status: 500, message: 'The runtime could not boot ({count} problem(s)):\n{lines}' },
  KERNEL_INVALID_MANIFEST: { status: 500, message: "Plugin '{plugin}' has an invalid manifest at {path}: {reason}. Fix: {fix}" },
  KERNEL_DUPLICATE_PLUGIN: { status: 500, message: "Plugin name '{plugin}' is used by two plugins ({sources}). Fix: {fix}" },
  KERNEL_UNKNOWN_TOKEN: { status: 500, message: "Plugin '{plugin}' names unknown capability '{token}' in {field}. Fix: {fix}" },
  KERNEL_TOKEN_NOT_PROVIDED: { status: 500, message: "Plugin '{plugin}' requires '{token}', but no plugin provides it. Fix: {fix}" },
  KERNEL_PROVIDER_DISABLED: { status: 500, message: "Plugin '{plugin}' requires '{token}', whose provider '{provider}' is disabled. Fix: {fix}" },
  KERNEL_TOKEN_NOT_GRANTED: { status: 500, message: "Plugin '{plugin}' requires '{token}', which the configuration does not grant it (provider: '{provider}'). Fix: {fix}" },
  KERNEL_DUPLICATE_PROVIDER: { status: 500, message: "Capability '{token}' takes one provider, but '{provider}' and '{other}' both provide it. Fix: {fix}" },
  KERNEL_DEPENDENCY_CYCLE: { status: 500, message: 'Plugins depend on each other in a cycle: {cycle}. Fix: {fix}' },
  KERNEL_CONTINUE_NOT_ALLOWED: { status: 500, message: "Plugin '{plugin}' sets onBootFailure 'continue', but '{dependent}' requires its '{token}'. Fix: {fix}" },
  KERNEL_PROTOCOL_INCOMPATIBLE: { status: 500, message: "{kind} '{plugin}' {version} targets protocol '{range}', but this runtime speaks protocol {protocol}. Fix: {fix}" },
  KERNEL_INVALID_OPTIONS: { status: 500, message: "Options of plugin '{plugin}' are not valid at {path}: {reason}. Fix: {fix}" },
  KERNEL_UNDECLARED_LOOKUP: { status: 500, message: "Plugin '{plugin}' looked up '{token}', which it does not declare in requires or optional. Fix: {fix}" },
  KERNEL_NOT_PROVIDED_BY: { status: 500, message: "Plugin '{plugin}' provided '{token}', which its manifest does not list in provides. Fix: {fix}" },
  KERNEL_PROVIDE_MISSING: { status: 500, message: "Plugin '{plugin}' declares that it provides '{token}' but did not provide it during register. Fix: {fix}" },
  KERNEL_UNKNOWN_HOOK: { status: 500, message: "Plugin '{plugin}' registered a handler for unknown hook '{hook}'. Fix: {fix}" },
  KERNEL_INVALID_RETENTION: { status: 500, message: "Plugin '{plugin}' declared an invalid retention contract at {path}: {reason}. Fix: {fix}" },
  KERNEL_PHASE_FAILED: { status: 500, message: "Plugin '{plugin}' failed in {phase}: {reason}. Fix: {fix}" },
  KERNEL_PHASE_TIMEOUT: { status: 500, message: "Plugin '{plugin}' did not finish {phase} within {timeoutMs} ms. Fix: {fix}" },
  KERNEL_DEPENDENCY_FAILED: { status: 500, message: "Plugin '{plugin}' was not started because '{provider}', which provides its '{token}', failed. Fix: {fix}" },
  KERNEL_FROZEN: { status: 500, message: "Plugin '{plugin}' tried to {action} after the runtime started; the kernel is frozen. Fix: {fix}" },
  KERNEL_PLUGIN_LOAD_FAILED: { status: 500, message: "Plugin '{plugin}' could not be loaded from {source}: {reason}. Fix: {fix}" },

  // Data engine.
  SCHEMA_CHANGE_REFUSED: { status: 500, message: 'Schema sync refused {count} destructive change(s), which would lose data:\n{lines}\nFix: {fix}' },
  SHARED_WRITERS: { status: 500, message: "Environment '{environment}' (schema {schema}): {roles} may write its tables, and their writes send no change notification while remembered reads are on. Fix: after their writes run `NOTIFY {channel}` (every process forgets what it remembered), or set plugins.data.countCache: 'off' to remember nothing." },
  QUERY_TOO_COSTLY: { status: 400, message: 'The query costs more than this server allows: {reason}. Fix: {fix}' },
  IMPORT_REJECTED: { status: 400, message: 'Nothing was imported: {failed} of {total} rows are not valid (first: {first}). details.errors lists every row; fix them, or send atomic: false to import the valid rows only.' },
  // Jobs.
  JOBS_UNAVAILABLE: { status: 503, message: "Redis did not answer within {timeoutMs} ms, so job '{name}' may not be queued: it is queued if Redis takes the add later, which this answer cannot tell. Fix: try again; a job sent with an idempotencyKey queues once however often it is sent." },
  JOBS_BACKEND_TIMEOUT: { status: 503, message: 'Redis did not answer within {timeoutMs} ms ({operation}), so nothing was read or changed that this answer can tell. Fix: try again once Redis answers.' },
  JOB_UNKNOWN_NAME: { status: 400, message: "No handler is registered for job '{name}': a plugin registers it with jobs.queue's handle() in its register phase." },
  JOB_OPTIONS_INVALID: { status: 400, message: 'The job options are not valid: {reason}' },
  JOB_NOT_DEAD: { status: 409, message: 'Job {id} is {state}, not dead: only a dead job can be retried.' },

  // Actions.
  ACTION_HANDLER_MISSING: { status: 500, message: "Action '{action}' ({file}) runs a handler, but no plugin registered one. Fix: {fix}" },
  ACTION_HANDLER_UNDECLARED: { status: 500, message: "A handler was registered for action '{action}', but {reason}. Fix: {fix}" },

  // Public forms.
  FORM_UNAVAILABLE: { status: 503, message: "Form '{slug}' cannot take submissions right now: {reason}. An administrator must fix the form's runAs (docs/forms.md)." },
  // Inbound hooks.
  HOOK_SECRET_UNSET: { status: 500, message: "Flow '{flow}' takes signed calls at POST /api/v1/automation/hooks/{flow}/{hookId}, but the environment variable {env} (its hook.secretEnv) is not set, so every call is refused with 401. Fix: set {env} to the secret the sender signs with, in the environment of every process." },
  HOOK_SIGNATURE_INVALID: { status: 401, message: 'The hook call is not signed as expected ({reason}). Fix: send X-OSR-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" with the hook\'s secret>, made within 300 seconds.' },

  // Flows.
  FLOW_NOT_STARTABLE: { status: 409, message: "Flow '{flow}' is a {kind} flow: {reason}. Fix: {fix}" },
  FLOW_RUN_FINISHED: { status: 409, message: "Run {runId} of flow '{flow}' is {status}: only a running or waiting run can be cancelled." },
  FLOW_HTTP_REFUSED: { status: 400, message: "The http step may not call {url}: {reason}. Fix: {fix}" },
  FLOW_STEP_FAILED: { status: 500, message: "Step '{step}' of flow '{flow}' failed: {reason}" },
  FLOW_RUN_JOB_DEAD: { status: 500, message: "The job running this run of flow '{flow}' failed for good: {reason}. Fix: {fix}" },
  FLOW_RUNNER_MISSING: { status: 500, message: "Action '{action}' ({file}) starts flow '{flow}', but no flows plugin runs flows. Fix: {fix}" },
  // Approvals.
  INVALID_STATE: { status: 409, message: 'Not possible in the current state: {reason}' },
  RECORD_LOCKED: { status: 409, message: 'Record {object} {id} is locked while approval request {requestId} is pending: only the approvers of its current step may change it. Fix: wait for the decision, or recall the request (its submitter).' },
  APPROVAL_NO_APPROVERS: { status: 409, message: "Step '{step}' of approval process '{process}' has no eligible approver (the submitter never approves its own request). Fix: assign its positions to users, or change the process." },
  // AI.
  AI_PROVIDER_ERROR: { status: 502, message: 'The AI provider {provider} failed: {reason}. Retry later, or check the provider and plugins.ai.providers.' },
  AI_TIMEOUT: { status: 504, message: 'The AI provider {provider} did not answer within {timeoutMs} ms. Retry, or raise plugins.ai.requestTimeoutMs.' },
  AI_MODEL_UNKNOWN: { status: 400, message: "Unknown model '{model}': name one as <provider>/<model>; known models: {known}." },
  AI_NOT_CONFIGURED: { status: 500, message: 'The AI plugin is not configured: {reason}. Fix: {fix}' },
  AI_ACTION_DECIDED: { status: 409, message: 'Pending action {id} is {status}: only a pending action can be approved or rejected.' },
  AI_SELF_APPROVAL: { status: 403, message: 'Pending action {id} was proposed in your own conversation: another holder of ai:approve must approve it (a single-person setup may set plugins.ai.allowSelfApproval: true).' },
  AI_ACCESS_OBJECT_UNDECLARED: { status: 403, message: "Agent '{agent}' may not propose to {kind} a record of {object}: it is an access object (permissions, positions, sharing). Declare it in the agent's accessObjects to allow it." },
  // Audit trail.
  AUDIT_ACTION_UNKNOWN: { status: 500, message: "Plugin code recorded the audit action '{action}', which is not in the closed list. Fix: record one of {known} (capabilities/auditRecord.ts), or add the action there with its documentation in docs/audit.md." },
  // Share links.
  SHARE_LINK_INVALID: { status: 400, message: 'The share link cannot be made: {reason}. Fix: {fix}' },
  // MCP server.
  MCP_HOST_NOT_ALLOWED: { status: 403, message: 'Host {host} may not reach the MCP endpoint (DNS-rebinding protection). Fix: {fix}' },
  MCP_ORIGIN_NOT_ALLOWED: { status: 403, message: 'Origin {origin} may not reach the MCP endpoint (DNS-rebinding protection). Fix: {fix}' },
  MCP_SESSION_REQUIRED: { status: 400, message: '{reason}: send the mcp-session-id header that initialize answered, or start a session with an initialize request.' },
  MCP_SESSION_NOT_FOUND: { status: 404, message: 'MCP session {sessionId} was not found: it ended, expired or belongs to another credential. Start a new session with initialize.' },
  MCP_RESULT_TOO_LARGE: { status: 400, message: 'The result of {tool} is {size} characters, over the limit of {limit}. Fix: ask for fewer fields or a smaller limit.' },
  MCP_STDIO_DISABLED: { status: 500, message: 'The MCP stdio mode is off: {reason}. Fix: {fix}' },
  MCP_STDIO_KEY_INVALID: { status: 500, message: 'OS_MCP_STDIO_API_KEY {reason}. Fix: {fix}' },
} as const satisfies Record<string, ErrorDefinition>;

export type ErrorCode = keyof typeof ERRORS;
export type ErrorDetails = Record<string, unknown>;

function fill(template: string, details: ErrorDetails): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) => {
    const value = details[key];
    if (value === undefined) return whole;
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
}

export function formatErrorMessage(code: ErrorCode, details: ErrorDetails = {}): string {
  return fill(ERRORS[code].message, details);
}

export class CodedError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails;
  readonly status: number;

  constructor(code: ErrorCode, details: ErrorDetails = {}, message?: string) {
    const bounded = boundedDetails(details);
    super(message ?? formatErrorMessage(code, bounded));
    this.name = 'CodedError';
    this.code = code;
    this.details = bounded;
    this.status = ERRORS[code].status;
  }

  toJSON(): { code: ErrorCode; message: string; details: ErrorDetails } {
    return { code: this.code, message: this.message, details: this.details };
  }
}

/** Shorthand: `throw codedError('NOT_FOUND', { what: 'Record 42' })`. */
export function codedError(code: ErrorCode, details: ErrorDetails = {}, message?: string): CodedError {
  return new CodedError(code, details, message);
}

export function isCodedError(value: unknown): value is CodedError {
  return value instanceof CodedError;
}

/** One error holding every boot failure, one coded line each. */
export class KernelBootError extends CodedError {
  readonly failures: CodedError[];

  constructor(failures: CodedError[]) {
    const { roots, lines } = bootReport(failures);
    super('KERNEL_BOOT_FAILED', { count: roots, lines, failures: failures.map((f) => f.toJSON()) });
    this.name = 'KernelBootError';
    this.failures = failures;
  }
}
