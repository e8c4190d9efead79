import { defineCapability } from './defineCapability.ts';

export interface SmsMessage {
  /** Recipient in E.164 form (`+` and 7 to 15 digits). */
  to: string;
  /** Plain text. Bodies may hold one-time codes: providers never log or store them. */
  body: string;
  /**
   * The environment it belongs to: its `sms` settings choose the provider (docs/settings.md) and the
   * development outbox keeps it there. Absent: the config file's provider, the default environment's outbox.
   */
  environmentId?: string;
}

export interface SmsSend {
  /** Deliver one message through the configured provider; rejects with SMS_PROVIDER_ERROR when the provider refuses it. */
  send(message: SmsMessage): Promise<void>;
}

export const smsSend = defineCapability<SmsSend>()({
  id: 'sms.send',
  cardinality: 'single',
  description: 'Send a text message through the configured provider (Twilio, Vonage, or a development log).',
});
