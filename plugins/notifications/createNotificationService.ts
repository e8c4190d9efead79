import type { UserContact } from '../../capabilities/authIdentity.ts';
import type { DataContext, DataEngine } from '../../capabilities/dataEngine.ts';
import type { EmailSend } from '../../capabilities/emailSend.ts';
import type { DeliveryResult, NotificationRequest } from '../../capabilities/notificationsSend.ts';
import type { SmsSend } from '../../capabilities/smsSend.ts';
import { codedError, isCodedError } from '../../kernel/errors.ts';
import type { Logger } from '../../kernel/logger.ts';
import { checkRequest, LIMITS, type CheckedRequest } from './notificationRequest.ts';

export const NOTIFICATION_OBJECT = 'sys_notification';

/** Messages handed to a provider at once; the rest wait for a free slot. */
const CONCURRENCY = 5;

export interface NotificationDeps {
  engine: DataEngine;
  environments: () => readonly string[];
  contacts: ((environmentId: string, userIds: readonly string[]) => Promise<UserContact[]>) | null;
  email: () => EmailSend | undefined;
  sms: () => SmsSend | undefined;
  /** Prefix of relative links in email and SMS (`https://app.example.com`), or null: links go as given. */
  publicUrl: string | null;
  log: Logger;
}

async function eachLimited<T>(items: readonly T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, worker));
}

const errorCodeOf = (error: unknown): string => (isCodedError(error) ? error.code : 'INTERNAL');

/** The notifications service: validates, writes the in-app rows in one transaction, then mails and texts. */
export function createNotificationService(deps: NotificationDeps) {
  const absoluteLink = (link: string | null) => (link && link.startsWith('/') && deps.publicUrl ? `${deps.publicUrl}${link}` : link);

  const emailText = (request: CheckedRequest) => {
    const link = absoluteLink(request.link);
    return link ? `${request.body}\n\n${link}` : request.body;
  };

  const smsText = (request: CheckedRequest) => {
    const link = absoluteLink(request.link);
    const text = `${request.title}\n${request.body}`;
    // The link survives the cut when it fits: it is what the reader acts on.
    if (!link) return text.slice(0, LIMITS.sms);
    const room = LIMITS.sms - link.length - 1;
    return room > 20 ? `${text.slice(0, room)}\n${link}` : text.slice(0, LIMITS.sms);
  };

  async function send(input: NotificationRequest, source: string): Promise<{ results: DeliveryResult[] }> {
    const request = checkRequest(input);
    if (!deps.environments().includes(request.environmentId)) {
      throw codedError('VALIDATION_ERROR', { summary: `notification: environment '${request.environmentId}' is not hosted here`, errors: [{ path: 'environmentId', message: 'is not a hosted environment' }] });
    }
    const wants = (channel: 'in_app' | 'email' | 'sms') => request.channels.includes(channel);
    const results: DeliveryResult[] = [];

    // Users are looked up once; without an identity provider they are taken as given, with no addresses.
    const known = new Map<string, UserContact>();
    if (request.userIds.length > 0 && deps.contacts) {
      for (const contact of await deps.contacts(request.environmentId, request.userIds)) known.set(contact.id, contact);
    }
    const users = request.userIds.map((id) => ({ id, contact: deps.contacts ? known.get(id) ?? null : { id, name: '', email: null, phoneNumber: null } }));
    for (const user of users) {
      if (user.contact) continue;
      for (const channel of request.channels) results.push({ recipient: { kind: 'user', value: user.id }, channel, status: 'unknown_user' });
    }
    const reachable = users.filter((u) => u.contact !== null) as Array<{ id: string; contact: UserContact }>;

    if (wants('in_app') && reachable.length > 0) {
      const ctx: DataContext = { environmentId: request.environmentId, principal: null, system: true };
      const ids = await deps.engine.transaction(ctx, async (engine) => {
        const written: string[] = [];
        for (const user of reachable) {
          const row = await engine.create(NOTIFICATION_OBJECT, {
            owner_id: user.id,
            title: request.title,
            body: request.body,
            link: request.link,
            record_object: request.record?.object ?? null,
            record_id: request.record?.id ?? null,
            source,
          }, ctx);
          written.push(String(row.id));
        }
        return written;
      });
      reachable.forEach((user, i) => results.push({ recipient: { kind: 'user', value: user.id }, channel: 'in_app', status: 'sent', notificationId: ids[i]! }));
    }

    // Email and SMS: each delivery stands alone; one refusal is that recipient's result only.
    const outbound: Array<{ recipient: DeliveryResult['recipient']; channel: 'email' | 'sms'; address: string | null }> = [];
    for (const user of reachable) {
      if (wants('email')) outbound.push({ recipient: { kind: 'user', value: user.id }, channel: 'email', address: user.contact.email });
      if (wants('sms')) outbound.push({ recipient: { kind: 'user', value: user.id }, channel: 'sms', address: user.contact.phoneNumber });
    }
    // Raw addresses take their one channel, when it is asked for; otherwise they are not contacted.
    if (wants('email')) for (const address of request.emails) outbound.push({ recipient: { kind: 'email', value: address }, channel: 'email', address });
    if (wants('sms')) for (const address of request.phones) outbound.push({ recipient: { kind: 'phone', value: address }, channel: 'sms', address });
    const email = deps.email();
    const sms = deps.sms();
    const text = { email: emailText(request), sms: smsText(request) };
    // A notification about a record mails about it: the record's timeline shows the email.
    const about = request.record ? { about: { environmentId: request.environmentId, object: request.record.object, recordId: request.record.id } } : {};
    const outcomes = new Map<number, DeliveryResult>();
    await eachLimited(outbound.map((item, index) => ({ ...item, index })), async (item) => {
      const base = { recipient: item.recipient, channel: item.channel };
      const provider = item.channel === 'email' ? email : sms;
      if (!provider) return void outcomes.set(item.index, { ...base, status: 'unavailable' });
      if (!item.address) return void outcomes.set(item.index, { ...base, status: 'no_address' });
      try {
        if (item.channel === 'email') await email!.send({ to: item.address, environmentId: request.environmentId, subject: request.title, text: text.email, ...about });
        else await sms!.send({ to: item.address, body: text.sms, environmentId: request.environmentId });
        outcomes.set(item.index, { ...base, status: 'sent' });
      } catch (error) {
        outcomes.set(item.index, { ...base, status: 'failed', error: errorCodeOf(error) });
      }
    });
    outbound.forEach((_, index) => results.push(outcomes.get(index)!));

    const count = (status: string) => results.filter((r) => r.status === status).length;
    // Counts and codes only: titles, bodies and addresses stay out of the log.
    deps.log.info({ environment: request.environmentId, source, channels: request.channels, sent: count('sent'), failed: count('failed'), unavailable: count('unavailable'), noAddress: count('no_address'), unknownUser: count('unknown_user') }, 'notification sent');
    for (const failure of results.filter((r) => r.status === 'failed')) {
      deps.log.warn({ environment: request.environmentId, source, channel: failure.channel, error: failure.error }, 'notification delivery failed');
    }
    return { results };
  }

  return { send };
}
