/**
 * Guards of the engine and of authentication, each pinned over HTTP on both drivers. Each group of
 * rows goes red when the code it names is taken out:
 * - engine-owned rows: plugins/data/engine/writeRecords.ts, assertWritable called by updateRecord and by deleteRecord;
 * - atomic version: plugins/data/engine/writeRecords.ts, updateRecord and deleteRecord, the `where({ id, version })` of their write;
 * - banned API key: plugins/auth/createAuthenticator.ts, viaApiKey, `isBanned(owner)`;
 * - banned API key used before the ban: plugins/auth/createIdentityService.ts, the engine handler, `if (mutating) cache.clear(env.id)`;
 * - owner rule, expired holder: plugins/data/access/accessService.ts, buildProfile, `if (!isActive(row, now)) continue` of the holders;
 * - delete without view all: plugins/data/access/enforceAccess.ts, checkRowWrite, the read-scope test answering NOT_FOUND;
 * - unwritable field on create and import: plugins/data/engine/writeRecords.ts, guardObject, checkWritableFields for every action but delete;
 * - public_read edit: plugins/data/access/rowScope.ts, rowScope, `op === 'read'` of the public_read shortcut (and checkRowWrite's edit test);
 * - assignment and delegation windows: plugins/data/access/effectiveGrants.ts, effectiveGrants, `isActive(r, now)` of the held positions.
 */
import t from 'tap';
import { eachBackend } from '../auth/authHarness.ts';
import { buildGuardsWorld, HOOK_REGION, RACE_DELETE_TITLE, RACE_TITLE, type GuardsWorld, type GuardUser } from './guardsWorld.ts';

interface Row {
  name: string;
  user: GuardUser;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  url: (w: GuardsWorld) => string;
  body?: (w: GuardsWorld) => unknown;
  status: number;
  code?: string;
  must?: string[];
  mustNot?: (w: GuardsWorld) => string[];
  /** Exact values read from the body. */
  expect?: (body: any) => unknown; // eslint-disable-line @typescript-eslint/no-explicit-any
  want?: unknown;
  /** The expected values when they depend on the world (ids). */
  wantOf?: (w: GuardsWorld) => unknown;
}

const DOCS = ['DOC-A', 'DOC-B', 'DOC-C', 'DOC-D', 'DOC-E', 'DOC-X', 'DOC-F', 'DOC-BANNED', RACE_DELETE_TITLE];
const except = (...seen: string[]) => () => DOCS.filter((d) => !seen.includes(d));
const list = '/api/v1/data/doc?orderBy=title&limit=50';
const doc = (label: string) => (w: GuardsWorld) => `/api/v1/data/doc/${w.ids[label]}`;
const record = (object: string, label: string) => (w: GuardsWorld) => `/api/v1/data/${object}/${w.ids[label]}`;
const titles = (b: { items: Array<{ title: string }> }) => b.items.map((d) => d.title);

const ROWS: Row[] = [
  // Engine-owned rows are read-only through /data, for their owners and admins alike.
  { name: 'admin cannot patch a record share through /data', user: 'admin', method: 'PATCH', url: record('sys_record_share', 'shareB'), body: () => ({ access: 'edit' }), status: 403, code: 'SYSTEM_OBJECT_READ_ONLY', mustNot: () => ['"access":"edit"'] },
  { name: 'the sharing doc owner cannot patch its share through /data', user: 'other', method: 'PATCH', url: record('sys_record_share', 'shareB'), body: () => ({ access: 'edit' }), status: 403, code: 'SYSTEM_OBJECT_READ_ONLY', mustNot: () => ['"access":"edit"'] },
  { name: 'admin cannot delete a record share through /data', user: 'admin', method: 'DELETE', url: record('sys_record_share', 'shareB'), status: 403, code: 'SYSTEM_OBJECT_READ_ONLY' },
  { name: 'the share is unchanged', user: 'admin', method: 'GET', url: record('sys_record_share', 'shareB'), status: 200, must: ['"access":"read"'], mustNot: () => ['"access":"edit"'] },
  { name: 'the sharee still reads DOC-B through the share', user: 'sharee', method: 'GET', url: doc('docB'), status: 200, must: ['DOC-B'] },
  { name: 'the sharee still cannot edit DOC-B', user: 'sharee', method: 'PATCH', url: doc('docB'), body: () => ({ title: 'PWNED' }), status: 403, code: 'PERMISSION_DENIED', mustNot: () => ['PWNED'] },
  { name: 'admin cannot patch a sharing rule through /data', user: 'admin', method: 'PATCH', url: record('sys_sharing_rule', 'ownerRule'), body: (w) => ({ recipient_id: w.users.owner.id }), status: 403, code: 'SYSTEM_OBJECT_READ_ONLY', mustNot: (w) => [w.users.owner.id] },
  { name: 'admin cannot delete a sharing rule through /data', user: 'admin', method: 'DELETE', url: record('sys_sharing_rule', 'ownerRule'), status: 403, code: 'SYSTEM_OBJECT_READ_ONLY' },
  { name: 'the rule is unchanged', user: 'admin', method: 'GET', url: record('sys_sharing_rule', 'ownerRule'), status: 200, must: ['field_rep_docs'], expect: (b) => b.recipient_id, wantOf: (w) => w.users.reader.id, mustNot: (w) => [w.users.owner.id] },
  { name: 'owner still sees only its own doc', user: 'owner', method: 'GET', url: () => list, status: 200, must: ['DOC-A'], mustNot: except('DOC-A'), expect: titles, want: ['DOC-A'] },

  // Owner-based sharing rule: only current holders' records are opened.
  { name: "the reader sees the docs of the field rep's current holder only", user: 'reader', method: 'GET', url: () => list, status: 200, must: ['DOC-B', 'DOC-C', 'DOC-E'], mustNot: except('DOC-B', 'DOC-C', 'DOC-E'), expect: titles, want: ['DOC-B', 'DOC-C', 'DOC-E'] },
  { name: 'the reader cannot get the doc of an expired holder', user: 'reader', method: 'GET', url: doc('docX'), status: 404, code: 'NOT_FOUND', mustNot: () => ['DOC-X'] },
  { name: 'the reader cannot get the doc of a future holder', user: 'reader', method: 'GET', url: doc('docF'), status: 404, code: 'NOT_FOUND', mustNot: () => ['DOC-F'] },
  { name: 'a count over the rule does not reveal them', user: 'reader', method: 'POST', url: () => '/api/v1/data/doc/query', body: () => ({ aggregations: [{ function: 'count', alias: 'n' }] }), status: 200, expect: (b) => b.items[0].n, want: 3 },

  // Position assignments and delegations outside their windows grant nothing.
  { name: 'expired (EU manager until yesterday, rep delegated until yesterday) sees only its own doc', user: 'expired', method: 'GET', url: () => list, status: 200, must: ['DOC-X'], mustNot: except('DOC-X'), expect: titles, want: ['DOC-X'] },
  { name: 'future (EU manager and rep delegation from tomorrow) sees only its own doc', user: 'future', method: 'GET', url: () => list, status: 200, must: ['DOC-F'], mustNot: except('DOC-F'), expect: titles, want: ['DOC-F'] },
  { name: 'expired cannot get the EU doc of the policy', user: 'expired', method: 'GET', url: doc('docE'), status: 404, code: 'NOT_FOUND', mustNot: () => ['DOC-E'] },
  { name: 'future cannot get the unit-shared doc', user: 'future', method: 'GET', url: doc('docC'), status: 404, code: 'NOT_FOUND', mustNot: () => ['DOC-C'] },
  { name: 'explain finds no position and no reason for expired', user: 'admin', method: 'GET', url: (w) => `/api/v1/access/explain?object=doc&userId=${w.users.expired.id}&recordId=${w.ids.docE}`, status: 200, expect: (b) => [b.positions, b.read.allowed], want: [[], false] },

  // Delete without view all: a record outside the read scope is not found.
  { name: "the deleter cannot delete other's private doc: 404", user: 'deleter', method: 'DELETE', url: doc('docB'), status: 404, code: 'NOT_FOUND', mustNot: () => ['DOC-B'] },
  { name: "the deleter cannot delete the unit-shared doc either: 404", user: 'deleter', method: 'DELETE', url: doc('docC'), status: 404, code: 'NOT_FOUND', mustNot: () => ['DOC-C'] },
  { name: 'DOC-B is still there', user: 'admin', method: 'GET', url: doc('docB'), status: 200, must: ['DOC-B'] },
  { name: 'the deleter deletes its own doc', user: 'deleter', method: 'DELETE', url: doc('docD'), status: 204 },

  // A field one may not edit is refused on create and on import, not only on update.
  { name: 'owner creating a doc with the secret: 403', user: 'owner', method: 'POST', url: () => '/api/v1/data/doc', body: () => ({ title: 'DOC-SNEAK', secret: 'SNEAK-SECRET' }), status: 403, code: 'PERMISSION_DENIED', mustNot: () => ['DOC-SNEAK', 'SNEAK-SECRET'], expect: (b) => b.error.details.permission, want: 'doc.secret:edit' },
  { name: 'owner importing JSON rows with the secret: rejected', user: 'owner', method: 'POST', url: () => '/api/v1/data/doc/import', body: () => ({ format: 'json', rows: [{ title: 'DOC-IMPORTED', secret: 'IMPORTED-SECRET' }] }), status: 400, code: 'IMPORT_REJECTED', mustNot: () => ['IMPORTED-SECRET'], expect: (b) => [b.error.details.created, b.error.details.errors[0].code], want: [0, 'PERMISSION_DENIED'] },
  { name: 'owner importing a CSV with the secret, not atomic: the row fails', user: 'owner', method: 'POST', url: () => '/api/v1/data/doc/import', body: () => ({ format: 'csv', csv: 'title,secret\nDOC-CSV,CSV-SECRET\n', atomic: false }), status: 200, mustNot: () => ['CSV-SECRET'], expect: (b) => [b.created, b.failed, b.errors[0].code], want: [0, 1, 'PERMISSION_DENIED'] },
  { name: 'none of them was written', user: 'admin', method: 'GET', url: () => list, status: 200, must: ['DOC-A'], mustNot: () => ['DOC-SNEAK', 'SNEAK-SECRET', 'DOC-IMPORTED', 'IMPORTED-SECRET', 'DOC-CSV', 'CSV-SECRET'] },

  // public_read opens reading, not editing.
  { name: "owner reads other's public_read notice", user: 'owner', method: 'GET', url: record('notice', 'notice'), status: 200, must: ['NOTICE-1'] },
  { name: "owner editing other's public_read notice: 403", user: 'owner', method: 'PATCH', url: record('notice', 'notice'), body: () => ({ title: 'NOTICE-DEFACED' }), status: 403, code: 'PERMISSION_DENIED', mustNot: () => ['NOTICE-DEFACED'], expect: (b) => b.error.details.permission, want: 'notice:edit' },
  { name: 'the notice is unchanged', user: 'other', method: 'GET', url: record('notice', 'notice'), status: 200, must: ['NOTICE-1'], mustNot: () => ['NOTICE-DEFACED'], expect: (b) => b.version, want: 1 },

  // The version written is the version read: a change in between (here by a hook in the same transaction) is a conflict.
  { name: 'an update whose record changed after it was read: 409', user: 'owner', method: 'PATCH', url: doc('docA'), body: () => ({ title: RACE_TITLE }), status: 409, code: 'CONCURRENT_UPDATE', mustNot: () => [RACE_TITLE, HOOK_REGION], expect: (b) => [b.error.details.expectedVersion, b.error.details.currentVersion], want: [2, 3] },
  { name: 'and nothing of it, nor of the hook, was kept', user: 'owner', method: 'GET', url: doc('docA'), status: 200, must: ['DOC-A', '"region":"US"'], mustNot: () => [RACE_TITLE, HOOK_REGION], expect: (b) => b.version, want: 2 },
  { name: 'a delete whose record changed after it was read: 409', user: 'deleter', method: 'DELETE', url: doc('docRace'), status: 409, code: 'CONCURRENT_UPDATE', expect: (b) => [b.error.details.expectedVersion, b.error.details.currentVersion], want: [1, 2] },
  { name: 'the doc is still there, without the change of the hook', user: 'deleter', method: 'GET', url: doc('docRace'), status: 200, must: [RACE_DELETE_TITLE, '"region":"US"'], mustNot: () => [HOOK_REGION], expect: (b) => b.version, want: 1 },

  // A banned member's API keys are refused, whether or not they were used before the ban.
  { name: 'a key of a banned member, unused before the ban: 401', user: 'bannedKey', method: 'GET', url: () => list, status: 401, code: 'UNAUTHENTICATED', mustNot: () => ['DOC-BANNED'] },
  { name: 'a key of a banned member, used before the ban: 401', user: 'bannedCachedKey', method: 'GET', url: () => list, status: 401, code: 'UNAUTHENTICATED', mustNot: () => ['DOC-BANNED'] },
  { name: 'a key of a banned member cannot write', user: 'bannedKey', method: 'POST', url: () => '/api/v1/data/doc', body: () => ({ title: 'DOC-BY-BANNED' }), status: 401, code: 'UNAUTHENTICATED' },
  { name: 'nothing was written by the banned key', user: 'admin', method: 'GET', url: () => list, status: 200, must: ['DOC-BANNED'], mustNot: () => ['DOC-BY-BANNED'] },
];

/** A body without the expected shape fails its own row, not the rows after it. */
function read(expect: NonNullable<Row['expect']>, body: unknown): unknown {
  try {
    return expect(body);
  } catch (error) {
    return `unreadable body: ${(error as Error).message}`;
  }
}

t.test('guards', async (t) => {
  await eachBackend(t, ['guards'], async (t, site) => {
    const w = await buildGuardsWorld(t, site);
    for (const row of ROWS) {
      const res = await w.as(row.user, row.method, row.url(w), row.body?.(w));
      const text = JSON.stringify(res.body);
      t.equal(res.status, row.status, `${row.name}: status (${text.slice(0, 200)})`);
      if (row.code) t.equal(res.body?.error?.code, row.code, `${row.name}: code`);
      for (const s of row.must ?? []) t.ok(text.includes(s), `${row.name}: shows ${s}`);
      for (const s of row.mustNot?.(w) ?? []) t.notOk(text.includes(s), `${row.name}: hides ${s}`);
      if (row.expect) t.same(read(row.expect, res.body), row.wantOf ? row.wantOf(w) : row.want, `${row.name}: values`);
    }
  });
});
