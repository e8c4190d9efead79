import { signal } from '@preact/signals';
import { api, ApiError } from './api.ts';
import { environment } from './route.ts';

export interface User {
  id: string;
  email: string;
  name: string;
  role: string;
  /** A second factor (TOTP) is on for the account. */
  twoFactorEnabled: boolean;
}

/**
 * `loading` until the first answer; `signedOut`; `secondFactor` (the password was right, a code
 * must follow: the API's `methods`); `expired` (the password must change first); `signedIn`.
 */
export type SessionState =
  | { status: 'loading' }
  | { status: 'signedOut'; reason?: string }
  | { status: 'secondFactor'; methods: string[] }
  | { status: 'expired'; user: User | null }
  | { status: 'signedIn'; user: User };

export const session = signal<SessionState>({ status: 'loading' });

/** A tenant admin: the engine role `admin` (roles are a comma list). Only admins see the administration. */
export function isAdmin(user: User | null | undefined): boolean {
  return !!user && user.role.split(',').map((r) => r.trim()).includes('admin');
}

/** The signed-in user, or null. */
export function currentUser(): User | null {
  const state = session.value;
  return state.status === 'signedIn' ? state.user : null;
}

const truthy = (v: unknown) => v === true || v === 1 || v === '1' || v === 'true';

/** Asks the server who the session cookie belongs to. */
export async function loadSession(): Promise<void> {
  const asked = environment.value;
  try {
    const answer = await api<{ user?: Record<string, unknown> } | null>('/auth/get-session');
    // The address moved to another environment meanwhile: its own read decides.
    if (environment.value !== asked) return;
    const raw = answer?.user;
    if (!raw) {
      session.value = { status: 'signedOut' };
      return;
    }
    const user: User = {
      id: String(raw.id), email: String(raw.email), name: String(raw.name ?? raw.email), role: String(raw.role ?? 'user'),
      twoFactorEnabled: truthy(raw.twoFactorEnabled),
    };
    session.value = truthy(raw.mustChangePassword) || truthy(raw.must_change_password) ? { status: 'expired', user } : { status: 'signedIn', user };
  } catch (error) {
    if (environment.value !== asked) return;
    if (error instanceof ApiError && error.code === 'PASSWORD_EXPIRED') session.value = { status: 'expired', user: null };
    else session.value = { status: 'signedOut', ...(error instanceof ApiError && error.status !== 401 ? { reason: error.message } : {}) };
  }
}

/** Every screen's API error goes through here: an ended session or an expired password changes the screen. */
export function noticeAuthError(error: unknown): void {
  if (!(error instanceof ApiError)) return;
  if (error.code === 'PASSWORD_EXPIRED') session.value = { status: 'expired', user: session.value.status === 'signedIn' ? session.value.user : null };
  else if (error.status === 401) session.value = { status: 'signedOut', reason: 'Your session ended: sign in again.' };
}

export async function signOut(): Promise<void> {
  try {
    await api('/auth/sign-out', { method: 'POST', body: {} });
  } finally {
    session.value = { status: 'signedOut' };
  }
}
