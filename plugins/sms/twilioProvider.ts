import type { SmsSend } from '../../capabilities/smsSend.ts';
import { codedError } from '../../kernel/errors.ts';
import type { Logger } from '../../kernel/logger.ts';
import { postForm } from './postForm.ts';
import type { TwilioSettings } from './resolveSmsSettings.ts';

/**
 * Twilio's Messages API: `POST /2010-04-01/Accounts/{AccountSid}/Messages.json`, HTTP Basic
 * (Account SID and Auth Token), form fields To, From or MessagingServiceSid, Body.
 */
export function twilioProvider(settings: TwilioSettings, log: Logger, fetchWith: typeof fetch = fetch): SmsSend {
  const url = `${settings.baseUrl}/2010-04-01/Accounts/${encodeURIComponent(settings.accountSid)}/Messages.json`;
  const authorization = `Basic ${Buffer.from(`${settings.accountSid}:${settings.authToken}`).toString('base64')}`;
  return {
    async send(message) {
      const form: Record<string, string> = { To: message.to, Body: message.body };
      if (settings.messagingServiceSid) form.MessagingServiceSid = settings.messagingServiceSid;
      else form.From = settings.from!;
      const answer = await postForm('twilio', url, form, { authorization }, settings.timeoutMs, fetchWith);
      if (answer.status >= 200 && answer.status < 300) return;
      // Twilio's error answer: { code, message, more_info, status }. Only the numbers leave here:
      // its message may quote the request.
      const code = (answer.json as { code?: unknown } | null)?.code;
      const reason = `Twilio answered HTTP ${answer.status}${typeof code === 'number' ? `, error ${code}` : ''}`;
      log.warn({ to: message.to, status: answer.status, providerCode: typeof code === 'number' ? code : undefined }, 'sms delivery failed (twilio)');
      throw codedError('SMS_PROVIDER_ERROR', { provider: 'twilio', reason, status: answer.status, ...(typeof code === 'number' ? { providerCode: code } : {}) });
    },
  };
}
