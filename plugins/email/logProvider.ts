import type { EmailMessage } from '../../capabilities/emailSend.ts';
import type { Logger } from '../../kernel/logger.ts';
import type { Delivery } from './emailLog.ts';

/**
 * Development provider: records that a mail would have gone out. Bodies carry sign-in links and
 * codes, so only the recipient and the subject are logged.
 */
export function logProvider(log: Logger): { send(message: EmailMessage): Promise<Delivery>; close(): Promise<void> } {
  return {
    async send(message) {
      log.info({ to: message.to, subject: message.subject }, 'email not sent (log provider)');
      return { messageId: null };
    },
    async close() {},
  };
}
