import type { DataEngine } from '../../capabilities/dataEngine.ts';
import type { EmailMessage } from '../../capabilities/emailSend.ts';
import type { MetadataRegistry } from '../../capabilities/metadataRegistry.ts';
import { isCodedError } from '../../kernel/errors.ts';
import type { Logger } from '../../kernel/logger.ts';

export const EMAIL_LOG_OBJECT = 'sys_email_log';
/** Days a row of the email log is kept by default (the retention contract `email.log`). */
export const EMAIL_LOG_RETENTION_DAYS = 90;

/** What a provider answers for a delivered message: its id, when the provider gives one. */
export interface Delivery {
  messageId: string | null;
}

export interface EmailLogDeps {
  engine: () => DataEngine | undefined;
  metadata: () => MetadataRegistry | undefined;
  log: Logger;
}

/** The row kept for one message about a record: never its body, html or attachments. */
export function emailLogRow(message: EmailMessage, outcome: { status: 'sent'; messageId: string | null } | { status: 'failed'; error: string }, at: Date): Record<string, unknown> {
  const about = message.about!;
  return {
    object: about.object,
    record_id: about.recordId,
    recipients: [message.to],
    // The column's bound: a longer subject (a flow's expression) is cut, not lost with the row.
    subject: message.subject.slice(0, 998),
    sent_by: about.sentBy ?? null,
    sent_at: at.toISOString(),
    status: outcome.status,
    message_id: outcome.status === 'sent' ? outcome.messageId : null,
    error: outcome.status === 'failed' ? outcome.error : null,
  };
}

/**
 * Sends through `deliver` and, when the message is about a record of an app object, keeps a row of
 * it in the email log, sent or failed. A failure to keep the row is logged, not thrown: the mail
 * went (or failed) either way, and the caller's answer must say what happened to the mail.
 */
export function withEmailLog(deliver: (message: EmailMessage) => Promise<Delivery>, deps: EmailLogDeps): (message: EmailMessage) => Promise<void> {
  const keep = async (message: EmailMessage, outcome: Parameters<typeof emailLogRow>[1]) => {
    const about = message.about!;
    const engine = deps.engine();
    const metadata = deps.metadata();
    if (!engine || !metadata?.object(EMAIL_LOG_OBJECT)) return;
    const object = metadata.object(about.object);
    if (!object || object.system) {
      deps.log.warn({ object: about.object.slice(0, 100) }, 'email log: the message is about no app object; no row kept');
      return;
    }
    try {
      await engine.create(EMAIL_LOG_OBJECT, emailLogRow(message, outcome, new Date()), { environmentId: about.environmentId, principal: null, system: true });
    } catch (error) {
      deps.log.warn({ err: isCodedError(error) ? error.code : (error as Error).message, object: about.object }, 'email log: the row could not be kept');
    }
  };
  return async (message) => {
    if (!message.about) {
      await deliver(message);
      return;
    }
    let delivery: Delivery;
    try {
      delivery = await deliver(message);
    } catch (error) {
      await keep(message, { status: 'failed', error: isCodedError(error) ? error.code : 'INTERNAL' });
      throw error;
    }
    await keep(message, { status: 'sent', messageId: delivery.messageId });
  };
}
