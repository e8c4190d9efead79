/**
 * GET /realtime, a property over random writes, on each backend: a seeded sequence of writers
 * (members and the admin) creating, changing, sharing, unsharing and deleting docs, the admin
 * setting a field hidden from most members (`secret`, readable by the auditor set only), while
 * members follow `doc` (some with a where, some with fields, two streams of one group). Rounds of
 * writes, each touching a record at most once, are followed by a sentinel change every stream
 * sees; then every event of the round is checked against what its subscriber reads now:
 * - a record sent (created, updated, entered) is one `GET /data/doc/:id` answers her, within the
 *   stream's where, with no field GET leaves out nor any outside the stream's fields, every value
 *   as GET has it;
 * - `left` and `deleted` name only records the stream sent, and nothing more than their id;
 * - every title or secret value in the stream's text was readable by that subscription then;
 * - nothing is missed: each touched record the subscription reads is at the version the stream
 *   last sent, and one it does not read is not held.
 * At least MIN_EVENTS events are checked in all (sentinels not counted); zero problems.
 */
import { isDeepStrictEqual } from 'node:util';
import t, { type Test } from 'tap';
import { bearer, eachBackend } from '../auth/authHarness.ts';
import { buildWorld, type Reply, type UserKey, type World } from '../access/accessWorld.ts';
import { openStream, type SseEvent, type SseStream } from './sseClient.ts';
import { seededRandom } from '../harness/seededRandom.ts';

const SEED = Number(process.env.REALTIME_PROPERTY_SEED ?? 41);
const MIN_EVENTS = 2_000;
const OPS_PER_ROUND = 14;
const MAX_ROUNDS = 200;
/** Longer than the share settle delay of plugins/realtime (50 ms): a share's change is announced before the sentinel's. */
const SETTLE_MS = 120;
/** Title and secret values the writes set: `TTL<n>Z`, `SEC<n>Z`. */
const TOKEN = /(?:TTL|SEC)\d+Z/g;

type Where = Record<string, string>;
interface Spec { name: string; user: UserKey; where?: Where; fields?: string[] }

/** The streams: members (and an auditor who may read `secret`), with and without where and fields. */
const SPECS: Spec[] = [
  { name: 'owner', user: 'owner' },
  { name: 'owner EU, title and region', user: 'owner', where: { region: 'EU' }, fields: ['title', 'region'] },
  { name: 'other, title and region', user: 'other', fields: ['title', 'region'] },
  { name: 'sharee', user: 'sharee' },
  { name: 'sharee again (same group)', user: 'sharee' },
  { name: 'unit member US', user: 'unitMember', where: { region: 'US' } },
  { name: 'EU manager', user: 'euManager' },
  { name: 'auditor', user: 'viewAll' },
  { name: 'auditor, title and secret', user: 'viewAll', fields: ['title', 'secret'] },
  { name: 'expired', user: 'expired' },
  { name: 'future EU', user: 'future', where: { region: 'EU' } },
];
const WRITERS: UserKey[] = ['admin', 'owner', 'other', 'sharee', 'unitMember', 'euManager', 'expired', 'viewAll'];
const RECIPIENT_USERS: UserKey[] = ['owner', 'other', 'sharee', 'unitMember', 'euManager', 'viewAll', 'expired', 'future'];

/** The same sequence of choices for a seed. */
const generator = seededRandom;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const matches = (record: Record<string, unknown>, where: Where | undefined) => !where || Object.entries(where).every(([k, v]) => record[k] === v);

interface Share { id: string; user: UserKey | null; access: 'read' | 'edit' }
interface Doc { id: string; owner: UserKey; shares: Share[] }

/** One stream and what it was sent: the records it holds (id -> version) and the values it may carry. */
interface Follower {
  spec: Spec;
  stream: SseStream;
  checked: number;
  held: Map<string, number>;
  allowed: Set<string>;
}

async function property(t: Test, world: World): Promise<void> {
  const random = generator(SEED);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const base = world.rt.runtime.http().url()!.replace(/\/$/, '');
  const problems: string[] = [];
  const must = async (user: UserKey, method: string, url: string, payload: unknown, status: number): Promise<Reply> => {
    const res = await world.as(user, method, url, payload);
    if (res.status !== status) throw new Error(`${user} ${method} ${url} answered ${res.status}, not ${status}: ${JSON.stringify(res.body)}`);
    return res;
  };

  // Two sentinels every stream reads (one per region, for the wheres), changed after each round.
  const sentinels: Record<'EU' | 'US', string> = { EU: '', US: '' };
  for (const region of ['EU', 'US'] as const) {
    sentinels[region] = String((await must('admin', 'POST', '/api/v1/data/doc', { title: `SENTINEL-${region}`, region }, 201)).body.id);
    for (const user of RECIPIENT_USERS) await must('admin', 'POST', `/api/v1/data/doc/${sentinels[region]}/shares`, { recipient_type: 'user', recipient_id: world.users[user].id, access: 'read' }, 201);
  }
  const isSentinel = (id: unknown) => id === sentinels.EU || id === sentinels.US;

  const followers: Follower[] = [];
  t.teardown(() => followers.forEach((f) => f.stream.close()));
  for (const spec of SPECS) {
    const query = ['objects=doc', spec.where ? `where.doc=${encodeURIComponent(JSON.stringify(spec.where))}` : '', spec.fields ? `fields.doc=${spec.fields.join(',')}` : ''].filter(Boolean).join('&');
    const stream = await openStream(`${base}/api/v1/realtime?${query}`, bearer(world.users[spec.user].token));
    if (stream.status !== 200) throw new Error(`${spec.name}: the stream answered ${stream.status} ${JSON.stringify(stream.body)}`);
    await stream.next((e) => e.event === 'ready');
    followers.push({ spec, stream, checked: stream.events.length, held: new Map(), allowed: new Set() });
  }

  const docs: Doc[] = [];
  let serial = 0;
  const token = (kind: 'TTL' | 'SEC') => `${kind}${++serial}Z`;
  const editors = (doc: Doc) => ['admin' as UserKey, doc.owner, ...doc.shares.filter((s) => s.access === 'edit' && s.user).map((s) => s.user!)];

  /**
   * One random write on a record not touched yet in this round (or a new one), chosen now from the
   * model (so the same seed makes the same choices whatever order the answers come in): the record
   * joins `touched`, and the write is returned to run with the others of the round.
   */
  const plan = (touched: Set<Doc>): (() => Promise<void>) => {
    const free = docs.filter((d) => !touched.has(d));
    const roll = random();
    const doc = free.length > 0 && roll >= 0.25 ? pick(free) : undefined;
    if (!doc) {
      const writer = pick(WRITERS);
      const body: Record<string, unknown> = { title: token('TTL'), region: random() < 0.5 ? 'EU' : 'US' };
      if (writer === 'admin' && random() < 0.5) body.secret = token('SEC');
      const created: Doc = { id: '', owner: writer, shares: [] };
      docs.push(created);
      touched.add(created);
      return async () => {
        created.id = String((await must(writer, 'POST', '/api/v1/data/doc', body, 201)).body.id);
      };
    }
    touched.add(doc);
    const url = `/api/v1/data/doc/${doc.id}`;
    if (roll < 0.5) {
      const body: Record<string, unknown> = { title: token('TTL') };
      if (random() < 0.5) body.region = random() < 0.5 ? 'EU' : 'US';
      const editor = pick(editors(doc));
      return async () => void (await must(editor, 'PATCH', url, body, 200));
    }
    if (roll < 0.6) {
      const body = { secret: token('SEC'), ...(random() < 0.3 ? { title: token('TTL') } : {}) };
      return async () => void (await must('admin', 'PATCH', url, body, 200));
    }
    if (roll < 0.8) {
      const sharer = random() < 0.8 ? doc.owner : 'admin';
      const access = random() < 0.3 ? 'edit' as const : 'read' as const;
      const kind = random();
      const user = kind < 0.7 ? pick(RECIPIENT_USERS) : null;
      const recipient = user
        ? { recipient_type: 'user', recipient_id: world.users[user].id }
        : kind < 0.85 ? { recipient_type: 'position', recipient_id: world.ids.eu_manager } : { recipient_type: 'unit_and_subordinates', recipient_id: world.ids.sales };
      const share: Share = { id: '', user, access };
      doc.shares.push(share);
      return async () => {
        share.id = String((await must(sharer, 'POST', `${url}/shares`, { ...recipient, access }, 201)).body.id);
      };
    }
    if (roll < 0.92 && doc.shares.length > 0) {
      const share = pick(doc.shares);
      doc.shares.splice(doc.shares.indexOf(share), 1);
      const sharer = random() < 0.8 ? doc.owner : 'admin';
      return async () => void (await must(sharer, 'DELETE', `${url}/shares/${share.id}`, undefined, 204));
    }
    if (roll < 0.92) {
      const body = { region: random() < 0.5 ? 'EU' : 'US' };
      return async () => void (await must(doc.owner, 'PATCH', url, body, 200));
    }
    docs.splice(docs.indexOf(doc), 1);
    return async () => void (await must('admin', 'DELETE', url, undefined, 204));
  };

  /** What the follower's subscription reads of the touched records now (its where and fields). */
  const readsNow = async (follower: Follower, ids: string[]): Promise<Map<string, Record<string, unknown>>> => {
    const { where, fields } = follower.spec;
    const res = await world.as(follower.spec.user, 'POST', '/api/v1/data/doc/query', {
      where: { $and: [{ id: { $in: ids } }, ...(where ? [where] : [])] },
      ...(fields ? { select: ['id', 'version', ...fields] } : {}),
      limit: 200,
    });
    if (res.status !== 200) throw new Error(`${follower.spec.name}: query answered ${res.status} ${JSON.stringify(res.body)}`);
    return new Map((res.body.items as Array<Record<string, unknown>>).map((r) => [String(r.id), r]));
  };

  /** GET /data/doc/:id as a user, once per round for each user and record (nothing changes while a round is checked). */
  let gets = new Map<string, Promise<Reply>>();
  const getNow = (user: UserKey, id: string): Promise<Reply> => {
    const key = `${user}\u0000${id}`;
    let reply = gets.get(key);
    if (!reply) gets.set(key, (reply = world.as(user, 'GET', `/api/v1/data/doc/${id}`)));
    return reply;
  };

  /** The checks of one event against what its subscriber reads now. */
  const check = async (follower: Follower, event: SseEvent): Promise<void> => {
    const { spec } = follower;
    const where = `${spec.name}: ${event.event} ${event.id ?? ''}`;
    for (const value of event.raw.match(TOKEN) ?? []) if (!follower.allowed.has(value)) problems.push(`${where} carries ${value}, which this subscription could not read`);
    if (event.data?.object !== 'doc') problems.push(`${where} names object ${String(event.data?.object)}`);
    if (event.event === 'left' || event.event === 'deleted') {
      const id = String(event.data.id);
      if (!isDeepStrictEqual(Object.keys(event.data).sort(), ['id', 'object'])) problems.push(`${where} carries more than the id: ${event.raw}`);
      if (!follower.held.has(id)) problems.push(`${where} names ${id}, a record this stream was never sent`);
      follower.held.delete(id);
      const now = await getNow(spec.user, id);
      if (event.event === 'deleted' ? now.status !== 404 : now.status === 200 && matches(now.body, spec.where)) problems.push(`${where} of ${id}, which GET answers ${now.status}`);
      return;
    }
    if (!['created', 'updated', 'entered'].includes(event.event)) {
      problems.push(`${where}: an event no change explains: ${event.raw}`);
      return;
    }
    const record = event.data.record as Record<string, unknown>;
    const id = String(record.id);
    const now = await getNow(spec.user, id);
    if (now.status !== 200) {
      problems.push(`${where} of ${id}, which GET answers ${now.status} to her`);
      return;
    }
    if (!matches(now.body, spec.where)) problems.push(`${where} of ${id}, outside the stream's where (${JSON.stringify(now.body.region)})`);
    const chosen = spec.fields ? new Set(['id', 'version', ...spec.fields]) : null;
    for (const [key, value] of Object.entries(record)) {
      if (!(key in now.body)) problems.push(`${where} of ${id} carries field ${key}, which GET leaves out for her`);
      else if (chosen && !chosen.has(key)) problems.push(`${where} of ${id} carries field ${key}, outside the stream's fields`);
      else if (!isDeepStrictEqual(value, now.body[key])) problems.push(`${where} of ${id}: ${key} is ${JSON.stringify(value)}, GET has ${JSON.stringify(now.body[key])}`);
    }
    if (event.event === 'updated' && !follower.held.has(id)) problems.push(`${where} of ${id}: updated, but the stream never had it`);
    follower.held.set(id, Number(record.version));
  };

  let counted = 0;
  const perEvent: Record<string, number> = {};
  let rounds = 0;
  const started = Date.now();
  for (; counted < MIN_EVENTS && problems.length === 0; rounds++) {
    if (rounds >= MAX_ROUNDS) throw new Error(`${MAX_ROUNDS} rounds delivered ${counted} events, fewer than ${MIN_EVENTS}`);
    // The round's writes run together: each touches its own record, so each record's state at the
    // end of the round is the one its change left, which is what its events are checked against.
    const touched = new Set<Doc>();
    const writes = Array.from({ length: OPS_PER_ROUND }, () => plan(touched));
    await Promise.all(writes.map((run) => run()));
    await sleep(SETTLE_MS);
    const marks = { EU: `SENTINEL-${rounds}-EU`, US: `SENTINEL-${rounds}-US` };
    for (const region of ['EU', 'US'] as const) await must('admin', 'PATCH', `/api/v1/data/doc/${sentinels[region]}`, { title: marks[region] }, 200);
    await Promise.all(followers.map(async (f) => {
      for (const region of ['EU', 'US'] as const) {
        if (f.spec.where && f.spec.where.region !== region) continue;
        await f.stream.next((e) => e.data?.record?.id === sentinels[region] && e.data.record.title === marks[region], 10_000).catch((error: Error) => {
          throw new Error(`${f.spec.name}: ${error.message}`);
        });
      }
    }));
    const ids = [...touched].map((doc) => doc.id);
    gets = new Map();
    await Promise.all(followers.map(async (follower) => {
      const reads = await readsNow(follower, ids);
      for (const record of reads.values()) for (const value of JSON.stringify(record).match(TOKEN) ?? []) follower.allowed.add(value);
      const events = follower.stream.events.slice(follower.checked).filter((e) => !isSentinel(e.data?.record?.id ?? e.data?.id));
      follower.checked = follower.stream.events.length;
      // Every GET of the round at once; then the events in their order.
      for (const event of events) void getNow(follower.spec.user, String(event.data?.record?.id ?? event.data?.id));
      for (const event of events) {
        counted++;
        perEvent[event.event] = (perEvent[event.event] ?? 0) + 1;
        await check(follower, event);
      }
      // Nothing missed: what the stream holds of the touched records is what the subscription reads.
      for (const id of ids) {
        const read = reads.get(id);
        const held = follower.held.get(id);
        if (read && held !== Number(read.version)) problems.push(`${follower.spec.name}: ${id} is readable at version ${String(read.version)}, the stream holds ${String(held)}`);
        if (!read && held !== undefined) problems.push(`${follower.spec.name}: ${id} is no longer readable, the stream still holds it`);
      }
    }));
  }
  t.same(problems.slice(0, 20), [], `seed ${SEED}: no leak, nothing missed (${problems.length} problems)`);
  t.ok(counted >= MIN_EVENTS, `${counted} events checked in ${rounds} rounds of ${OPS_PER_ROUND} writes (${JSON.stringify(perEvent)}) in ${Math.round((Date.now() - started) / 1000)} s`);
  for (const kind of ['created', 'updated', 'entered', 'left', 'deleted']) t.ok((perEvent[kind] ?? 0) > 0, `${kind} events among them: ${perEvent[kind] ?? 0}`);
  const secretReaders = followers.filter((f) => f.spec.user === 'viewAll' && (!f.spec.fields || f.spec.fields.includes('secret')));
  t.ok(secretReaders.every((f) => f.stream.events.some((e) => /SEC\d+Z/.test(e.raw))), 'the auditor\'s streams do carry secrets (the values checked are there to leak)');
}

t.test('realtime: zero leaks over random writers, shares and hidden fields', async (t) => {
  await eachBackend(t, ['rt-property'], async (t, site) => {
    const world = await buildWorld(t, site, {
      config: {
        server: { listen: true, port: 0, host: '127.0.0.1' },
        plugins: { auth: { rateLimit: { enabled: false } }, email: { enabled: false } },
      } as never,
    });
    await property(t, world);
  });
});
