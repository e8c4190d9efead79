import { codedError } from '../../kernel/errors.ts';
import { MAX_ATTACHMENT_BYTES, MAX_ATTACHMENTS, type RequestAction } from './names.ts';

export interface DecisionFile { name: string; contentType: string; size: number; content: string }

export interface DecisionBody {
  comment?: string;
  attachments: DecisionFile[];
  /** reassign: the new approver, and whose place (default: the caller's). */
  to?: string;
  from?: string;
}

const USER_ID = '^[A-Za-z0-9._:-]{1,64}$';
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

const attachmentSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200 },
    contentType: { type: 'string', pattern: '^[a-z]+/[A-Za-z0-9.+-]{1,100}$', maxLength: 200 },
    content: { type: 'string', maxLength: Math.ceil(MAX_ATTACHMENT_BYTES / 3) * 4, description: `The file, base64; at most ${MAX_ATTACHMENT_BYTES} bytes decoded` },
  },
  required: ['name', 'contentType', 'content'],
  additionalProperties: false,
};

/** The JSON Schema of POST /approvals/requests/:id/<action>. */
export function decisionBodySchema(action: RequestAction): object {
  const properties: Record<string, object> = {
    comment: { type: 'string', maxLength: 4000 },
    attachments: { type: 'array', maxItems: MAX_ATTACHMENTS, items: attachmentSchema },
  };
  const required: string[] = [];
  if (action === 'reassign') {
    properties.to = { type: 'string', pattern: USER_ID, description: 'The user who takes the place' };
    properties.from = { type: 'string', pattern: USER_ID, description: "Whose place (admins only; default: the caller's own)" };
    required.push('to');
  }
  if (action === 'request-info') required.push('comment');
  return { type: 'object', properties, required, additionalProperties: false };
}

/** The body after its schema: attachments decoded and measured (a bad base64 or an oversized file is VALIDATION_ERROR). */
export function readDecisionBody(action: RequestAction, raw: unknown): DecisionBody {
  const body = (raw ?? {}) as { comment?: string; attachments?: Array<{ name: string; contentType: string; content: string }>; to?: string; from?: string };
  const attachments: DecisionFile[] = [];
  (body.attachments ?? []).forEach((file, i) => {
    const fail = (message: string) => codedError('VALIDATION_ERROR', { summary: `attachments[${i}].content ${message}`, errors: [{ path: `attachments[${i}].content`, message }] });
    if (!BASE64.test(file.content)) throw fail('must be base64');
    const size = Buffer.from(file.content, 'base64').length;
    if (size > MAX_ATTACHMENT_BYTES) throw fail(`is ${size} bytes; at most ${MAX_ATTACHMENT_BYTES} are accepted`);
    attachments.push({ name: file.name, contentType: file.contentType, size, content: file.content });
  });
  if (action === 'request-info' && !body.comment?.trim()) throw codedError('VALIDATION_ERROR', { summary: 'comment is required: the question to the submitter', errors: [{ path: 'comment', message: 'is required' }] });
  return { ...(body.comment ? { comment: body.comment } : {}), attachments, ...(body.to ? { to: body.to } : {}), ...(body.from ? { from: body.from } : {}) };
}
