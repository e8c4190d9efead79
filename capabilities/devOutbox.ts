import { defineCapability } from './defineCapability.ts';

/** One message a log provider did not deliver, kept for development (codes and links included). */
export interface OutboxMessage {
  id: string;
  channel: 'email' | 'sms';
  to: string;
  /** Email only. */
  subject: string | null;
  text: string;
  /** The http(s) links of the text, in order (invitations, magic links, password resets). */
  links: string[];
  sentAt: string;
}

export interface DevOutbox {
  /** Keep one message of an environment (the default one when absent); the oldest beyond the limit are dropped. */
  keep(environmentId: string | undefined, message: { channel: 'email' | 'sms'; to: string; subject?: string; text: string }): void;
  /** The environment's kept messages, newest first. */
  list(environmentId: string): OutboxMessage[];
}

/**
 * The one production guard of the development outbox: the outbox outside production, none in
 * production, where messages hold sign-in codes and links that must stay with their recipients.
 * The plugin that keeps messages, the route that shows them and every log provider that hands
 * them over go through it.
 */
export function outboxOutsideProduction(production: boolean, outbox: DevOutbox | undefined): DevOutbox | undefined {
  return production ? undefined : outbox;
}

export const devOutbox = defineCapability<DevOutbox>()({
  id: 'dev.outbox',
  cardinality: 'single',
  description: 'Outside production: the emails and text messages the log providers did not deliver, kept in memory per environment (GET /api/v1/dev/outbox).',
});
