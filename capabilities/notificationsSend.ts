import { defineCapability } from './defineCapability.ts';

export type NotificationChannel = 'in_app' | 'email' | 'sms';

export interface NotificationRequest {
  /** The environment whose users are notified and whose database keeps the in-app rows. */
  environmentId: string;
  /**
   * Recipients, at most 100 in all (after removing duplicates). User ids get every channel asked
   * for, their address and phone number looked up through `auth.identity`; raw `emails` get
   * `email` only and raw `phones` (E.164) get `sms` only.
   */
  to: { userIds?: readonly string[]; emails?: readonly string[]; phones?: readonly string[] };
  /** At least one, no repeats. */
  channels: readonly NotificationChannel[];
  /** One line, 1 to 200 characters; the email subject. */
  title: string;
  /** Plain text, 1 to 4,000 characters (an SMS carries title and body cut to 480 characters). Never logged. */
  body: string;
  /** A relative path (`/app/...`) or an https URL, at most 2,000 characters. */
  link?: string;
  /** The record the notification is about; stored for the in-app row, never checked against the recipient's access. */
  record?: { object: string; id: string };
}

/**
 * What happened to one channel of one recipient:
 * `sent` (handed to the provider or stored), `failed` (the provider refused it or was unreachable),
 * `unavailable` (no plugin provides the channel), `no_address` (the user has no usable address or
 * phone number for it), `unknown_user` (no such user in the environment).
 */
export type DeliveryStatus = 'sent' | 'failed' | 'unavailable' | 'no_address' | 'unknown_user';

export interface DeliveryResult {
  /** `user`, `email` or `phone`, and the id, address or number as given. */
  recipient: { kind: 'user' | 'email' | 'phone'; value: string };
  channel: NotificationChannel;
  status: DeliveryStatus;
  /** The in-app row's id when `in_app` was stored. */
  notificationId?: string;
  /** The coded error of a `failed` delivery (never the message body). */
  error?: string;
}

export interface NotificationsSend {
  /**
   * Deliver a notification on every channel asked for, to every recipient. A channel failing for
   * one recipient never stops the others; only an invalid request rejects (VALIDATION_ERROR).
   * In-app rows are written together or not at all.
   */
  send(request: NotificationRequest): Promise<{ results: DeliveryResult[] }>;
}

export const notificationsSend = defineCapability<NotificationsSend>()({
  id: 'notifications.send',
  cardinality: 'single',
  description: 'Notify users in the app (sys_notification), by email and by SMS, with a result per recipient and channel.',
});
