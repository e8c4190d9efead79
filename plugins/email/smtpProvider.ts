import type { Socket } from 'node:net';
import type { Transporter } from 'nodemailer';
import type { SettingsConnections } from '../../capabilities/settingsStore.ts';
import type { EmailMessage } from '../../capabilities/emailSend.ts';
import { codedError } from '../../kernel/errors.ts';
import type { Logger } from '../../kernel/logger.ts';
import type { Delivery } from './emailLog.ts';
import type { SmtpSettings } from './resolveEmailSettings.ts';

/**
 * Delivery through an SMTP server (nodemailer), one pooled transport per process. The library is
 * loaded and the transport created by the first message, not at start. `connect`: how each
 * connection of the pool is opened where the settings chose the host (their checked connections,
 * docs/settings.md); nodemailer still speaks TLS over it, with the host's name for SNI and the
 * certificate.
 */
export function smtpProvider(settings: SmtpSettings, log: Logger, connect?: SettingsConnections['connect']): { send(message: EmailMessage): Promise<Delivery>; close(): Promise<void> } {
  let transport: Promise<Transporter> | null = null;
  const getSocket = connect
    ? (_options: unknown, callback: (error: Error | null, socket?: { connection: Socket }) => void) => {
        connect(settings.host, settings.port, settings.timeoutMs).then((connection) => callback(null, { connection }), (error: Error) => callback(error));
      }
    : undefined;
  const open = () => (transport ??= import('nodemailer').then(({ default: nodemailer }) => nodemailer.createTransport({
    ...(getSocket ? { getSocket } : {}),
    host: settings.host,
    port: settings.port,
    secure: settings.secure,
    requireTLS: settings.requireTLS,
    ...(settings.auth ? { auth: settings.auth } : {}),
    pool: true,
    connectionTimeout: settings.timeoutMs,
    greetingTimeout: settings.timeoutMs,
    socketTimeout: settings.timeoutMs,
  })));
  return {
    async send(message) {
      const mailer = await open();
      try {
        const info = await mailer.sendMail({
          from: settings.from,
          to: message.to,
          subject: message.subject,
          text: message.text,
          ...(message.html !== undefined ? { html: message.html } : {}),
          ...(message.attachments ? { attachments: message.attachments.map((a) => ({ filename: a.filename, content: a.content, contentType: a.contentType })) } : {}),
        });
        return { messageId: typeof info.messageId === 'string' && info.messageId ? info.messageId.slice(0, 998) : null };
      } catch (error) {
        const e = error as { code?: unknown; responseCode?: unknown; message?: unknown };
        // The reason names the failure, never the message: the body may hold a link or a code.
        log.warn({ to: message.to, subject: message.subject, code: e.code, responseCode: e.responseCode }, 'email delivery failed');
        throw codedError('SERVICE_UNAVAILABLE', {
          service: 'Email delivery',
          reason: typeof e.responseCode === 'number' ? `the SMTP server answered ${e.responseCode}` : `SMTP ${typeof e.code === 'string' ? e.code : 'error'}`,
        });
      }
    },
    async close() {
      if (transport) (await transport).close();
    },
  };
}
