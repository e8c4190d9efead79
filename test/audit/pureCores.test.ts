/** The audit trail's pure parts: bounded rows, the closed action list, the auth routes' events (summaries: summarize.test.ts). */
import t from 'tap';
import { auditRow } from '../../plugins/audit/createAuditService.ts';
import { attemptedLabel, engineRouteEvent, redirectError } from '../../plugins/auth/routes/engineRouteAudit.ts';
import { auditedEnginePath } from '../../plugins/auth/routes/recordAuthEvents.ts';

const source = { environmentId: 'main', actorId: 'u1', actorKind: 'user' as const, ip: '10.0.0.1', userAgent: 'ua', requestId: 'r1' };

t.test('a failed sign-in keeps the identifier tried only when it is email- or E.164-shaped', async (t) => {
  for (const kept of ['ann@example.com', ' Ann.Lee+tag@mail.example.co.uk ', '+4915112345678', '+12025550143']) t.equal(attemptedLabel(kept), kept.trim(), kept);
  for (const dropped of ['hunter2', 'P@ssw0rd', 'p@ss word.x', 'a@b', '@example.com', 'ann@', '4915112345678', '+0123456789', '+1234', `${'a'.repeat(250)}@example.com`, '', null, 42]) {
    t.equal(attemptedLabel(dropped), null, String(dropped).slice(0, 20));
  }
});

t.test('a row: redacted summaries, bounded texts, unknown actions refused', async (t) => {
  const row = auditRow({ ...source, userAgent: 'u'.repeat(900) }, { action: 'api_key.minted', target: { type: 'api_key', id: 'k1' }, after: { name: 'ci', key: 'osk_secret' } }, new Date('2026-01-01T00:00:00Z'));
  t.match(row, { action: 'api_key.minted', outcome: 'success', occurred_at: '2026-01-01T00:00:00.000Z', actor_id: 'u1', ip: '10.0.0.1', target_id: 'k1', after: { name: 'ci' }, before: null });
  t.equal(String(row.user_agent).length, 500);
  t.throws(() => auditRow(source, { action: 'made.up' as 'auth.sign_in' }, new Date()), { code: 'AUDIT_ACTION_UNKNOWN' });
});

t.test('auth-engine routes: which are audited and how', async (t) => {
  t.equal(auditedEnginePath('/api/v1/environments/e1/auth/sign-in/email?x=1'), '/sign-in/email');
  t.equal(auditedEnginePath('/api/v1/environments/auth/auth/sign-in/email'), '/sign-in/email', 'an environment named auth is not the engine path');
  t.equal(auditedEnginePath('/api/v2/auth/admin/ban-user'), '/admin/ban-user');
  t.match(engineRouteEvent('/sign-in/email', 200, { email: 'a@x', password: 'pw' }, { user: { id: 'u1', email: 'a@x' } }), { entry: { action: 'auth.sign_in', target: { id: 'u1' } }, actorId: 'u1' });
  t.equal(engineRouteEvent('/sign-in/email', 200, {}, { twoFactorRedirect: true }), null, 'a first factor asking for the second is not a sign-in yet');
  const failed = engineRouteEvent('/sign-in/email', 401, { email: 'a@x.io', password: 'pw' }, null)!;
  t.match(failed.entry, { action: 'auth.sign_in_failed', outcome: 'failure', target: { label: 'a@x.io' } });
  const typedPassword = engineRouteEvent('/sign-in/email', 400, { email: 'correct horse battery', password: '' }, null)!;
  t.equal(typedPassword.entry.target?.label, null, 'a password typed into the email box is not kept as the label');
  t.notOk(JSON.stringify(typedPassword).includes('horse'));
  t.equal(engineRouteEvent('/sign-in/phone-number', 401, { phoneNumber: '+4915112345678', password: 'pw' }, null)!.entry.target?.label, '+4915112345678', 'an E.164 number is kept');
  t.notOk(JSON.stringify(failed).includes('pw'), 'the attempted password is not kept');
  t.equal(engineRouteEvent('/change-password', 400, {}, null), null, 'a refused change is not a change');
  t.equal(engineRouteEvent('/sign-in/email', 429, { email: 'a@x', password: 'pw' }, null), null, 'a rate-limited attempt did nothing: not recorded');
  t.equal(engineRouteEvent('/sign-in/nothing', 404, { email: 'a@x', password: 'pw' }, null), null, 'nor an unknown route');
  t.match(engineRouteEvent('/admin/ban-user', 200, { userId: 'u2', banReason: 'spam' }, null)!.entry, { action: 'user.banned', target: { id: 'u2' }, after: { reason: 'spam' } });
  t.match(engineRouteEvent('/passkey/delete-passkey', 200, { id: 'pk1' }, null)!.entry, { action: 'auth.passkey_changed', target: { id: 'pk1' } });
  t.equal(engineRouteEvent('/get-session', 200, null, null), null, 'reads are not audited');
  t.equal(engineRouteEvent('/sign-in/magic-link', 200, { email: 'a@x.io' }, { status: true }), null, 'asking for a sign-in link is not a sign-in');
  t.equal(engineRouteEvent('/sign-in/social', 200, { provider: 'github' }, { url: 'https://github.com/login', redirect: true }), null, 'nor is starting a provider sign-in');
  const linked = { user: { id: 'u3', email: 'c@x.io' }, error: null };
  t.same(engineRouteEvent('/magic-link/verify', 302, null, null, { redirect: linked }), { entry: { action: 'auth.sign_in', target: { type: 'user', id: 'u3', label: 'c@x.io' }, after: { method: 'magic-link.verify' } }, actorId: 'u3' }, 'a sign-in link that redirects signed in');
  t.same(engineRouteEvent('/oauth2/callback/corp-idp', 302, null, null, { redirect: linked })!.entry.after, { method: 'callback.corp-idp' }, "a generic provider's callback");
  t.same(engineRouteEvent('/magic-link/verify', 302, null, null, { redirect: { user: null, error: 'INVALID_TOKEN' } })!.entry, { action: 'auth.sign_in_failed', outcome: 'failure', target: { type: 'user', label: null }, after: { method: 'magic-link.verify', status: 302, reason: 'INVALID_TOKEN' } }, 'a spent link redirects with an error');
  t.equal(engineRouteEvent('/callback/github', 302, null, null, { redirect: { user: null, error: null } }), null, 'a redirect with neither is no event');
  t.equal(redirectError('/home?error=INVALID_TOKEN'), 'INVALID_TOKEN');
  t.equal(redirectError('https://app.example.com/x?error=%3Cscript%3E'), 'script', 'only a code\'s characters');
  t.equal(redirectError('/home'), null);
  t.same(engineRouteEvent('/admin/stop-impersonating', 200, null, { user: { id: 'admin1' } }, { callerId: 'u7' }), { entry: { action: 'user.impersonation_stopped', target: { type: 'user', id: 'u7' } }, actorId: 'admin1' }, 'the admin who stops is the actor; the impersonated user the target');
  const revoked = engineRouteEvent('/admin/revoke-user-session', 200, { sessionToken: 'tok-secret-1' }, null)!;
  t.same(revoked.entry, { action: 'user.sessions_revoked', target: { type: 'session' }, after: { scope: 'session', by: 'admin' } });
  t.notOk(JSON.stringify(revoked).includes('tok-secret-1'), 'the session token is not kept');
  t.same(engineRouteEvent('/admin/update-user', 200, { userId: 'u2', data: { name: 'N', email: 'n@example.com' } }, null)!.entry.after, { fields: ['name', 'email'] });
  t.equal(engineRouteEvent('/admin/set-role', 403, { userId: 'u2', role: 'admin' }, null), null, 'a refused admin call is not recorded');
});
