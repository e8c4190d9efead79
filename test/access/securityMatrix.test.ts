import t from 'tap';
import { eachBackend } from '../auth/authHarness.ts';
import { buildWorld, type UserKey, type World } from './accessWorld.ts';

/**
 * The security matrix: each row a user, a request on one read or write path, the expected status,
 * what must appear and what must NOT (hidden record titles, hidden field values, counts).
 */
interface Row {
  name: string;
  user: UserKey;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  url: (ids: Record<string, string>) => string;
  body?: (w: World) => unknown;
  status: number;
  code?: string;
  must?: string[];
  mustNot?: string[];
  /** Exact values at paths of the body. */
  expect?: (body: any) => Record<string, unknown>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

const ALL = ['DOC-A', 'DOC-B', 'DOC-C', 'DOC-E'];
const SECRETS = ['SECRET-A', 'SECRET-B', 'SECRET-C', 'SECRET-E'];
const others = (...seen: string[]) => ALL.filter((d) => !seen.includes(d));
const list = '/api/v1/data/doc?orderBy=title';
const query = '/api/v1/data/doc/query';
const total = (n: number) => (b: { total: number; items: unknown[] }) => ({ total: b.total, items: b.items.length });
const count = [{ function: 'count', alias: 'n' }];

const ROWS: Row[] = [
  // List: ownership, shares, hierarchy, policies, view all, validity windows.
  { name: 'admin lists every doc with its secret', user: 'admin', method: 'GET', url: () => list, status: 200, must: [...ALL, ...SECRETS], expect: (b) => total(4)(b) },
  { name: 'owner lists only its own doc, without the secret', user: 'owner', method: 'GET', url: () => list, status: 200, must: ['DOC-A'], mustNot: [...others('DOC-A'), ...SECRETS, '"secret"'], expect: (b) => total(1)(b) },
  { name: 'other lists its three docs', user: 'other', method: 'GET', url: () => list, status: 200, must: ['DOC-B', 'DOC-C', 'DOC-E'], mustNot: ['DOC-A', ...SECRETS], expect: (b) => total(3)(b) },
  { name: 'sharee lists the doc shared with it', user: 'sharee', method: 'GET', url: () => list, status: 200, must: ['DOC-B'], mustNot: [...others('DOC-B'), ...SECRETS], expect: (b) => total(1)(b) },
  { name: 'a rep under the shared unit lists the unit-shared doc', user: 'unitMember', method: 'GET', url: () => list, status: 200, must: ['DOC-C'], mustNot: [...others('DOC-C'), ...SECRETS], expect: (b) => total(1)(b) },
  { name: 'the EU manager sees the EU doc through the row policy', user: 'euManager', method: 'GET', url: () => list, status: 200, must: ['DOC-E'], mustNot: [...others('DOC-E'), ...SECRETS], expect: (b) => total(1)(b) },
  { name: 'view all (permission set) sees every doc and the secret', user: 'viewAll', method: 'GET', url: () => list, status: 200, must: [...ALL, ...SECRETS], expect: (b) => total(4)(b) },
  { name: 'an expired assignment grants nothing', user: 'expired', method: 'GET', url: () => list, status: 200, mustNot: [...ALL, ...SECRETS], expect: (b) => total(0)(b) },
  { name: 'a future assignment grants nothing yet', user: 'future', method: 'GET', url: () => list, status: 200, mustNot: [...ALL, ...SECRETS], expect: (b) => total(0)(b) },
  // Get.
  { name: 'owner gets its doc without the secret', user: 'owner', method: 'GET', url: (ids) => `/api/v1/data/doc/${ids.docA}`, status: 200, must: ['DOC-A'], mustNot: ['SECRET-A', '"secret"'] },
  { name: 'owner cannot get a hidden doc: 404', user: 'owner', method: 'GET', url: (ids) => `/api/v1/data/doc/${ids.docB}`, status: 404, code: 'NOT_FOUND', mustNot: ['DOC-B', 'SECRET-B'] },
  { name: 'sharee gets the shared doc', user: 'sharee', method: 'GET', url: (ids) => `/api/v1/data/doc/${ids.docB}`, status: 200, must: ['DOC-B'], mustNot: ['SECRET-B'] },
  { name: 'expired cannot get a doc', user: 'expired', method: 'GET', url: (ids) => `/api/v1/data/doc/${ids.docB}`, status: 404, code: 'NOT_FOUND', mustNot: ['DOC-B'] },
  // Query with total, aggregations: a count never reveals hidden rows.
  { name: 'owner query total counts only visible rows', user: 'owner', method: 'POST', url: () => query, body: () => ({ where: { region: 'US' } }), status: 200, must: ['DOC-A'], mustNot: ['DOC-B', 'DOC-C'], expect: (b) => total(1)(b) },
  // A filter on a field the scope also tests narrows the scope (narrowScope.ts): never widens it.
  { name: 'the EU manager filtering on EU sees the policy-opened doc', user: 'euManager', method: 'POST', url: () => query, body: () => ({ where: { region: 'EU' } }), status: 200, must: ['DOC-E'], mustNot: [...others('DOC-E'), ...SECRETS], expect: (b) => total(1)(b) },
  { name: 'the EU manager filtering on US sees nothing', user: 'euManager', method: 'POST', url: () => query, body: () => ({ where: { region: 'US' } }), status: 200, mustNot: [...ALL, ...SECRETS], expect: (b) => total(0)(b) },
  { name: 'other filtering on EU sees only its own EU doc', user: 'other', method: 'POST', url: () => query, body: () => ({ where: { region: 'EU' } }), status: 200, must: ['DOC-E'], mustNot: [...others('DOC-E'), ...SECRETS], expect: (b) => total(1)(b) },
  { name: 'sharee filtering on US keeps its share', user: 'sharee', method: 'POST', url: () => query, body: () => ({ where: { region: 'US' } }), status: 200, must: ['DOC-B'], mustNot: [...others('DOC-B'), ...SECRETS], expect: (b) => total(1)(b) },
  { name: 'owner aggregation count is 1', user: 'owner', method: 'POST', url: () => query, body: () => ({ aggregations: count }), status: 200, expect: (b) => ({ n: b.items[0].n }) },
  { name: 'other grouped count by region hides the owner doc', user: 'other', method: 'POST', url: () => query, body: () => ({ groupBy: ['region'], aggregations: count, orderBy: 'region' }), status: 200, expect: (b) => ({ groups: JSON.stringify(b.items) }) },
  // Grouped by the field the policy tests, the count is read in parts (partitionScope.ts): the policy's region unrestricted, the rest under the owner test.
  { name: 'the EU manager grouped by region counts the policy-opened region only', user: 'euManager', method: 'POST', url: () => query, body: () => ({ groupBy: ['region'], aggregations: count, orderBy: 'region' }), status: 200, expect: (b) => ({ groups: JSON.stringify(b.items) }) },
  { name: 'admin aggregation count is 4', user: 'admin', method: 'POST', url: () => query, body: () => ({ aggregations: count }), status: 200, expect: (b) => ({ n: b.items[0].n }) },
  // Expand and join: the referenced object's scope applies.
  { name: 'owner expands its folder', user: 'owner', method: 'GET', url: (ids) => `/api/v1/data/doc/${ids.docA}?expand=folder`, status: 200, must: ['FOLDER-1'] },
  { name: 'sharee expanding a hidden folder gets null', user: 'sharee', method: 'GET', url: (ids) => `/api/v1/data/doc/${ids.docB}?expand=folder`, status: 200, must: ['DOC-B'], mustNot: ['FOLDER-1'], expect: (b) => ({ folder: b.folder }) },
  { name: 'sharee joining a hidden folder gets no folder name', user: 'sharee', method: 'POST', url: () => query, body: () => ({ joins: [{ type: 'left', object: 'folder', as: 'f', on: 'folder = f.id' }], fields: ['title', 'f.name'] }), status: 200, must: ['DOC-B'], mustNot: ['FOLDER-1'], expect: (b) => total(1)(b) },
  { name: 'an inner join cannot reach a hidden doc', user: 'owner', method: 'POST', url: () => '/api/v1/data/folder/query', body: () => ({ joins: [{ type: 'inner', object: 'doc', as: 'd', on: 'id = d.folder' }], fields: ['name', 'd.title'] }), status: 200, must: ['DOC-A'], mustNot: ['DOC-B'], expect: (b) => total(1)(b) },
  // Writes.
  { name: 'owner updates its doc', user: 'owner', method: 'PATCH', url: (ids) => `/api/v1/data/doc/${ids.docA}`, body: () => ({ title: 'DOC-A' }), status: 200, must: ['DOC-A'], mustNot: ['SECRET-A'] },
  { name: 'owner updating a hidden doc: 404', user: 'owner', method: 'PATCH', url: (ids) => `/api/v1/data/doc/${ids.docB}`, body: () => ({ title: 'pwned' }), status: 404, code: 'NOT_FOUND', mustNot: ['DOC-B'] },
  { name: 'sharee with a read share cannot update: 403', user: 'sharee', method: 'PATCH', url: (ids) => `/api/v1/data/doc/${ids.docB}`, body: () => ({ title: 'pwned' }), status: 403, code: 'PERMISSION_DENIED', expect: (b) => ({ permission: b.error.details.permission }) },
  { name: 'a member cannot delete, even its own doc', user: 'owner', method: 'DELETE', url: (ids) => `/api/v1/data/doc/${ids.docA}`, status: 403, code: 'PERMISSION_DENIED', expect: (b) => ({ permission: b.error.details.permission, subject: b.error.details.subjectId === undefined }) },
  // Field-level security: no filter oracle, no writes.
  { name: 'owner filtering on the hidden field: 403', user: 'owner', method: 'POST', url: () => query, body: () => ({ where: { secret: 'SECRET-A' } }), status: 403, code: 'PERMISSION_DENIED', mustNot: ['DOC-A'], expect: (b) => ({ field: b.error.details.field }) },
  { name: 'owner filtering on the hidden field with a value that matches nothing: same 403', user: 'owner', method: 'POST', url: () => query, body: () => ({ where: { secret: 'nothing' } }), status: 403, code: 'PERMISSION_DENIED', expect: (b) => ({ field: b.error.details.field }) },
  { name: 'owner sorting on the hidden field: 403', user: 'owner', method: 'GET', url: () => '/api/v1/data/doc?orderBy=secret', status: 403, code: 'PERMISSION_DENIED', expect: (b) => ({ field: b.error.details.field }) },
  { name: 'owner grouping on the hidden field: 403', user: 'owner', method: 'POST', url: () => query, body: () => ({ groupBy: ['secret'], aggregations: count }), status: 403, code: 'PERMISSION_DENIED' },
  { name: 'owner selecting the hidden field: 403', user: 'owner', method: 'GET', url: (ids) => `/api/v1/data/doc/${ids.docA}?select=secret`, status: 403, code: 'PERMISSION_DENIED', mustNot: ['SECRET-A'] },
  // A formula over the hidden field tells what it holds: it is hidden with it.
  { name: 'owner selecting a formula over the hidden field: 403', user: 'owner', method: 'GET', url: (ids) => `/api/v1/data/doc/${ids.docA}?select=secret_shout`, status: 403, code: 'PERMISSION_DENIED', mustNot: ['SECRET-A'], expect: (b) => ({ field: b.error.details.field }) },
  { name: 'owner sorting on a formula over the hidden field: 403', user: 'owner', method: 'GET', url: () => '/api/v1/data/doc?orderBy=secret_shout', status: 403, code: 'PERMISSION_DENIED', mustNot: ['SECRET-A'], expect: (b) => ({ field: b.error.details.field }) },
  { name: 'view all reads the formula over the secret', user: 'viewAll', method: 'GET', url: (ids) => `/api/v1/data/doc/${ids.docA}?select=secret_shout`, status: 200, must: ['SECRET-A!'] },
  { name: 'owner writing the hidden field: 403', user: 'owner', method: 'PATCH', url: (ids) => `/api/v1/data/doc/${ids.docA}`, body: () => ({ secret: 'x' }), status: 403, code: 'PERMISSION_DENIED', expect: (b) => ({ permission: b.error.details.permission }) },
  { name: 'view all filters on the field it may read', user: 'viewAll', method: 'POST', url: () => query, body: () => ({ where: { secret: 'SECRET-B' } }), status: 200, must: ['DOC-B'], mustNot: ['DOC-A'], expect: (b) => total(1)(b) },
  // The permission model itself.
  { name: 'a member cannot write the link objects', user: 'owner', method: 'POST', url: () => '/api/v1/data/sys_user_permission_set', body: (w) => ({ user_id: w.users.owner.id, permission_set: w.ids.auditor }), status: 403, code: 'PERMISSION_DENIED', expect: (b) => ({ permission: b.error.details.permission }) },
  { name: 'a member cannot create permission sets', user: 'owner', method: 'POST', url: () => '/api/v1/data/sys_permission_set', body: () => ({ name: 'mine', objects: { doc: { viewAll: true } } }), status: 403, code: 'PERMISSION_DENIED' },
  { name: 'a member cannot list assignments', user: 'owner', method: 'GET', url: () => '/api/v1/data/sys_user_permission_set', status: 403, code: 'PERMISSION_DENIED' },
  { name: 'engine-owned shares are read-only through /data, even for admins', user: 'admin', method: 'POST', url: () => '/api/v1/data/sys_record_share', body: (w) => ({ object: 'doc', record_id: w.ids.docA, recipient_type: 'user', recipient_id: w.users.other.id }), status: 403, code: 'SYSTEM_OBJECT_READ_ONLY' },
  { name: 'admins read shares through /data', user: 'admin', method: 'GET', url: () => '/api/v1/data/sys_record_share', status: 200, expect: (b) => total(2)(b) },
];

const EXPECTED: Record<string, Record<string, unknown>> = {
  'owner aggregation count is 1': { n: 1 },
  'other grouped count by region hides the owner doc': { groups: JSON.stringify([{ region: 'EU', n: 1 }, { region: 'US', n: 2 }]) },
  'the EU manager grouped by region counts the policy-opened region only': { groups: JSON.stringify([{ region: 'EU', n: 1 }]) },
  'admin aggregation count is 4': { n: 4 },
  'sharee expanding a hidden folder gets null': { folder: null },
  'sharee with a read share cannot update: 403': { permission: 'doc:edit' },
  'a member cannot delete, even its own doc': { permission: 'doc:delete', subject: false },
  'owner filtering on the hidden field: 403': { field: 'secret' },
  'owner filtering on the hidden field with a value that matches nothing: same 403': { field: 'secret' },
  'owner sorting on the hidden field: 403': { field: 'secret' },
  'owner selecting a formula over the hidden field: 403': { field: 'secret_shout' },
  'owner sorting on a formula over the hidden field: 403': { field: 'secret_shout' },
  'owner writing the hidden field: 403': { permission: 'doc.secret:edit' },
  'a member cannot write the link objects': { permission: 'sys_user_permission_set:create' },
};

t.test('security matrix', async (t) => {
  await eachBackend(t, ['access'], async (t, site) => {
    const w = await buildWorld(t, site);
    for (const row of ROWS) {
      const res = await w.as(row.user, row.method, row.url(w.ids), row.body?.(w));
      const text = JSON.stringify(res.body);
      t.equal(res.status, row.status, `${row.name}: status (${text.slice(0, 200)})`);
      if (row.code) t.equal(res.body?.error?.code, row.code, `${row.name}: code`);
      if (res.status === 403 && row.code === 'PERMISSION_DENIED') t.equal(res.body.error.details.subjectId, w.users[row.user].id, `${row.name}: subjectId`);
      for (const s of row.must ?? []) t.ok(text.includes(s), `${row.name}: shows ${s}`);
      for (const s of row.mustNot ?? []) t.notOk(text.includes(s), `${row.name}: hides ${s}`);
      if (row.expect) {
        const expected = EXPECTED[row.name] ?? {};
        const actual = row.expect(res.body);
        for (const [key, value] of Object.entries(expected)) t.same(actual[key], value, `${row.name}: ${key}`);
        if (row.name.includes('lists') || row.name.includes('total') || row.name.includes('join') || row.name.includes('filters') || row.name.includes('read shares')) {
          t.equal(actual.total, actual.items, `${row.name}: total equals the visible items`);
        }
      }
    }
  });
});
