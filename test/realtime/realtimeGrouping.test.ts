/**
 * Streams are grouped by what decides what they read: a change is read once per access group, not
 * once per stream, on each backend, and not at all by a group whose row scope rules the record out
 * from its own values. Eight streams in four groups (the admin whole and with fields, two members)
 * cost three reads of a member's new record (Bob's group is ruled out by its owner); with
 * plugins.realtime.grouping false (the diagnostic switch bench/realtimeBench.ts uses: one read per
 * stream, nothing decided in memory) eight, and every stream receives the same events. The reads as a caller are counted by a plugin's
 * data.afterFind hook on the object (the one system read per change runs no find hooks).
 */
import t, { type Test } from 'tap';
import { definePlugin } from '../../kernel/definePlugin.ts';
import { addUser } from '../access/accessWorld.ts';
import { bearer, eachBackend, signIn, type Site } from '../auth/authHarness.ts';
import { openStream, type SseStream } from './sseClient.ts';

/** Reads of one record by id with limit 1, as the hub reads a changed record, per record id. */
const readsById = new Map<string, number>();
const readCounter = definePlugin({
  name: 'read-counter',
  version: '1.0.0',
  kernel: '^16.0.0',
  register(ctx) {
    ctx.hook('data.afterFind', (event: { query: { where?: Record<string, unknown>; limit?: number } }) => {
      const where = event.query.where;
      // A group without a where reads by id ({id: {$eq}}); one with a where queries ({$and: [{id}, where]}).
      const id = where?.id as string | { $eq?: unknown } | undefined;
      const byId = typeof id === 'string' ? id : typeof id?.$eq === 'string' ? id.$eq : undefined;
      if (byId && event.query.limit === 1) readsById.set(byId, (readsById.get(byId) ?? 0) + 1);
    }, { object: 'feed_item' });
  },
});

async function streamsAndReads(t: Test, site: Site, grouping: boolean): Promise<{ reads: number; events: string[][] }> {
  const rt = await site.boot({
    config: {
      apps: ['test/realtime/fixtures/app'],
      server: { listen: true, port: 0, host: '127.0.0.1' },
      plugins: { email: { enabled: false }, auth: { rateLimit: { enabled: false } }, realtime: { grouping } },
    } as never,
    plugins: [readCounter],
  });
  const admin = await signIn(rt);
  const ann = await addUser(rt, admin.token, grouping ? 'AnnG' : 'AnnS');
  const bob = await addUser(rt, admin.token, grouping ? 'BobG' : 'BobS');
  const base = rt.runtime.http().url()!.replace(/\/$/, '');
  const streams: SseStream[] = [];
  t.teardown(() => streams.forEach((s) => s.close()));
  const plan: Array<[string, string]> = [
    [admin.token, ''], [admin.token, ''], [admin.token, ''],
    [admin.token, '&fields.feed_item=title'], [admin.token, '&fields.feed_item=title'],
    [ann.token, ''], [ann.token, ''],
    [bob.token, ''],
  ];
  for (const [token, query] of plan) {
    const stream = await openStream(`${base}/api/v1/realtime?objects=feed_item${query}`, bearer(token));
    t.equal(stream.status, 200, 'a stream opens');
    await stream.next((e) => e.event === 'ready');
    streams.push(stream);
  }
  const created = await rt.inject({ method: 'POST', url: '/api/v1/data/feed_item', headers: bearer(ann.token), payload: { title: 'ANN-1', body: 'hers' } });
  t.equal(created.statusCode, 201, 'a member writes a record');
  const id = String(created.json().id);
  // Bob's own record, after Ann's: once a stream has it, it has had its answer about Ann's.
  const own = await rt.inject({ method: 'POST', url: '/api/v1/data/feed_item', headers: bearer(bob.token), payload: { title: 'BOB-1' } });
  t.equal(own.statusCode, 201, 'another member writes one');
  const bobs = String(own.json().id);
  for (const stream of [...streams.slice(0, 5), streams[7]!]) await stream.next((e) => e.data?.record?.id === bobs);
  for (const stream of streams.slice(5, 7)) await stream.next((e) => e.data?.record?.id === id);
  const events = streams.map((s) => s.events.filter((e) => e.event !== 'ready').map((e) => `${e.event} ${String(e.data.record?.title)} ${Object.keys(e.data.record ?? {}).includes('body') ? 'whole' : 'title'}`));
  return { reads: readsById.get(id) ?? 0, events };
}

t.test('realtime: one read per access group, not per stream', async (t) => {
  await eachBackend(t, ['rt-grouping'], async (t, site) => {
    // One runtime at a time (on PostgreSQL a second one would hear the first one's changes).
    let grouped = { reads: 0, events: [] as string[][] };
    let single = { reads: 0, events: [] as string[][] };
    await t.test('grouped', async (t) => void (grouped = await streamsAndReads(t, site, true)));
    await t.test('grouping off', async (t) => void (single = await streamsAndReads(t, site, false)));
    t.equal(grouped.reads, 3, 'grouped: the changed record is read once per group that may see it (3 of 4 groups, 8 streams)');
    t.equal(single.reads, 8, 'grouping off: once per stream');
    t.same(single.events, grouped.events, 'every stream receives the same events either way');
    t.same(grouped.events[5], ['created ANN-1 whole'], 'the writer\'s stream: her record');
    t.same(grouped.events[7], ['created BOB-1 whole'], 'the other member\'s: his own only');
    t.same(grouped.events[3], ['created ANN-1 title', 'created BOB-1 title'], 'a stream with fields: those fields');
  });
});
