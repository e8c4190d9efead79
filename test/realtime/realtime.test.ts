/**
 * GET /realtime on one process, on each backend: a member's stream carries her own records as she
 * may read them, nothing of records or fields hidden from her, entered/left as sharing and her
 * where change, nothing of a rolled-back write; revocation ends it; Last-Event-ID resumes; limits.
 */
import t from 'tap';
import { bearer, eachBackend } from '../auth/authHarness.ts';
import { buildWorld, type World } from '../access/accessWorld.ts';
import { openStream, type SseEvent, type SseStream } from './sseClient.ts';

const recordOf = (id: string) => (e: SseEvent) => e.data?.record?.id === id || e.data?.id === id;

t.test('realtime on one process', async (t) => {
  await eachBackend(t, ['rt'], async (t, site) => {
    const world: World = await buildWorld(t, site, {
      config: {
        server: { listen: true, port: 0, host: '127.0.0.1' },
        plugins: { auth: { rateLimit: { enabled: false } }, realtime: { maxConnectionsPerUser: 3, replay: { size: 50, ageMs: 60_000 }, knownPerGroup: 100, knownTotal: 100 } },
      } as never,
    });
    const base = world.rt.runtime.http().url()!.replace(/\/$/, '');
    const streams: SseStream[] = [];
    t.teardown(() => streams.forEach((s) => s.close()));
    const open = async (user: keyof World['users'], query: string, headers: Record<string, string> = {}) => {
      const stream = await openStream(`${base}/api/v1/realtime?${query}`, { ...bearer(world.users[user].token), ...headers });
      streams.push(stream);
      return stream;
    };
    /** Closes every stream opened so far (the per-user limit counts open ones) and lets the server see it. */
    const closeAll = async () => {
      streams.forEach((s) => s.close());
      await new Promise((r) => setTimeout(r, 150));
    };
    const create = async (user: keyof World['users'], values: Record<string, unknown>) => {
      const res = await world.as(user, 'POST', '/api/v1/data/doc', values);
      t.equal(res.status, 201, `${user} created a doc ${res.status === 201 ? '' : JSON.stringify(res.body)}`);
      return String(res.body.id);
    };

    await t.test('her own records, never another member\'s, never a hidden field', async (t) => {
      const owner = await open('owner', 'objects=doc');
      t.equal(owner.status, 200, 'the stream opens');
      const ready = await owner.next((e) => e.event === 'ready');
      t.same(ready.data.objects, ['doc'], 'ready names what it follows');
      const hidden = await create('other', { title: 'OTHER-PRIVATE' });
      const mine = await create('owner', { title: 'MINE-1' });
      await world.as('admin', 'PATCH', `/api/v1/data/doc/${mine}`, { secret: 'S-MINE' });
      const created = await owner.next(recordOf(mine));
      t.equal(created.event, 'created', 'her new doc arrives as created');
      t.equal(created.data.record.title, 'MINE-1', 'with its values');
      t.notOk('secret' in created.data.record, 'without the field hidden from her');
      t.ok(created.id, 'the event has an id');
      const updated = await owner.next(recordOf(mine));
      t.equal(updated.event, 'updated', 'the admin\'s change of it arrives as updated');
      t.notOk(JSON.stringify(owner.events).includes('S-MINE'), 'the hidden value never travels');
      t.notOk(owner.events.some(recordOf(hidden)), 'another member\'s private doc never arrives');
      t.notOk(JSON.stringify(owner.events).includes('OTHER-PRIVATE'), 'nor its title');
      await closeAll();
    });

    await t.test('sharing gives entered, unsharing left; a where follows its records', async (t) => {
      const owner = await open('owner', 'objects=doc');
      await owner.next((e) => e.event === 'ready');
      const doc = await create('other', { title: 'TO-SHARE', region: 'US' });
      const share = await world.as('other', 'POST', `/api/v1/data/doc/${doc}/shares`, { recipient_type: 'user', recipient_id: world.users.owner.id, access: 'read' });
      t.equal(share.status, 201, 'shared with her');
      const entered = await owner.next(recordOf(doc));
      t.equal(entered.event, 'entered', 'a record shared with her enters');
      t.equal(entered.data.record.title, 'TO-SHARE', 'as she may read it');
      const unshare = await world.as('other', 'DELETE', `/api/v1/data/doc/${doc}/shares/${share.body.id}`);
      t.ok(unshare.status === 204 || unshare.status === 200, `unshared (${unshare.status})`);
      const left = await owner.next(recordOf(doc));
      t.equal(left.event, 'left', 'unsharing makes it leave');
      t.same(Object.keys(left.data).sort(), ['id', 'object'], 'left names the record, nothing more');

      const eu = await open('owner', `objects=doc&where.doc=${encodeURIComponent(JSON.stringify({ region: 'EU' }))}`);
      await eu.next((e) => e.event === 'ready');
      const us = await create('owner', { title: 'MOVING', region: 'US' });
      await world.as('owner', 'PATCH', `/api/v1/data/doc/${us}`, { region: 'EU' });
      t.equal((await eu.next(recordOf(us))).event, 'entered', 'moving into the where: entered');
      await world.as('owner', 'PATCH', `/api/v1/data/doc/${us}`, { region: 'US' });
      t.equal((await eu.next(recordOf(us))).event, 'left', 'moving out of it: left');
      await world.as('admin', 'DELETE', `/api/v1/data/doc/${us}`);
      const sentinel = await create('owner', { title: 'SENTINEL-EU', region: 'EU' });
      await eu.next(recordOf(sentinel));
      t.notOk(eu.events.some((e) => e.event === 'deleted' && e.data.id === us), 'a record that already left is not announced deleted');
      const removed = await world.as('admin', 'DELETE', `/api/v1/data/doc/${sentinel}`);
      t.equal(removed.status, 204, `deleted (${JSON.stringify(removed.body)})`);
      const deleted = await eu.next(recordOf(sentinel));
      t.equal(deleted.event, 'deleted', 'deleting a record it follows: deleted');
      await closeAll();
    });

    await t.test('a rolled-back write reaches nobody', async (t) => {
      const owner = await open('owner', 'objects=doc');
      await owner.next((e) => e.event === 'ready');
      const batch = await world.as('owner', 'POST', '/api/v1/batch', {
        operations: [
          { id: 'a', method: 'POST', object: 'doc', body: { title: 'ROLLED-BACK' } },
          { id: 'b', method: 'POST', object: 'doc', body: { nope: 1 } },
        ],
      });
      t.not(batch.status, 200, `the batch failed as a whole (${batch.status})`);
      const after = await create('owner', { title: 'AFTER-ROLLBACK' });
      await owner.next(recordOf(after));
      t.notOk(JSON.stringify(owner.events).includes('ROLLED-BACK'), 'nothing of the rolled-back write');
      await closeAll();
    });

    await t.test('Last-Event-ID resumes; past the window: reset', async (t) => {
      const first = await open('owner', 'objects=doc');
      await first.next((e) => e.event === 'ready');
      const a = await create('owner', { title: 'RESUME-A' });
      const seenA = await first.next(recordOf(a));
      first.close();
      const b = await create('owner', { title: 'RESUME-B' });
      const c = await create('owner', { title: 'RESUME-C' });
      const resumed = await open('owner', 'objects=doc', { 'last-event-id': seenA.id! });
      const gotB = await resumed.next(recordOf(b));
      t.equal(gotB.event, 'created', 'a missed create is replayed');
      await resumed.next(recordOf(c));
      const ready = await resumed.next((e) => e.event === 'ready');
      t.equal(ready.data.resumed, true, 'ready says it resumed');
      const stale = await open('owner', 'objects=doc', { 'last-event-id': 'not-a-kept-id' });
      const reset = await stale.next((e) => e.event === 'reset' || e.event === 'ready');
      t.equal(reset.event, 'reset', 'an id no longer kept: reset first');
      t.equal(reset.data.reason, 'replay_window', 'naming why');
      await closeAll();
    });

    await t.test('limits and refusals', async (t) => {
      const unknown = await open('owner', 'objects=nope');
      t.equal(unknown.status, 404, 'an unknown object: 404');
      const hiddenWhere = await open('owner', `objects=doc&where.doc=${encodeURIComponent(JSON.stringify({ secret: 'S' }))}`);
      t.equal(hiddenWhere.status, 403, 'a where on a field hidden from her: 403, as on /data');
      const hiddenField = await open('owner', 'objects=doc&fields.doc=title,secret');
      t.equal(hiddenField.status, 403, 'asking for a hidden field: 403');
      const stray = await open('owner', 'objects=doc&where.folder=%7B%7D');
      t.equal(stray.status, 400, 'a where for an object not followed: 400');
      const anonymous = await openStream(`${base}/api/v1/realtime?objects=doc`);
      t.equal(anonymous.status, 401, 'no credential: 401');
      await closeAll();
      const held = [await open('other', 'objects=doc'), await open('other', 'objects=doc'), await open('other', 'objects=doc')];
      t.same(held.map((s) => s.status), [200, 200, 200], 'up to the per-user limit');
      const over = await open('other', 'objects=doc');
      t.equal(over.status, 429, 'past it: 429');
      t.equal(over.body.error.code, 'RATE_LIMITED', 'RATE_LIMITED');
      await closeAll();
    });

    await t.test('what every group remembers together is bounded: past knownTotal the oldest is forgotten', async (t) => {
      // Two groups (different fields) of 60 records each: 120 remembered, over the bound of 100.
      const whole = await open('owner', 'objects=doc');
      const narrow = await open('owner', 'objects=doc&fields.doc=title');
      await whole.next((e) => e.event === 'ready');
      await narrow.next((e) => e.event === 'ready');
      const ids: string[] = [];
      for (let i = 0; i < 60; i++) ids.push(await create('owner', { title: `KNOWN-${i}` }));
      await whole.next(recordOf(ids[59]!));
      await narrow.next(recordOf(ids[59]!));
      await world.as('owner', 'PATCH', `/api/v1/data/doc/${ids[0]}`, { title: 'KNOWN-0-CHANGED' });
      await world.as('owner', 'PATCH', `/api/v1/data/doc/${ids[59]}`, { title: 'KNOWN-59-CHANGED' });
      const first = (s: SseStream) => s.next((e) => recordOf(ids[0]!)(e) && e.event !== 'created');
      const last = (s: SseStream) => s.next((e) => recordOf(ids[59]!)(e) && e.event !== 'created');
      t.same([(await first(whole)).event, (await first(narrow)).event], ['entered', 'entered'], 'the oldest record was forgotten by both groups: its change is sent as entered');
      t.same([(await last(whole)).event, (await last(narrow)).event], ['updated', 'updated'], 'a recent one is still known: updated');
      await closeAll();
    });

    await t.test('a member holding a position keeps her stream through the credential checks; losing it ends the stream', async (t) => {
      const stream = await open('unitMember', 'objects=doc');
      t.equal(stream.status, 200, 'the stream opens');
      await stream.next((e) => e.event === 'ready');
      // Past two rounds of credential checks (plugins.realtime.recheckMs, 1 s): her grants are the same.
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      const doc = await create('unitMember', { title: 'UNIT-KEEPS' });
      const created = await stream.next(recordOf(doc));
      t.equal(created.event, 'created', 'her stream is still open and carries her new doc');
      t.notOk(stream.events.some((e) => e.event === 'reset'), 'no reset while her access is unchanged');
      const removed = await world.as('admin', 'DELETE', `/api/v1/data/sys_user_position/${world.ids.upUnit}`);
      t.equal(removed.status, 204, 'her position is taken away');
      const reset = await stream.next((e) => e.event === 'reset', 3_000);
      t.equal(reset.data.reason, 'access_changed', 'the stream ends: what she may read changed');
      await closeAll();
    });

    await t.test('a revoked session ends the stream within a second', async (t) => {
      const session = await world.as('sharee', 'GET', '/api/v1/auth/get-session');
      t.equal(session.status, 200, 'her session is valid');
      const stream = await open('sharee', 'objects=doc');
      await stream.next((e) => e.event === 'ready');
      const out = await world.as('sharee', 'POST', '/api/v1/auth/sign-out', {});
      t.equal(out.status, 200, 'signed out');
      const started = Date.now();
      const end = await stream.next((e) => e.event === 'error', 3_000);
      t.equal(end.data.code, 'UNAUTHENTICATED', 'the stream is told why');
      await stream.ended;
      t.ok(Date.now() - started < 1_500, `ended within the bound (${Date.now() - started} ms)`);
    });
  });
});
