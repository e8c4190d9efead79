import type autocannon from 'autocannon';
import { BENCH_OBJECT, createBody, STATUSES } from './benchObject.ts';

export type Target = 'runtime' | 'baseline';

/** What one load run shares between its connections. */
export interface RunContext {
  /** Random ids to read. */
  ids: readonly string[];
  /** Records updated under load: connection i owns updateIds[i]. */
  updateIds: readonly string[];
  /** Hands each connection the next owned record index. */
  claim(): number;
  /** Headers every runtime request carries (anonymous scenarios: none). */
  runtimeHeaders: Record<string, string>;
  /** The signed-in admin and row-policy member (bench/benchUsers.ts). */
  users: { adminHeaders: Record<string, string>; memberHeaders: Record<string, string> };
  /** Random ids of records the row-policy member may read. */
  memberIds: readonly string[];
  /** Rows seeded before the run. */
  seededRows: number;
  /** Records one answer's time under its kind (mixed scenarios: p50/p99 per kind, bench/runLoad.ts). */
  timeKind?(kind: string, ms: number, status: number): void;
}

export interface Scenario {
  name: string;
  description: string;
  /** Targets of the issue this scenario is measured against. */
  target?: 'get' | 'list' | 'rls';
  /** Not measurable yet: why. Listed in the results as pending. */
  pending?: string;
  /**
   * What the runtime is measured against: the bare baseline server (default), or the runtime
   * itself signed in as the admin (then `baseline` in connection() means "the admin").
   */
  against?: 'baseline' | 'admin';
  /** The request sequence of one connection (closures may keep per-connection state). */
  connection?(target: Target, run: RunContext): autocannon.Request[];
  /** A bulk operation: one request timed end to end, `runs` times, instead of a load. */
  timed?: { runs: number; rows(run: RunContext): number; request(target: Target, run: RunContext): { path: string; body: string } };
}

const API = `/api/v1/data/${BENCH_OBJECT}`;
const JSON_HEADERS = { 'content-type': 'application/json' };
const pick = <T>(list: readonly T[]): T => list[Math.floor(Math.random() * list.length)]!;
const where = (status: string) => encodeURIComponent(JSON.stringify({ status }));
const headersFor = (target: Target, run: RunContext, extra: Record<string, string> = {}) =>
  target === 'runtime' ? { ...run.runtimeHeaders, ...extra } : extra;

/** Cursor from the tail of a list response, without parsing the whole page. */
function nextCursorOf(body: string): string | null {
  const at = body.lastIndexOf('"nextCursor":"');
  if (at === -1) return null;
  const start = at + '"nextCursor":"'.length;
  return body.slice(start, body.indexOf('"', start));
}

/** The runtime's reads of this scenario signed in with the admin's bearer token, against the baseline. */
function signedInAdmin(base: Scenario): Scenario {
  return {
    name: `${base.name} (signed-in admin)`,
    description: `${base.name} with the admin's session bearer token (verified on every request)`,
    connection: (target, run) => base.connection!(target, { ...run, runtimeHeaders: run.users.adminHeaders }),
  };
}

/**
 * The same reads as a member whose rows come from a row policy, against the admin (no row scope)
 * on the same runtime, with the same requests (get-by-id reads ids the member may see).
 */
function rowPolicyUser(base: Scenario): Scenario {
  return {
    name: `${base.name} (row-policy user)`,
    description: `${base.name} as a member whose reads carry a row policy (status open or active, about half the rows), against the admin`,
    target: 'rls',
    against: 'admin',
    connection: (target, run) => base.connection!('runtime', {
      ...run,
      ids: run.memberIds,
      runtimeHeaders: target === 'runtime' ? run.users.memberHeaders : run.users.adminHeaders,
    }),
  };
}

const READS: Scenario[] = [
  {
    name: 'health',
    description: 'GET /api/v1/health: the HTTP shell alone (request id, environment, auth guard), no data engine',
    connection: (target, run) => [{ method: 'GET', headers: headersFor(target, run), path: target === 'runtime' ? '/api/v1/health' : '/baseline/health' }],
  },
  {
    name: 'get-by-id', target: 'get',
    description: 'GET one record by a random id from a pool of 1,000 seeded ids',
    connection: (target, run) => [{
      method: 'GET',
      headers: headersFor(target, run),
      setupRequest: (request) => ({ ...request, path: `${target === 'runtime' ? API : '/baseline/items'}/${pick(run.ids)}` }),
    }],
  },
  {
    name: 'first-page', target: 'list',
    description: 'GET the first page (limit 50, default order) with the total count',
    connection: (target, run) => [{
      method: 'GET',
      headers: headersFor(target, run),
      path: target === 'runtime' ? `${API}?limit=50` : '/baseline/items?limit=50',
    }],
  },
  {
    name: 'filtered-sorted', target: 'list',
    description: 'GET status = <random status>, ordered by amount descending, limit 50, with the filtered total',
    connection: (target, run) => [{
      method: 'GET',
      headers: headersFor(target, run),
      setupRequest: (request) => {
        const status = pick(STATUSES);
        return { ...request, path: target === 'runtime' ? `${API}?where=${where(status)}&orderBy=-amount&limit=50` : `/baseline/items/filtered?status=${status}&limit=50` };
      },
    }],
  },
  {
    name: 'cursor-walk',
    description: 'Each connection walks the object by amount, 50 rows a page, following nextCursor (restarting at the end)',
    connection: (target, run) => {
      let cursor: string | null = null;
      const base = target === 'runtime' ? `${API}?orderBy=amount&limit=50` : '/baseline/items/walk?limit=50';
      return [{
        method: 'GET',
        headers: headersFor(target, run),
        setupRequest: (request) => ({ ...request, path: cursor ? `${base}&cursor=${encodeURIComponent(cursor)}` : base }),
        onResponse: (status, body) => {
          cursor = status === 200 ? nextCursorOf(body) : null;
        },
      }];
    },
  },
  {
    name: 'group-by-count',
    description: 'POST a query counting records per status (a full scan of the object)',
    connection: (target, run) => [{
      method: 'POST',
      headers: headersFor(target, run, JSON_HEADERS),
      path: target === 'runtime' ? `${API}/query` : '/baseline/items/count-by-status',
      body: JSON.stringify({ groupBy: ['status'], aggregations: [{ function: 'count', alias: 'n' }] }),
    }],
  },
];

export const SCENARIOS: Scenario[] = [
  ...READS,
  signedInAdmin(READS.find((s) => s.name === 'get-by-id')!),
  ...READS.filter((s) => s.name !== 'health').map(rowPolicyUser),
  {
    name: 'export-100k',
    description: 'POST /export as CSV of every seeded row (100k by default), streamed, timed to the last byte, 3 times',
    timed: {
      runs: 3, rows: (run) => run.seededRows,
      request: (target) => (target === 'runtime' ? { path: `${API}/export`, body: JSON.stringify({ format: 'csv' }) } : { path: '/baseline/items/export', body: '{}' }),
    },
  },
  {
    name: 'create',
    description: 'POST a new record (10 fields), 201 with the stored record',
    connection: (target, run) => {
      let n = 0;
      return [{
        method: 'POST',
        headers: headersFor(target, run, JSON_HEADERS),
        path: target === 'runtime' ? API : '/baseline/items',
        setupRequest: (request) => ({ ...request, body: JSON.stringify(createBody(n++)) }),
      }];
    },
  },
  {
    name: 'update-if-match',
    description: 'PATCH a counter with If-Match; each connection owns one record and sends its fresh version (a GET first, and after any non-2xx)',
    connection: (target, run) => {
      const id = run.updateIds[run.claim() % run.updateIds.length]!;
      const path = `${target === 'runtime' ? API : '/baseline/items'}/${id}`;
      let version: number | null = null;
      return [{
        setupRequest: (request) => version === null
          ? { ...request, method: 'GET', path, headers: headersFor(target, run), body: '' }
          : { ...request, method: 'PATCH', path, headers: headersFor(target, run, { ...JSON_HEADERS, 'if-match': `"${version}"` }), body: JSON.stringify({ counter: version }) },
        onResponse: (status, body) => {
          const match = status < 300 ? /"version":(\d+)/.exec(body) : null;
          version = match ? Number(match[1]) : null;
        },
      }];
    },
  },
  {
    name: 'import-5000',
    description: 'POST /import of 5,000 JSON rows in one request (atomic), timed end to end, 3 times',
    timed: {
      runs: 3, rows: () => 5000,
      request: (target) => {
        const rows = Array.from({ length: 5000 }, (_, i) => createBody(i));
        return target === 'runtime'
          ? { path: `${API}/import`, body: JSON.stringify({ format: 'json', rows }) }
          : { path: '/baseline/items/import', body: JSON.stringify({ rows }) };
      },
    },
  },
];
