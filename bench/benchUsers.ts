/**
 * The signed-in side of the bench: the runtime's first admin (from config) and a member whose
 * reads of the bench object are opened by a row policy (position `bench_reader`), both signed in
 * over HTTP with the bearer tokens the scenarios send.
 */
import { BENCH_OBJECT } from './benchObject.ts';

export const BENCH_ADMIN = { email: 'bench-admin@example.com', password: 'bench-admin-password-1' };
const MEMBER = { email: 'bench-reader@example.com', password: 'bench-reader-password-1' };
/** Named in the bench object's row policy (bench/app/objects/bench_item.json). */
const READER_POSITION = 'bench_reader';

export interface BenchUsers {
  adminHeaders: Record<string, string>;
  memberHeaders: Record<string, string>;
  /** Rows the member sees, and all rows (as the admin sees them): checked before any load. */
  totals: { member: number; admin: number };
}

async function call(url: string, method: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Record<string, unknown>> {
  const res = await fetch(url + path, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }), origin: url },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as Record<string, unknown>;
}

async function signIn(url: string, account: { email: string; password: string }): Promise<Record<string, string>> {
  const { token } = await call(url, 'POST', '/api/v1/auth/sign-in', account);
  if (typeof token !== 'string') throw new Error('sign-in answered no token');
  return { authorization: `Bearer ${token}` };
}

/** Signs the admin in, creates the member and its position, signs the member in. */
export async function prepareBenchUsers(url: string): Promise<BenchUsers> {
  const adminHeaders = await signIn(url, BENCH_ADMIN);
  const created = await call(url, 'POST', '/api/v1/auth/admin/create-user', { ...MEMBER, name: 'Bench reader' }, adminHeaders);
  const userId = (created.user as { id: string }).id;
  const position = await call(url, 'POST', '/api/v1/data/sys_position', { name: READER_POSITION }, adminHeaders);
  await call(url, 'POST', '/api/v1/data/sys_user_position', { user_id: userId, position: position.id }, adminHeaders);
  const memberHeaders = await signIn(url, MEMBER);
  const total = async (headers: Record<string, string>) => (await call(url, 'GET', `/api/v1/data/${BENCH_OBJECT}?limit=1`, undefined, headers)).total as number;
  const totals = { member: await total(memberHeaders), admin: await total(adminHeaders) };
  if (!(totals.member > 0 && totals.member < totals.admin)) throw new Error(`the row policy should show the member some rows but not all: member ${totals.member}, admin ${totals.admin}`);
  return { adminHeaders, memberHeaders, totals };
}
