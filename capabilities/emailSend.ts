import { defineCapability } from './defineCapability.ts';

export interface EmailMessage {
  to: string;
  subject: string;
  /** Plain-text body; always sent. */
  text: string;
  html?: string;
  /** Files sent with the message (a scheduled report's export). */
  attachments?: EmailAttachment[];
}

export interface EmailAttachment {
  filename: string;
  content: Buffer;
  contentType: string;
}

export interface EmailSend {
  /** Deliver one message through the configured provider; rejects when the provider refuses it. */
  send(message: EmailMessage): Promise<void>;
}

export const emailSend = defineCapability<EmailSend>()({
  id: 'email.send',
  cardinality: 'single',
  description: 'Send an email through the configured provider (SMTP, or a development log).',
});
