import { z } from 'zod';
import type { NotificationChannel, NotificationRequest } from '../../capabilities/notificationsSend.ts';
import { codedError } from '../../kernel/errors.ts';

/** Limits of one send (docs/notifications.md). */
export const LIMITS = {
  recipients: 100,
  title: 200,
  body: 4000,
  link: 2000,
  /** An SMS carries the title, the body and the link cut to this many characters. */
  sms: 480,
} as const;

const E164 = /^\+[1-9]\d{6,14}$/;
// One address, no spaces or angle brackets: it becomes an envelope recipient as given.
const EMAIL = /^[^\s@<>,;"]{1,64}@[^\s@<>,;"]{1,255}$/;
// A path of this site (not `//host`, which browsers read as another host) or an https URL.
const LINK = /^(\/(?!\/)[^\s]*|https:\/\/[^\s]+)$/;
const ID = /^[A-Za-z0-9._:-]{1,64}$/;

const requestSchema = z.strictObject({
  environmentId: z.string().min(1).max(64),
  to: z.strictObject({
    userIds: z.array(z.string().regex(ID, 'must be a user id')).optional(),
    emails: z.array(z.string().max(320).regex(EMAIL, 'must be one email address')).optional(),
    phones: z.array(z.string().regex(E164, 'must be in E.164 form, such as +4915112345678')).optional(),
  }),
  channels: z.array(z.enum(['in_app', 'email', 'sms'])).min(1).max(3)
    .refine((list) => new Set(list).size === list.length, 'must not repeat a channel'),
  // One line: it is an email subject, where a line break would start a header.
  title: z.string().min(1).max(LIMITS.title).regex(/^[^\r\n]*$/, 'must be one line').refine((s) => s.trim() !== '', 'must not be blank'),
  body: z.string().min(1).max(LIMITS.body),
  link: z.string().max(LIMITS.link).regex(LINK, 'must be a path starting with / or an https URL').optional(),
  record: z.strictObject({
    object: z.string().regex(/^[a-z][a-z0-9_]{0,62}$/, 'must be an object name'),
    id: z.string().regex(ID, 'must be a record id'),
  }).optional(),
});

export interface CheckedRequest {
  environmentId: string;
  userIds: string[];
  emails: string[];
  phones: string[];
  channels: NotificationChannel[];
  title: string;
  body: string;
  link: string | null;
  record: { object: string; id: string } | null;
}

/** The request, checked and with duplicate recipients removed; a problem is a VALIDATION_ERROR naming every path. */
export function checkRequest(input: NotificationRequest): CheckedRequest {
  const parsed = requestSchema.safeParse(input);
  if (!parsed.success) {
    const errors = parsed.error.issues.map((issue) => ({ path: issue.path.join('.') || '(root)', message: issue.message }));
    throw codedError('VALIDATION_ERROR', { summary: `notification: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}`, errors });
  }
  const request = parsed.data;
  const userIds = [...new Set(request.to.userIds ?? [])];
  const emails = [...new Set((request.to.emails ?? []).map((e) => e.toLowerCase()))];
  const phones = [...new Set(request.to.phones ?? [])];
  const count = userIds.length + emails.length + phones.length;
  if (count === 0) throw codedError('VALIDATION_ERROR', { summary: 'notification: to names no recipient', errors: [{ path: 'to', message: 'names no recipient' }] });
  if (count > LIMITS.recipients) {
    throw codedError('VALIDATION_ERROR', {
      summary: `notification: ${count} recipients, at most ${LIMITS.recipients} per call; split the send`,
      errors: [{ path: 'to', message: `at most ${LIMITS.recipients} recipients` }],
    });
  }
  return {
    environmentId: request.environmentId,
    userIds, emails, phones,
    channels: request.channels,
    title: request.title,
    body: request.body,
    link: request.link ?? null,
    record: request.record ?? null,
  };
}
