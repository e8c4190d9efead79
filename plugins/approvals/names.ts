export const PROCESS_OBJECT = 'sys_approval_process';
export const REQUEST_OBJECT = 'sys_approval_request';
export const DECISION_OBJECT = 'sys_approval_decision';
export const ATTACHMENT_OBJECT = 'sys_approval_attachment';
export const ESCALATE_JOB = 'approvals.escalate';

/** The actions of POST /approvals/requests/:id/<action>. */
export const REQUEST_ACTIONS = ['approve', 'reject', 'reassign', 'send-back', 'request-info', 'remind', 'recall', 'resubmit'] as const;
export type RequestAction = (typeof REQUEST_ACTIONS)[number];

/** Attachments of one decision: at most this many, each at most MAX_ATTACHMENT_BYTES once decoded. */
export const MAX_ATTACHMENTS = 5;
export const MAX_ATTACHMENT_BYTES = 256 * 1024;
/** A request's approvers are reminded at most once in this window. */
export const REMIND_INTERVAL_MS = 15 * 60_000;

export const openKey = (object: string, id: string) => `${object}:${id}`;
/** `|a|b|`: assigned-to-me lists filter on `|<user id>|`. */
export const assigneeList = (users: readonly string[]) => (users.length ? `|${users.join('|')}|` : '');
