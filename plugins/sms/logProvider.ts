import type { DevOutbox } from '../../capabilities/devOutbox.ts';
import type { SmsSend } from '../../capabilities/smsSend.ts';
import type { Logger } from '../../kernel/logger.ts';

/**
 * Development provider: records that a message would have gone out, and to whom. Bodies carry
 * codes: never logged; outside production the message is kept in the development outbox
 * (GET /api/v1/dev/outbox), which the log line points to.
 */
export function logProvider(log: Logger, outbox: () => DevOutbox | undefined = () => undefined): SmsSend {
  return {
    async send(message) {
      const kept = outbox();
      kept?.keep(message.environmentId, { channel: 'sms', to: message.to, text: message.body });
      log.info({ to: message.to, length: message.body.length, ...(kept ? { readAt: 'GET /api/v1/dev/outbox (the console: Outbox)' } : {}) }, 'sms not sent (log provider)');
    },
  };
}
