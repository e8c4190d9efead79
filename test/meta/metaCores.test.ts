/** Pure cores of the metadata API: audience gating, patch merging, references. */
import t from 'tap';
import type { Principal } from '../../capabilities/authSession.ts';
import type { BookNode } from '../../metadata/types.ts';
import { applyObjectPatch, mergePatches } from '../../plugins/meta/api/applyPatch.ts';
import type { ObjectDoc } from '../../plugins/meta/api/describeItems.ts';
import { gateNodes, satisfies, toTree } from '../../plugins/meta/api/gateBook.ts';
import { parseEntry } from '../../plugins/meta/api/objectSections.ts';

const principal = (sets: string[], isAdmin = false): Principal => ({ kind: 'user', userId: 'u', environmentId: 'e', isAdmin, positions: [], permissionSets: sets, permissions: [] });

t.test('audiences', async (t) => {
  t.equal(satisfies(null, undefined), true, 'no audience: everyone, anonymous included');
  t.equal(satisfies(null, { permissionSet: 'a' }), false, 'anonymous: never in an audience');
  t.equal(satisfies(principal(['a']), { permissionSet: 'a' }), true);
  t.equal(satisfies(principal(['b']), { permissionSet: 'a' }), false);
  t.equal(satisfies(principal([], true), { permissionSet: 'a' }), true, 'admins are in every audience');
  const nodes: BookNode[] = [
    { name: 'open', kind: 'page', object: 'x' },
    { name: 'gated', kind: 'page', object: 'x', audience: { permissionSet: 'a' } },
    { name: 'mixed', kind: 'section', children: [{ name: 'inner', kind: 'page', object: 'x', audience: { permissionSet: 'b' } }, { name: 'free', kind: 'page', object: 'y' }] },
    { name: 'emptied', kind: 'section', children: [{ name: 'only', kind: 'page', object: 'x', audience: { permissionSet: 'b' } }] },
  ];
  const names = (list: BookNode[]): string[] => list.flatMap((n) => [n.name, ...names(n.children ?? [])]);
  t.same(names(gateNodes(nodes, principal([]))), ['open', 'mixed', 'free'], 'gated nodes removed, a section emptied by gating too');
  t.same(names(gateNodes(nodes, principal(['b']))), ['open', 'mixed', 'inner', 'free', 'emptied', 'only']);
  t.same(names(gateNodes(nodes, principal([], true))), names(nodes), 'admins: the whole tree');
  const tree = toTree(gateNodes(nodes, principal(['b'])), (o) => (o === 'y' ? 'Whys' : undefined));
  t.same(tree[1], { name: 'mixed', kind: 'section', label: 'Mixed', path: 'mixed', children: [
    { name: 'inner', kind: 'page', label: 'Inner', path: 'mixed/inner', object: 'x', audience: { permissionSet: 'b' } },
    { name: 'free', kind: 'page', label: 'Whys', path: 'mixed/free', object: 'y' },
  ] }, 'labels from the object or the name, paths from the root');
});

t.test('patches', async (t) => {
  t.equal(mergePatches([]), null, 'nothing: null');
  t.same(mergePatches([
    { labels: { label: 'A' }, fields: { f: { label: 'F', options: { x: 'X' } } } },
    { labels: { pluralLabel: 'Bs' }, fields: { f: { options: { y: 'Y' } } }, views: { v: { label: 'V', columns: ['f'] } } },
  ]), { labels: { label: 'A', pluralLabel: 'Bs' }, fields: { f: { label: 'F', options: { x: 'X', y: 'Y' } } }, views: { v: { label: 'V', columns: ['f'] } } }, 'later wins key by key');
  const doc: ObjectDoc = { name: 'o', label: 'O', pluralLabel: 'Os', fields: { f: { type: 'select', label: 'F', options: [{ value: 'x', label: 'X' }] } }, views: {} };
  const patched = applyObjectPatch(doc, { labels: { label: 'Oh' }, fields: { f: { options: { x: 'Ex' } }, gone: { label: 'stale' } } });
  t.same(patched, { name: 'o', label: 'Oh', pluralLabel: 'Os', fields: { f: { type: 'select', label: 'F', options: [{ value: 'x', label: 'Ex' }] } }, views: {} }, 'a patch of a field no longer declared has no effect');
  t.same(doc.fields.f!.options, [{ value: 'x', label: 'X' }], 'the base is not modified');
});

t.test('entry names', async (t) => {
  t.same(parseEntry('labels', 'account'), { object: 'account', key: null });
  t.same(parseEntry('fields', 'account.rating'), { object: 'account', key: 'rating' });
  for (const bad of ['account', 'account.', '.rating', 'a.b.c', 'Account.rating', 'account.rat ing']) t.equal(parseEntry('fields', bad), null, `'${bad}' is refused`);
  t.equal(parseEntry('labels', 'account.rating'), null, 'labels name the object only');
});
