/**
 * The scenarios of bench/peer.ts, each as the runtime's request and the peer's (Directus) request
 * for the same work on the same rows: `runtime` is the runtime, `baseline` the peer. Both sides
 * send their admin's token (the runtime: a session bearer token; Directus: the admin's static
 * token), carried in the run's `runtimeHeaders`, which bench/peer.ts sets per side.
 */
import type { RunContext, Scenario, Target } from './scenarios.ts';
import { PEER_OBJECT, peerCreateBody } from './peerSeed.ts';
import { PEER_MIX } from './peerMix.ts';

const RUNTIME = `/api/v1/data/${PEER_OBJECT}`;
const DIRECTUS = `/items/${PEER_OBJECT}`;
const JSON_HEADERS = { 'content-type': 'application/json' };
const pick = <T>(list: readonly T[]): T => list[Math.floor(Math.random() * list.length)]!;
const headers = (run: RunContext, extra: Record<string, string> = {}) => ({ ...run.runtimeHeaders, ...extra });
const get = (path: (target: Target) => string) => (target: Target, run: RunContext) => [{ method: 'GET' as const, headers: headers(run), path: path(target) }];

const FILTER = encodeURIComponent(JSON.stringify({ status: 'open', priority: { $gte: 4 } }));

export const PEER_SCENARIOS: Scenario[] = [
  PEER_MIX,
  {
    name: 'get-by-id',
    description: 'GET one record by a random id from a pool of 1,000 seeded ids',
    connection: (target, run) => [{
      method: 'GET',
      headers: headers(run),
      setupRequest: (request) => ({ ...request, path: `${target === 'runtime' ? RUNTIME : DIRECTUS}/${pick(run.ids)}` }),
    }],
  },
  {
    name: 'first-page',
    description: 'GET the first page of 50 in the default order, with the total count (Directus: meta=filter_count)',
    connection: get((target) => (target === 'runtime' ? `${RUNTIME}?limit=50` : `${DIRECTUS}?limit=50&meta=filter_count`)),
  },
  {
    name: 'filtered-sorted',
    description: 'status open and priority >= 4, ordered by priority descending then due date, 50, with the filtered total',
    connection: get((target) => (target === 'runtime'
      ? `${RUNTIME}?where=${FILTER}&orderBy=-priority,due_date&limit=50`
      : `${DIRECTUS}?filter[status][_eq]=open&filter[priority][_gte]=4&sort=-priority,due_date&limit=50&meta=filter_count`)),
  },
  {
    name: 'group-by-count',
    description: 'count of records per status (a full scan)',
    connection: (target, run) => (target === 'runtime'
      ? [{ method: 'POST', headers: headers(run, JSON_HEADERS), path: `${RUNTIME}/query`, body: JSON.stringify({ groupBy: ['status'], aggregations: [{ function: 'count', alias: 'n' }] }) }]
      : [{ method: 'GET', headers: headers(run), path: `${DIRECTUS}?aggregate[count]=*&groupBy[]=status` }]),
  },
  {
    name: 'create',
    description: 'POST a new record (6 fields), answered with the stored record',
    connection: (target, run) => {
      let n = 0;
      return [{
        method: 'POST',
        headers: headers(run, JSON_HEADERS),
        path: target === 'runtime' ? RUNTIME : DIRECTUS,
        setupRequest: (request) => ({ ...request, body: JSON.stringify(peerCreateBody(n++)) }),
      }];
    },
  },
];
