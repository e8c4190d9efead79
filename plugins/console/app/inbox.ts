import { signal } from '@preact/signals';
import { api, ApiError } from './api.ts';
import { session } from './session.ts';

/** The signed-in user's unread notifications (`GET /notifications?unread=true`'s total); null until known. */
export const unread = signal<number | null>(null);

/** Whether the user may read the AI approval queue (`ai:read`): null until asked. */
export const aiQueue = signal<boolean | null>(null);

/** Reads the unread count again (after a mark, on a new screen, every half minute). */
export async function refreshUnread(): Promise<void> {
  try {
    const answer = await api<{ total: number }>('/notifications', { query: { unread: 'true', limit: 1 } });
    unread.value = answer.total;
  } catch {
    unread.value = null;
  }
}

/** Asks once per session whether the AI queue answers this user (a 403 or 404 hides it). */
export async function probeAiQueue(): Promise<void> {
  try {
    await api('/ai/pending-actions', { query: { status: 'pending', limit: 1 } });
    aiQueue.value = true;
  } catch (error) {
    aiQueue.value = error instanceof ApiError && error.status !== 403 && error.status !== 404 ? null : false;
  }
}

export function forgetInbox(): void {
  unread.value = null;
  aiQueue.value = null;
}

/** How a user id reads on screen: "you" for the signed-in user, else the name the answer gave (`people`), else the id. */
export function person(id: string | null | undefined, people: Record<string, string> = {}): string {
  if (!id) return 'the system';
  const me = session.value.status === 'signedIn' ? session.value.user.id : null;
  return id === me ? 'you' : people[id] ?? id;
}

/** The console address a notification leads to: its record (approval requests and AI actions have screens), else its link. */
export function notificationTarget(n: { link: string | null; record: { object: string; id: string } | null }): string | null {
  if (n.record?.object === 'sys_approval_request') return `/approvals/${encodeURIComponent(n.record.id)}`;
  if (n.record?.object === 'sys_ai_pending_action') return `/ai-actions/${encodeURIComponent(n.record.id)}`;
  if (n.record && !n.record.object.startsWith('sys_')) return `/records/${encodeURIComponent(n.record.object)}/${encodeURIComponent(n.record.id)}`;
  return null;
}
