/**
 * Sign-ins that end in a redirect are in the audit trail, on both drivers: a sign-in link (mailed
 * through a local SMTP server) and a generic OpenID Connect provider's callback (a local provider);
 * asking for a link or starting a provider sign-in is not a sign-in, and a spent link is a failure.
 */
import t from 'tap';
import { linkIn, startSmtpSink } from '../email/smtpSink.ts';
import { APP_ORIGIN, CookieJar, follow } from '../auth/browser.ts';
import { bearer, eachBackend, signIn } from '../auth/authHarness.ts';
import { IDP_USER, startIdp } from '../auth/oidcIdp.ts';

type Row = Record<string, unknown>;
const parse = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v);
const USER = { email: 'dora@example.com', password: 'dora-password-1' };

t.test('sign-ins that end in a redirect', async (t) => {
  const idp = await startIdp([`${APP_ORIGIN}/api/v1/auth/oauth2/callback/test-idp`]);
  t.teardown(() => idp.close());

  await eachBackend(t, ['audit-redir'], async (t, site) => {
    const sink = await startSmtpSink();
    t.teardown(() => sink.close());
    const rt = await site.boot({
      auth: {
        rateLimit: { enabled: false }, magicLink: { enabled: true }, signUp: true,
        oidcProviders: [{ id: 'test-idp', name: 'Test IdP', discoveryUrl: idp.discoveryUrl, clientId: idp.clientId, clientSecret: idp.clientSecret }],
      },
      email: { provider: 'smtp', from: 'no-reply@example.com', smtp: { host: '127.0.0.1', port: sink.port } },
    });
    const env = site.ids[0]!;
    const admin = await signIn(rt);
    const created = await rt.inject({ method: 'POST', url: '/api/v1/auth/admin/create-user', headers: bearer(admin.token), payload: { ...USER, name: 'Dora' } });
    t.equal(created.statusCode, 201, created.body);
    const doraId = String(created.json().user.id);
    const events = async (action: string): Promise<Row[]> => site.query(env, 'select * from sys_audit_event where action = ? order by occurred_at, id', [action]);
    const secrets: string[] = [USER.password, admin.token];

    await t.test('a sign-in link', async (t) => {
      const before = (await events('auth.sign_in')).length;
      const ask = await rt.inject({ method: 'POST', url: '/api/v1/auth/sign-in/magic-link', payload: { email: USER.email, callbackURL: '/home' } });
      t.equal(ask.statusCode, 200, ask.body);
      t.equal((await events('auth.sign_in')).length, before, 'asking for a link is not a sign-in');
      const link = new URL(linkIn((await sink.next(USER.email)).text));
      secrets.push(link.searchParams.get('token')!);
      const followed = await rt.inject({ url: `${link.pathname}${link.search}`, headers: { 'user-agent': 'audit-mail/1.0' } });
      t.equal(followed.statusCode, 302, followed.body);
      const signIns = (await events('auth.sign_in')).slice(before);
      t.same(signIns.map((r) => [r.actor_id, r.actor_kind, r.target_type, r.target_id, r.target_label, parse(r.after).method, r.user_agent]),
        [[doraId, 'user', 'user', doraId, USER.email, 'magic-link.verify', 'audit-mail/1.0']], 'recorded as a sign-in of the link\'s user');

      const again = await rt.inject({ url: `${link.pathname}${link.search}` });
      t.equal(again.statusCode, 302, 'a spent link redirects too');
      t.match(String(again.headers.location), /error=/);
      t.equal((await events('auth.sign_in')).length, before + 1, 'but signs no one in');
      const failures = (await events('auth.sign_in_failed')).filter((r) => parse(r.after).method === 'magic-link.verify');
      t.same(failures.map((r) => [r.outcome, r.actor_kind, parse(r.after).status, typeof parse(r.after).reason]), [['failure', 'anonymous', 302, 'string']], 'it is a failed sign-in');
    });

    await t.test("an OpenID Connect provider's callback", async (t) => {
      const before = (await events('auth.sign_in')).length;
      const jar = new CookieJar();
      const start = await rt.inject({ method: 'POST', url: '/api/v1/auth/sign-in/social', payload: { provider: 'test-idp', callbackURL: '/welcome' } });
      t.equal(start.statusCode, 200, start.body);
      t.equal((await events('auth.sign_in')).length, before, 'starting is not a sign-in');
      jar.store(APP_ORIGIN, ([] as string[]).concat(start.headers['set-cookie'] ?? []));
      const hops = await follow(rt, jar, start.json().url as string, '/welcome');
      t.equal(hops.at(-1)!.url, `${APP_ORIGIN}/welcome`, 'landed signed in');
      const [user] = await site.query(env, 'select id from sys_user where email = ?', [IDP_USER.email]);
      const signIns = (await events('auth.sign_in')).slice(before);
      t.same(signIns.map((r) => [r.actor_id, r.target_id, r.target_label, parse(r.after).method]), [[String(user!.id), String(user!.id), IDP_USER.email, 'callback.test-idp']]);
      secrets.push(idp.clientSecret, jar.get(APP_ORIGIN, `osr-${env}.session_token`) ?? 'no-cookie');
    });

    await t.test('no row holds a link token, session or secret', async (t) => {
      const dump = JSON.stringify(await site.query(env, 'select * from sys_audit_event'));
      for (const secret of secrets) t.notOk(dump.includes(secret), `no row holds ${secret.slice(0, 6)}…`);
    });
  });
});
