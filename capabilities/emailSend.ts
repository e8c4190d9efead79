import { defineCapability } from './defineCapability.ts';

export interface EmailMessage {
  to: string;
  /**
   * The environment the mail belongs to: its `email` settings (docs/settings.md), when its admin
   * set any, choose the server. Default: `about.environmentId`, else the config file's server.
   */
  environmentId?: string;
  subject: string;
  /** Plain-text body; always sent. */
  text: string;
  html?: string;
  /** Files sent with the message (a scheduled report's export). */
  attachments?: EmailAttachment[];
  /**
   * The record the message is about: its sending (or failure) is then kept in the engine-owned
   * email log (recipient, subject, sender, time, status, provider id; never the body) and shown on
   * the record's timeline. Messages without it leave no row.
   */
  about?: EmailAbout;
}

export interface EmailAbout {
  /** The environment whose record it is. */
  environmentId: string;
  /** The record's object (an app object; engine-owned objects have no timeline and leave no row). */
  object: string;
  recordId: string;
  /** The user on whose behalf it goes (a caller flow's starter), or null/absent for the system. */
  sentBy?: string | null;
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
