import { randomUUID } from 'node:crypto';
import type { DevOutbox, OutboxMessage } from '../../capabilities/devOutbox.ts';

/** Messages kept per environment. */
export const OUTBOX_LIMIT = 200;

const LINK = /https?:\/\/[^\s<>"')\]]+/g;

/** The in-memory outbox: the last OUTBOX_LIMIT messages of each environment, newest first. */
export function createDevOutbox(defaultEnvironment: string, limit = OUTBOX_LIMIT): DevOutbox {
  const byEnvironment = new Map<string, OutboxMessage[]>();
  return {
    keep(environmentId, message) {
      const key = environmentId ?? defaultEnvironment;
      const list = byEnvironment.get(key) ?? [];
      list.unshift({
        id: randomUUID(), channel: message.channel, to: message.to, subject: message.subject ?? null,
        text: message.text, links: message.text.match(LINK) ?? [], sentAt: new Date().toISOString(),
      });
      if (list.length > limit) list.length = limit;
      byEnvironment.set(key, list);
    },
    list(environmentId) {
      return [...(byEnvironment.get(environmentId) ?? [])];
    },
  };
}
