import { api } from '../api.ts';
import { formatValue } from '../format.ts';

/** A user as the engine's admin routes answer it (`/auth/admin/list-users`, `/auth/admin/get-user`). */
export interface AdminUser {
  id: string;
  email: string;
  name: string;
  role: string | null;
  banned: boolean | null;
  banReason: string | null;
  banExpires: string | null;
  createdAt: string;
  mustChangePassword?: boolean;
  must_change_password?: boolean;
}

export interface UserPage { users: AdminUser[]; total: number }

/** A page of users by email, those whose email contains `search` when given. */
export function listUsers(options: { search?: string; limit: number; offset?: number }): Promise<UserPage> {
  return api<UserPage>('/auth/admin/list-users', {
    query: {
      limit: options.limit,
      offset: options.offset || undefined,
      sortBy: 'email',
      sortDirection: 'asc',
      ...(options.search ? { searchValue: options.search, searchField: 'email', searchOperator: 'contains' } : {}),
    },
  });
}

/** The users an admin picks from (assignments): the first 500 by email. */
export async function allUsers(): Promise<AdminUser[]> {
  return (await listUsers({ limit: 500 })).users;
}

/** The rows of an engine-owned access object (`sys_*`), at most 200, by `orderBy`. */
export async function rowsOf<T = Record<string, unknown>>(object: string, query: Record<string, string | number | undefined> = {}): Promise<T[]> {
  return (await api<{ items: T[] }>(`/data/${object}`, { query: { limit: 200, ...query } })).items;
}

export const when = (value: unknown) => (value ? formatValue(value, undefined, 'at_at') : '');

/** A `datetime-local` input's value (the user's time zone) as an ISO instant; empty: none. */
export function instantOf(local: string): string | null {
  if (!local) return null;
  const d = new Date(local);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

/** An ISO instant as a `datetime-local` value in the user's time zone. */
export function localOf(iso: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${iso.getFullYear()}-${pad(iso.getMonth() + 1)}-${pad(iso.getDate())}T${pad(iso.getHours())}:${pad(iso.getMinutes())}`;
}

/** Whether a validity window holds now, as the server decides it (open bounds are open). */
export function windowState(from: unknown, until: unknown, now = Date.now()): 'active' | 'ended' | 'not started' {
  if (from && Date.parse(String(from)) > now) return 'not started';
  if (until && Date.parse(String(until)) <= now) return 'ended';
  return 'active';
}

export const isBanned = (u: AdminUser) => u.banned === true && (!u.banExpires || Date.parse(u.banExpires) > Date.now());

export function statusOf(u: AdminUser): string {
  if (isBanned(u)) return 'Banned';
  if (u.mustChangePassword === true || u.must_change_password === true) return 'Must change password';
  return 'Active';
}
