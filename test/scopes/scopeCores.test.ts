/** The pure cores of credential scopes: the ceiling check, key scopes as stored, OAuth resources and granted scopes. */
import t from 'tap';
import type { Principal } from '../../capabilities/authSession.ts';
import { holdsScope, scopeRefusal } from '../../capabilities/credentialScopes.ts';
import { checkedScopes, scopesOf, scopesPermission } from '../../plugins/auth/keyScopes.ts';
import { grantedScopes, isOwnResource } from '../../plugins/auth/oauth/createOAuthServer.ts';

const user: Principal = { kind: 'user', userId: 'u1', environmentId: 'e', isAdmin: true, positions: [], permissionSets: [], permissions: [] };

t.test('the ceiling: unscoped acts as its user, a list holds only its scopes, an empty list nothing', async (t) => {
  t.ok(holdsScope(user, 'data:write'), 'unscoped');
  t.ok(holdsScope(null, 'data:write'), 'engine work without a principal');
  t.ok(holdsScope({ ...user, scopes: ['data:read'] }, 'data:read'));
  t.notOk(holdsScope({ ...user, scopes: ['data:read'] }, 'data:write'), 'even for an admin');
  t.notOk(holdsScope({ ...user, scopes: [] }, 'data:read'), 'empty: nothing');
  const refusal = scopeRefusal({ ...user, scopes: ['data:read'] }, 'data:write', 'create on object task');
  t.equal(refusal?.code, 'SCOPE_DENIED');
  t.equal(refusal?.status, 403);
  t.same(refusal?.details.granted, ['data:read']);
  t.equal(refusal?.message, 'The credential is limited to scopes ["data:read"]; create on object task needs data:write. Fix: use a credential that holds data:write: mint an API key with POST /api/v1/keys { "name": "...", "scopes": ["data:write"] }, or authorize the OAuth client for data:write');
  t.equal(scopeRefusal(user, 'data:write', 'x'), null);
});

t.test('key scopes: checked at minting, read back failing closed', async (t) => {
  t.equal(checkedScopes(undefined), undefined, 'none asked: acts as its user');
  t.same(checkedScopes(['data:read', 'data:read', 'actions:execute']), ['data:read', 'actions:execute']);
  t.throws(() => checkedScopes([]), { code: 'VALIDATION_ERROR' });
  t.throws(() => checkedScopes('data:read'), { code: 'VALIDATION_ERROR' });
  t.throws(() => checkedScopes(['data:read', 'admin']), { code: 'VALIDATION_ERROR', details: { allowed: ['data:read', 'data:write', 'actions:execute'] } });
  t.same(scopesOf(JSON.stringify(scopesPermission(['data:read']))), ['data:read'], 'as stored (JSON text)');
  t.same(scopesOf({ scopes: ['data:write'] }), ['data:write'], 'as the engine parses it');
  t.equal(scopesOf(null), null, 'no permissions: unscoped');
  t.same(scopesOf('not json'), [], 'unreadable: nothing');
  t.same(scopesOf({ other: ['x'] }), [], 'permissions without our scopes: nothing');
  t.same(scopesOf({ scopes: ['data:read', 'root'] }), ['data:read'], 'unknown scopes dropped');
});

t.test('oauth: own resources and granted scopes', async (t) => {
  const issuer = 'https://app.example.com';
  for (const ok of [issuer, `${issuer}/`, `${issuer}/api/v1`, `${issuer}/api/v1/mcp`]) t.ok(isOwnResource(ok, issuer), ok);
  for (const no of ['https://evil.example.com/api/v1', `${issuer}/other`, `${issuer}/api/v1#x`, `${issuer}/api/v1?x=1`, 'not a url', 'http://app.example.com/api/v1']) t.notOk(isOwnResource(no, issuer), no);
  t.same(grantedScopes('openid data:read data:write offline_access data:read'), ['data:read', 'data:write']);
  t.same(grantedScopes(undefined), [], 'nothing granted: nothing');
});
