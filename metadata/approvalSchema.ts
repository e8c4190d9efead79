import { z } from 'zod';

const text = z.string().min(1, 'must be a non-empty string');
const userId = z.string().regex(/^[A-Za-z0-9._:-]{1,64}$/, 'must be a user id (letters, digits, . _ : -, at most 64)');
const positionName = z.string().regex(/^[A-Za-z0-9_-]{1,100}$/, 'must be a position name');
const quorum = z.number().int('must be an integer').min(1, 'must be at least 1').max(1000, 'must be at most 1000');

/** A named group of approvers; with `signOff: "perGroup"` every group must reach its own quorum. */
export const approverGroupSchema = z.strictObject({
  name: z.string().regex(/^[a-z][a-z0-9_]{0,62}$/, 'must be snake_case (at most 63)'),
  label: text.optional(),
  users: z.array(userId).max(100, 'at most 100 users').optional(),
  positions: z.array(positionName).max(20, 'at most 20 positions').optional(),
  minApprovals: quorum.optional(),
});

export const approversSchema = z.strictObject({
  users: z.array(userId).max(100, 'at most 100 users').optional(),
  positions: z.array(positionName).max(20, 'at most 20 positions').optional(),
  groups: z.array(approverGroupSchema).max(20, 'at most 20 groups').optional(),
});

/** Whom an overdue step is handed to. */
export const escalationSchema = z.strictObject({
  users: z.array(userId).max(20, 'at most 20 users').optional(),
  positions: z.array(positionName).max(5, 'at most 5 positions').optional(),
});

export const approvalStepSchema = z.strictObject({
  name: z.string().regex(/^[a-z][a-z0-9_]{0,62}$/, 'must be snake_case (at most 63)'),
  label: text.max(200).optional(),
  approvers: approversSchema,
  minApprovals: quorum.optional(),
  signOff: z.enum(['quorum', 'perGroup'], { error: 'must be quorum (default: minApprovals of all approvers) or perGroup (every group reaches its own minApprovals)' }).optional(),
  slaHours: z.number().positive('must be more than 0').max(8760, 'must be at most 8760 (a year)').optional(),
  escalateTo: escalationSchema.optional(),
});

/** What happens when a request ends: run a declared record action on the record, or a flow. */
export const approvalOutcomeSchema = z.strictObject({
  action: z.string().optional(),
  flow: z.string().optional(),
  input: z.record(z.string(), z.unknown()).optional(),
});

/** approvals/<name>.json and the body of POST /approvals/processes. Strict at every level. */
export const approvalProcessSchema = z.strictObject({
  name: z.string({ error: (i) => (i.input === undefined ? 'is required: the snake_case process name' : 'must be a string') }),
  label: text.max(200).optional(),
  description: z.string().max(2000).optional(),
  object: z.string({ error: (i) => (i.input === undefined ? 'is required: the object whose records go through the process' : 'must be a string') }),
  when: z.string().min(1, 'must be a CEL expression').max(2000).optional(),
  maxRevisions: z.number().int('must be an integer').min(0, 'must be at least 0').max(100, 'must be at most 100').optional(),
  steps: z.array(approvalStepSchema, { error: 'must be a list of steps' }).min(1, 'must hold at least one step').max(20, 'at most 20 steps'),
  onApprove: approvalOutcomeSchema.optional(),
  onReject: approvalOutcomeSchema.optional(),
});

export type ParsedApprovalProcess = z.infer<typeof approvalProcessSchema>;
export type ParsedApprovalStep = z.infer<typeof approvalStepSchema>;
