/** A real SMTP server on 127.0.0.1 (random port) that keeps every message it accepts, for tests. */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface SunkMail {
  /** Envelope recipients. */
  to: string[];
  from: string;
  subject: string;
  /** The plain-text part, transfer encoding undone. */
  text: string;
  /** The HTML part, if any. */
  html: string | null;
  raw: string;
}

export interface SmtpSink {
  port: number;
  mails: SunkMail[];
  /** Logins seen (user names only). */
  logins: string[];
  /** The next mail to `to` (waits for it, up to `timeoutMs`). */
  next(to: string, timeoutMs?: number): Promise<SunkMail>;
  /** Refuse the next `times` messages to `address` at RCPT TO (a 550 the sender sees as a failed send). */
  refuse(address: string, times?: number): void;
  close(): Promise<void>;
}

function decodeQuotedPrintable(body: string): string {
  const bytes = body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

function splitPart(part: string): { headers: Map<string, string>; body: string } {
  const at = part.indexOf('\r\n\r\n');
  const head = at >= 0 ? part.slice(0, at) : part;
  const body = at >= 0 ? part.slice(at + 4) : '';
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { headers, body };
}

function decodeBody(headers: Map<string, string>, body: string): string {
  const encoding = (headers.get('content-transfer-encoding') ?? '').toLowerCase();
  if (encoding === 'quoted-printable') return decodeQuotedPrintable(body);
  if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  return body;
}

/** Enough MIME for what nodemailer writes: one text part, or multipart/alternative text + html. */
export function parseMail(raw: string): Omit<SunkMail, 'to' | 'from' | 'raw'> {
  const { headers, body } = splitPart(raw);
  const subject = headers.get('subject') ?? '';
  const type = headers.get('content-type') ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (!boundary) return { subject, text: decodeBody(headers, body).replace(/\r\n$/, ''), html: null };
  let text = '';
  let html: string | null = null;
  for (const chunk of body.split(`--${boundary}`).slice(1)) {
    if (chunk.startsWith('--')) break;
    const part = splitPart(chunk.replace(/^\r\n/, ''));
    const partType = part.headers.get('content-type') ?? '';
    const value = decodeBody(part.headers, part.body).replace(/\r\n$/, '');
    if (partType.startsWith('text/plain')) text = value;
    else if (partType.startsWith('text/html')) html = value;
  }
  return { subject, text, html };
}

export async function startSmtpSink(options: { user?: string; password?: string; /** Recipients the server refuses (550). */ reject?: string[] } = {}): Promise<SmtpSink> {
  const mails: SunkMail[] = [];
  const logins: string[] = [];
  const waiters: Array<{ to: string; resolve: (mail: SunkMail) => void }> = [];
  const refusals = new Map<string, number>();
  const server = new SMTPServer({
    // Plain text on loopback: no certificate to make, and no STARTTLS offered.
    disabledCommands: options.user ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    allowInsecureAuth: true,
    authOptional: !options.user,
    logger: false,
    // Pooled clients keep their connection open; closing should not wait for them.
    closeTimeout: 50,
    onAuth(auth, _session, callback) {
      if (auth.username === options.user && auth.password === options.password) {
        logins.push(auth.username ?? '');
        callback(null, { user: auth.username });
      } else {
        callback(new Error('Invalid username or password'));
      }
    },
    onRcptTo(address, _session, callback) {
      const left = refusals.get(address.address) ?? 0;
      if (left > 0 || options.reject?.includes(address.address)) {
        refusals.set(address.address, left - 1);
        callback(Object.assign(new Error('Mailbox unavailable'), { responseCode: 550 }));
        return;
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('latin1');
        const mail: SunkMail = {
          ...parseMail(raw),
          to: session.envelope.rcptTo.map((r) => r.address),
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          raw,
        };
        mails.push(mail);
        for (const waiter of waiters.splice(0)) {
          if (mail.to.includes(waiter.to)) waiter.resolve(mail);
          else waiters.push(waiter);
        }
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;
  let seen = 0;
  return {
    port, mails, logins,
    next(to, timeoutMs = 5000) {
      const found = mails.slice(seen).find((m) => m.to.includes(to));
      if (found) {
        seen = mails.indexOf(found) + 1;
        return Promise.resolve(found);
      }
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no mail to ${to} within ${timeoutMs} ms`)), timeoutMs);
        waiters.push({ to, resolve: (mail) => { clearTimeout(timer); seen = mails.indexOf(mail) + 1; resolve(mail); } });
      });
    },
    refuse(address, times = 1) {
      refusals.set(address, times);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The first URL in a text. */
export function linkIn(text: string): string {
  const match = /https?:\/\/[^\s<>"]+/.exec(text);
  if (!match) throw new Error(`no link in: ${text.slice(0, 200)}`);
  return match[0];
}
