import type { SmsSend } from '../../capabilities/smsSend.ts';
import { codedError } from '../../kernel/errors.ts';
import type { Logger } from '../../kernel/logger.ts';
import { postForm } from './postForm.ts';
import type { VonageSettings } from './resolveSmsSettings.ts';

interface VonageAnswer {
  messages?: Array<{ status?: unknown }>;
}

/**
 * Vonage's SMS API: `POST /sms/json`, form fields api_key, api_secret, from, to (digits without
 * `+`), text. It answers 200 with `{ messages: [{ status }] }`, where status "0" is success.
 */
export function vonageProvider(settings: VonageSettings, log: Logger, fetchWith: typeof fetch = fetch): SmsSend {
  const url = `${settings.baseUrl}/sms/json`;
  return {
    async send(message) {
      const answer = await postForm('vonage', url, {
        api_key: settings.apiKey,
        api_secret: settings.apiSecret,
        from: settings.from.replace(/^\+/, ''),
        to: message.to.replace(/^\+/, ''),
        text: message.body,
      }, {}, settings.timeoutMs, fetchWith);
      const parts = (answer.json as VonageAnswer | null)?.messages;
      const failed = Array.isArray(parts) ? parts.find((p) => String(p?.status) !== '0') : undefined;
      if (answer.status === 200 && Array.isArray(parts) && parts.length > 0 && !failed) return;
      // Only the status number leaves here: error-text may quote the request.
      const status = failed && /^\d{1,3}$/.test(String(failed.status)) ? String(failed.status) : null;
      const reason = status ? `Vonage refused the message (status ${status})` : `Vonage answered HTTP ${answer.status}`;
      log.warn({ to: message.to, status: answer.status, providerCode: status ?? undefined }, 'sms delivery failed (vonage)');
      throw codedError('SMS_PROVIDER_ERROR', { provider: 'vonage', reason, status: answer.status, ...(status ? { providerCode: status } : {}) });
    },
  };
}
