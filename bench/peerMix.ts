/**
 * The mixed scenario of bench/peer.ts (bench/README.md leads with it): each of the 16 connections
 * draws its requests from a seeded generator (`--seed`, default 38; connection i uses seed + i),
 * so both servers get the same sequence of kinds and parameters:
 * - 45% `get`: one record by a random id of the seeded pool (1,000 ids);
 * - 25% `list`: a random `status` and `priority >=` 1 to 5, one of three sorts, a random page of
 *   the first five (50 a page), with the filtered total (Directus: meta=filter_count);
 * - 10% `group`: counts by status or by priority, half of them filtered (priority >= or status =);
 * - 10% `create`: a new record;
 * - 10% `update`: a random record of the pool, a new amount, no version (no If-Match).
 * Each answer's time is recorded under its kind (`run.timeKind`), for p50/p99 per kind.
 */
import type autocannon from 'autocannon';
import type { RunContext, Scenario, Target } from './scenarios.ts';
import { PEER_OBJECT, PEER_STATUSES, peerCreateBody } from './peerSeed.ts';
import { seededRandom } from '../test/harness/seededRandom.ts';

const RUNTIME = `/api/v1/data/${PEER_OBJECT}`;
const DIRECTUS = `/items/${PEER_OBJECT}`;
const JSON_HEADERS = { 'content-type': 'application/json' };
export const MIX_KINDS = ['get', 'list', 'group', 'create', 'update'] as const;
/** Cumulative shares of the kinds above, in percent. */
const SHARES = [45, 70, 80, 90, 100];
const SORTS = [
  { runtime: '-priority,due_date', directus: '-priority,due_date' },
  { runtime: 'due_date', directus: 'due_date' },
  { runtime: '-amount', directus: '-amount' },
];

let seed = 38;
/** The base seed of the mix (bench/peer.ts --seed). */
export function setMixSeed(value: number): void {
  seed = value;
}

/** A small seeded generator, the same sequence on both sides. */
const generator = seededRandom;

function mixConnection(target: Target, run: RunContext): autocannon.Request[] {
  const connection = run.claim();
  const random = generator(seed * 7919 + connection);
  const int = (n: number) => Math.floor(random() * n);
  const runtime = target === 'runtime';
  let created = 0;
  let kind: string = 'get';
  let started = 0;
  return [{
    setupRequest: (request) => {
      const roll = int(100);
      kind = MIX_KINDS[SHARES.findIndex((share) => roll < share)]!;
      const headers = { ...run.runtimeHeaders };
      let next: autocannon.Request;
      if (kind === 'get') {
        next = { ...request, method: 'GET', headers, body: undefined, path: `${runtime ? RUNTIME : DIRECTUS}/${run.ids[int(run.ids.length)]!}` };
      } else if (kind === 'list') {
        const status = PEER_STATUSES[int(PEER_STATUSES.length)]!;
        const priority = 1 + int(5);
        const sort = SORTS[int(SORTS.length)]!;
        const offset = int(5) * 50;
        next = {
          ...request, method: 'GET', headers, body: undefined,
          path: runtime
            ? `${RUNTIME}?where=${encodeURIComponent(JSON.stringify({ status, priority: { $gte: priority } }))}&orderBy=${sort.runtime}&limit=50${offset > 0 ? `&offset=${offset}` : ''}`
            : `${DIRECTUS}?filter[status][_eq]=${status}&filter[priority][_gte]=${priority}&sort=${sort.directus}&limit=50&offset=${offset}&meta=filter_count`,
        };
      } else if (kind === 'group') {
        const byStatus = int(2) === 0;
        const filtered = int(2) === 0;
        const field = byStatus ? 'status' : 'priority';
        const where = !filtered ? null : byStatus ? { priority: { $gte: 1 + int(5) } } : { status: PEER_STATUSES[int(PEER_STATUSES.length)]! };
        if (runtime) {
          next = { ...request, method: 'POST', headers: { ...headers, ...JSON_HEADERS }, path: `${RUNTIME}/query`, body: JSON.stringify({ ...(where ? { where } : {}), groupBy: [field], aggregations: [{ function: 'count', alias: 'n' }] }) };
        } else {
          const filter = !where ? '' : byStatus ? `&filter[priority][_gte]=${String((where.priority as { $gte: number }).$gte)}` : `&filter[status][_eq]=${String(where.status)}`;
          next = { ...request, method: 'GET', headers, body: undefined, path: `${DIRECTUS}?aggregate[count]=*&groupBy[]=${field}${filter}` };
        }
      } else if (kind === 'create') {
        next = { ...request, method: 'POST', headers: { ...headers, ...JSON_HEADERS }, path: runtime ? RUNTIME : DIRECTUS, body: JSON.stringify(peerCreateBody(connection * 1_000_000 + created++)) };
      } else {
        next = { ...request, method: 'PATCH', headers: { ...headers, ...JSON_HEADERS }, path: `${runtime ? RUNTIME : DIRECTUS}/${run.ids[int(run.ids.length)]!}`, body: JSON.stringify({ amount: Math.round(random() * 100_000) / 100 }) };
      }
      started = performance.now();
      return next;
    },
    onResponse: (status) => {
      run.timeKind?.(kind, performance.now() - started, status);
    },
  }];
}

export const PEER_MIX: Scenario = {
  name: 'mix',
  description: 'seeded random mix: 45% get by id, 25% filtered sorted pages (one of the first five), 10% group counts (half filtered), 10% creates, 10% updates without version',
  connection: mixConnection,
};
