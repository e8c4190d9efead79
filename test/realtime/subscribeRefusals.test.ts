/**
 * GET /realtime refuses, before any stream opens, an object the data API does not serve for lists,
 * on both drivers: an unknown object and one with apiEnabled false answer 404 NOT_FOUND (as on
 * /data), one whose apiMethods lack `list` 405 METHOD_NOT_ALLOWED naming what it allows; one such
 * object among others refuses the whole stream.
 */
import t from 'tap';
import { bearer, eachBackend, signIn } from '../auth/authHarness.ts';
import { addUser } from '../access/accessWorld.ts';
import { openStream, type SseStream } from './sseClient.ts';

t.test('realtime: objects that cannot be followed', async (t) => {
  await eachBackend(t, ['rt-refusals'], async (t, site) => {
    const rt = await site.boot({
      config: {
        apps: ['test/access/fixtures/app', 'test/realtime/fixtures/app'],
        server: { listen: true, port: 0, host: '127.0.0.1' },
        plugins: { email: { enabled: false }, auth: { rateLimit: { enabled: false } } },
      } as never,
    });
    const admin = await signIn(rt);
    const member = await addUser(rt, admin.token, 'Member');
    const base = rt.runtime.http().url()!.replace(/\/$/, '');
    const streams: SseStream[] = [];
    t.teardown(() => streams.forEach((s) => s.close()));
    const open = async (token: string, objects: string) => {
      const stream = await openStream(`${base}/api/v1/realtime?objects=${objects}`, bearer(token));
      streams.push(stream);
      if (stream.status === 200) stream.close();
      return stream;
    };

    for (const [who, token] of [['a member', member.token], ['an admin', admin.token]] as const) {
      await t.test(`${who}: 404 and 405 before the stream opens`, async (t) => {
        const allowed = await open(token, 'doc');
        t.equal(allowed.status, 200, 'an object served for lists opens a stream');

        const unknown = await open(token, 'nope');
        t.equal(unknown.status, 404, 'an unknown object: 404');
        t.match(unknown.body, { error: { code: 'NOT_FOUND', details: { object: 'nope' } } });

        const internal = await open(token, 'internal_note');
        t.equal(internal.status, 404, 'apiEnabled false: 404, as on /data');
        t.match(internal.body, { error: { code: 'NOT_FOUND', details: { object: 'internal_note' } } });
        t.same(Object.keys(internal.body.error.details).sort(), Object.keys(unknown.body.error.details).sort(), 'told apart from an unknown object by nothing but its name');

        const noList = await open(token, 'ledger_entry');
        t.equal(noList.status, 405, 'apiMethods without list: 405');
        t.match(noList.body, { error: { code: 'METHOD_NOT_ALLOWED', details: { operation: 'list', object: 'ledger_entry', allowed: ['get', 'create'] } } });

        const mixed = await open(token, 'doc,ledger_entry');
        t.equal(mixed.status, 405, 'one such object among others refuses the whole stream');
        const mixedHidden = await open(token, 'internal_note,doc');
        t.equal(mixedHidden.status, 404, 'whatever its place in the list');
      });
    }
  });
});
