import type { DevOutbox } from '../../capabilities/devOutbox.ts';
import type { EmailMessage } from '../../capabilities/emailSend.ts';
import type { Logger } from '../../kernel/logger.ts';
import type { Delivery } from './emailLog.ts';

/**
 * Development provider: records that a mail would have gone out. Bodies carry sign-in links and
 * codes, so only the recipient and the subject are logged; outside production the whole mail is
 * kept in the development outbox (GET /api/v1/dev/outbox), which the log line points to.
 */
export function logProvider(log: Logger, outbox: () => DevOutbox | undefined = () => undefined): { send(message: EmailMessage): Promise<Delivery>; close(): Promise<void> } {
  return {
    async send(message) {
      const kept = outbox();
      const environmentId = message.environmentId ?? message.about?.environmentId;
      kept?.keep(environmentId, { channel: 'email', to: message.to, subject: message.subject, text: message.text });
      log.info({ to: message.to, subject: message.subject, ...(kept ? { readAt: 'GET /api/v1/dev/outbox (the console: Outbox)' } : {}) }, 'email not sent (log provider)');
      return { messageId: null };
    },
    async close() {},
  };
}
