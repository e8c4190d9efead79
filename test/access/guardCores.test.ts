/**
 * The pure cores of guards that test/access/pinnedGuards.test.ts and guards.test.ts pin over HTTP,
 * without a server: which rows a permission opens for reading and for editing (rowScope.ts), and
 * when a ban holds (userView.ts). The guard audit (test/guards/guardList.ts) runs these first.
 */
import t from 'tap';
import type { EngineUser } from '../../plugins/auth/authEngine.ts';
import { isBanned } from '../../plugins/auth/userView.ts';
import type { Grants, ObjectPerms } from '../../plugins/data/access/effectiveGrants.ts';
import { FALSE_CONDITION } from '../../plugins/data/access/compilePolicy.ts';
import { rowScope, type SharingInputs } from '../../plugins/data/access/rowScope.ts';
import { resolvedObject } from '../harness/fixtures.ts';

const member = { userId: 'u1', isAdmin: false, positionIds: [], positions: [], unitIds: [], organizationId: null } as unknown as Grants;
const perms = (extra: Partial<ObjectPerms>): ObjectPerms => ({ read: true, create: true, edit: true, delete: false, viewAll: false, modifyAll: false, ...extra });
const sharing = (access: 'read' | 'edit'): SharingInputs => ({
  shares: [{ id: 's1', object: 'doc', record_id: 'r1', recipient_type: 'user', recipient_id: 'u1', access }],
  rules: [],
  holders: () => [],
});
const none: SharingInputs = { shares: [], rules: [], holders: () => [] };
const doc = resolvedObject('doc', { title: { type: 'text' } });
/** The record ids a scope's share part opens (the owner part is always there). */
const sharedIds = (scope: ReturnType<typeof rowScope>) =>
  scope && scope.kind === 'or' ? scope.items.flatMap((c) => (c.kind === 'in' ? c.values : [])) : scope;

t.test('view all opens reading, modify all editing', async (t) => {
  t.equal(rowScope(doc, member, perms({ viewAll: true }), none, 'read'), null, 'view all: every row for reading');
  t.not(rowScope(doc, member, perms({ viewAll: true }), none, 'edit'), null, 'view all: not every row for editing');
  t.same(sharedIds(rowScope(doc, member, perms({ viewAll: true }), none, 'edit')), [], 'view all: editing its own rows only');
  t.equal(rowScope(doc, member, perms({ viewAll: true, modifyAll: true }), none, 'edit'), null, 'modify all: every row for editing');
  t.same(rowScope(doc, member, perms({ viewAll: true, edit: false }), none, 'edit'), FALSE_CONDITION, 'no edit permission: no row');
});

t.test('public_read opens reading, not editing', async (t) => {
  const notice = resolvedObject('notice', { title: { type: 'text' } }, { sharingModel: 'public_read' });
  t.equal(rowScope(notice, member, perms({}), none, 'read'), null, 'every row for reading');
  t.not(rowScope(notice, member, perms({}), none, 'edit'), null, 'not every row for editing');
  const open = resolvedObject('open', { title: { type: 'text' } }, { sharingModel: 'public_read_write' });
  t.equal(rowScope(open, member, perms({}), none, 'edit'), null, 'public_read_write: every row for editing');
});

t.test('a read share opens reading, an edit share both', async (t) => {
  t.same(sharedIds(rowScope(doc, member, perms({}), sharing('read'), 'read')), ['r1'], 'a read share: read');
  t.same(sharedIds(rowScope(doc, member, perms({}), sharing('read'), 'edit')), [], 'a read share: not edit');
  t.same(sharedIds(rowScope(doc, member, perms({}), sharing('edit'), 'edit')), ['r1'], 'an edit share: edit');
  t.same(sharedIds(rowScope(doc, member, perms({}), sharing('edit'), 'read')), ['r1'], 'an edit share: read too');
});

t.test('a ban holds until it expires', async (t) => {
  const now = Date.parse('2026-06-15T12:00:00Z');
  const user = (banned: boolean | number, banExpires: string | null): EngineUser => ({ id: 'u1', email: 'u1@example.com', name: 'u1', emailVerified: true, banned, banExpires, createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z' } as EngineUser);
  t.equal(isBanned(user(false, null), now), false, 'not banned');
  t.equal(isBanned(user(true, null), now), true, 'banned without an expiry');
  t.equal(isBanned(user(1, null), now), true, 'banned, as SQLite answers it');
  t.equal(isBanned(user(true, '2026-06-15T13:00:00Z'), now), true, 'banned until an hour from now');
  t.equal(isBanned(user(true, '2026-06-15T11:00:00Z'), now), false, 'a ban that expired an hour ago');
  t.equal(isBanned(user(false, '2026-06-15T13:00:00Z'), now), false, 'an expiry without a ban');
});
