import type { SmsSend } from '../../capabilities/smsSend.ts';
import type { Logger } from '../../kernel/logger.ts';

/** Development provider: records that a message would have gone out, and to whom. Bodies carry codes: never logged. */
export function logProvider(log: Logger): SmsSend {
  return {
    async send(message) {
      log.info({ to: message.to, length: message.body.length }, 'sms not sent (log provider)');
    },
  };
}
