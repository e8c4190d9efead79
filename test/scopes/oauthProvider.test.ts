/**
 * OAuth 2.1 for connected agents, over HTTP on each backend: discovery and resource metadata,
 * dynamic client registration, authorization code with PKCE as a signed-in user, and access tokens
 * holding only the granted scopes on the data API.
 */
import { createHash, randomBytes } from 'node:crypto';
import t from 'tap';
import { ADMIN, eachBackend } from '../auth/authHarness.ts';
import { freePort } from '../harness/freePort.ts';
import { serveCrm, type Served } from './scopesHttp.ts';

const REDIRECT = 'http://127.0.0.1:9/callback';
const challengeOf = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

/** Cookies by name, as a browser would keep them for this one server (paths ignored: every call carries them all). */
class Jar {
  private cookies = new Map<string, string>();
  take(headers: Headers): void {
    for (const line of headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      const name = pair!.slice(0, at).trim();
      const value = pair!.slice(at + 1).trim();
      if (/max-age=0|expires=thu, 01 jan 1970/i.test(line) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

interface Flow {
  status: number;
  location: string | null;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

async function step(s: Served, jar: Jar, method: string, url: string, body?: unknown): Promise<Flow> {
  const headers: Record<string, string> = { cookie: jar.header() };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(new URL(url, s.base), { method, headers, redirect: 'manual', ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  jar.take(res.headers);
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // an HTML page of the server
  }
  return { status: res.status, location: res.headers.get('location'), body: parsed };
}

async function token(s: Served, form: Record<string, string>) {
  const res = await fetch(`${s.base}/api/v1/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() });
  return { status: res.status, body: (await res.json()) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

t.test('oauth provider for connected agents', async (t) => {
  await eachBackend(t, ['oauth'], async (t, site) => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const s = await serveCrm(site, { port, auth: { baseURL: base, oauthProvider: { enabled: true } } });

    await t.test('metadata documents', async (t) => {
      const as = await s.call('GET', '/.well-known/oauth-authorization-server');
      t.equal(as.status, 200);
      t.match(as.body, {
        issuer: base,
        authorization_endpoint: `${base}/api/v1/oauth/authorize`,
        token_endpoint: `${base}/api/v1/oauth/token`,
        registration_endpoint: `${base}/api/v1/oauth/register`,
        revocation_endpoint: `${base}/api/v1/oauth/revoke`,
        jwks_uri: `${base}/api/v1/oauth/jwks`,
      });
      t.same(as.body.code_challenge_methods_supported, ['S256'], 'PKCE with S256 only');
      t.same(as.body.response_types_supported, ['code'], 'the code flow only');
      t.ok(as.body.grant_types_supported.includes('authorization_code'));
      for (const [path, resource] of [['/.well-known/oauth-protected-resource/api/v1/mcp', `${base}/api/v1/mcp`], ['/.well-known/oauth-protected-resource', base]] as const) {
        const pr = await s.call('GET', path);
        t.equal(pr.status, 200, path);
        t.same(pr.body, {
          resource, authorization_servers: [base], scopes_supported: ['data:read', 'data:write', 'actions:execute'],
          bearer_methods_supported: ['header'], resource_name: 'osr runtime API',
        }, `${path} names the authorization server and the scopes`);
      }
    });

    const registered = await s.call('POST', '/api/v1/oauth/register', {
      body: { client_name: 'agent', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', grant_types: ['authorization_code'], response_types: ['code'] },
    });
    t.equal(registered.status, 201, 'dynamic client registration');
    const clientId = registered.body.client_id as string;
    t.ok(clientId, 'a client id');
    t.notOk(registered.body.client_secret, 'a public client has no secret');

    const signedIn = async () => {
      const jar = new Jar();
      const res = await fetch(`${base}/api/v1/auth/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ADMIN) });
      t.equal(res.status, 200, 'signed in');
      jar.take(res.headers);
      return jar;
    };

    /** The flow up to the code, as the signed-in user's browser; `consent` is the user's answer. */
    const authorize = async (scope: string, verifier: string, consent: Record<string, unknown> = {}, jar?: Jar) => {
      jar ??= await signedIn();
      const query = new URLSearchParams({
        client_id: clientId, redirect_uri: REDIRECT, response_type: 'code', scope, state: 'st4te',
        code_challenge: challengeOf(verifier), code_challenge_method: 'S256', resource: `${base}/api/v1/mcp`,
      });
      const start = await step(s, jar, 'GET', `/api/v1/oauth/authorize?${query}`);
      t.equal(start.status, 303, 'the authorization goes to the consent step');
      const uid = /\/api\/v1\/oauth\/interaction\/([^/?]+)$/.exec(start.location ?? '')?.[1];
      t.ok(uid, `at ${start.location}`);
      const review = await step(s, jar, 'GET', `/api/v1/oauth/interaction/${uid}`);
      t.equal(review.status, 200, 'the user reviews the request');
      t.match(review.body, { clientId, requestedScopes: scope.split(' ').filter((x) => x.includes(':')), resource: `${base}/api/v1/mcp` });
      const consented = await step(s, jar, 'POST', `/api/v1/oauth/interaction/${uid}/consent`, consent);
      t.equal(consented.status, 303, 'consent redirects back to the authorization');
      const resumed = await step(s, jar, 'GET', consented.location!);
      t.equal(resumed.status, 303, 'which redirects to the client');
      const back = new URL(resumed.location!);
      t.equal(`${back.origin}${back.pathname}`, REDIRECT, 'at its redirect uri');
      t.equal(back.searchParams.get('state'), 'st4te', 'with its state');
      return { code: back.searchParams.get('code'), error: back.searchParams.get('error') };
    };

    const exchange = (code: string, verifier: string) => token(s, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: clientId, code_verifier: verifier, resource: `${base}/api/v1/mcp` });

    await t.test('a token granted data:read reads and cannot write anywhere', async (t) => {
      const verifier = randomBytes(32).toString('base64url');
      const { code } = await authorize('data:read', verifier);
      t.ok(code, 'a code');
      const issued = await exchange(code!, verifier);
      t.equal(issued.status, 200, 'the code and its verifier give a token');
      t.equal(issued.body.token_type, 'Bearer');
      t.equal(issued.body.scope, 'data:read', 'holding the granted scope');
      const auth = { authorization: `Bearer ${issued.body.access_token}` };
      t.equal((await s.call('GET', '/api/v1/data/task', { headers: auth })).status, 200, 'reads');
      const write = await s.call('POST', '/api/v1/data/task', { headers: auth, body: { subject: 'by token' } });
      t.equal(write.status, 403, 'cannot write');
      t.equal(write.body.error.code, 'SCOPE_DENIED');
      t.equal(write.body.error.details.scope, 'data:write');
      const action = await s.call('POST', '/api/v1/actions/close_task', { headers: auth, body: { recordId: 'x' } });
      t.equal(action.body.error.code, 'SCOPE_DENIED', 'cannot run actions');
      const key = await s.call('POST', '/api/v1/keys', { headers: auth, body: { name: 'escape' } });
      t.equal(key.status, 403, 'cannot mint an unscoped key');
      t.equal(key.body.error.code, 'SCOPE_DENIED', 'refused by the guard: minting is a write');
      const again = await exchange(code!, verifier);
      t.equal(again.status, 400, 'a code is used once');
      t.equal(again.body.error, 'invalid_grant');

      const revoke = await fetch(`${base}/api/v1/oauth/revoke`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token: issued.body.access_token, client_id: clientId }).toString() });
      t.equal(revoke.status, 200, 'revoked');
      t.equal((await s.call('GET', '/api/v1/data/task', { headers: auth })).status, 401, 'refused at once');
    });

    await t.test('a token granted data:write writes; the user may grant less than asked', async (t) => {
      const verifier = randomBytes(32).toString('base64url');
      const { code } = await authorize('data:read data:write', verifier);
      const issued = await exchange(code!, verifier);
      t.equal(issued.status, 200);
      const auth = { authorization: `Bearer ${issued.body.access_token}` };
      const write = await s.call('POST', '/api/v1/data/task', { headers: auth, body: { subject: 'by agent' } });
      t.equal(write.status, 201, 'writes');
      t.equal(write.body.subject, 'by agent');

      const narrowVerifier = randomBytes(32).toString('base64url');
      const narrow = await authorize('data:read data:write', narrowVerifier, { scopes: ['data:read'] });
      const limited = await exchange(narrow.code!, narrowVerifier);
      t.equal(limited.body.scope, 'data:read', 'only what the user granted');
      const refused = await s.call('POST', '/api/v1/data/task', { headers: { authorization: `Bearer ${limited.body.access_token}` }, body: { subject: 'nope' } });
      t.equal(refused.body.error.code, 'SCOPE_DENIED', 'so it cannot write');
    });

    await t.test('PKCE: a wrong verifier fails, a missing challenge is refused', async (t) => {
      const verifier = randomBytes(32).toString('base64url');
      const { code } = await authorize('data:read', verifier);
      const wrong = await exchange(code!, randomBytes(32).toString('base64url'));
      t.equal(wrong.status, 400, 'a wrong verifier');
      t.equal(wrong.body.error, 'invalid_grant');
      t.notOk(wrong.body.access_token, 'gets no token');

      const jar = await signedIn();
      const noPkce = await step(s, jar, 'GET', `/api/v1/oauth/authorize?${new URLSearchParams({ client_id: clientId, redirect_uri: REDIRECT, response_type: 'code', scope: 'data:read', state: 's' })}`);
      t.equal(noPkce.status, 303);
      const back = new URL(noPkce.location!);
      t.equal(back.searchParams.get('error'), 'invalid_request', 'no code challenge: refused to the client');
      t.match(back.searchParams.get('error_description'), /PKCE/);
    });

    await t.test('consent needs a signed-in user; a refusal reaches the client', async (t) => {
      const jar = new Jar();
      const query = new URLSearchParams({ client_id: clientId, redirect_uri: REDIRECT, response_type: 'code', scope: 'data:read', state: 's', code_challenge: challengeOf('v'.repeat(43)), code_challenge_method: 'S256' });
      const start = await step(s, jar, 'GET', `/api/v1/oauth/authorize?${query}`);
      const review = await step(s, jar, 'GET', start.location!);
      t.equal(review.status, 401, 'anonymous');
      t.equal(review.body.error.code, 'UNAUTHENTICATED');
      const consent = await step(s, jar, 'POST', `${start.location!}/consent`, {});
      t.equal(consent.status, 401, 'anonymous consent');

      const denied = await authorize('data:read', 'v'.repeat(43), { deny: true });
      t.equal(denied.error, 'access_denied', 'the client hears access_denied');
      t.equal(denied.code, null, 'and gets no code');
    });
  });
});

t.test('dynamic client registration is bounded per IP', async (t) => {
  await eachBackend(t, ['oauth-limit'], async (t, site) => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const s = await serveCrm(site, { port, auth: { baseURL: base, oauthProvider: { enabled: true }, rateLimit: { enabled: true, clientRegistration: { perIp: { max: 3, windowSeconds: 3600 } } } } });
    const body = { client_name: 'flood', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', grant_types: ['authorization_code'], response_types: ['code'] };
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await s.call('POST', '/api/v1/oauth/register', { body }));
    t.same(answers.map((a) => a.status), [201, 201, 201, 429, 429], 'the fourth registration from this address within the hour is refused');
    t.equal(answers[3]!.body.error.code, 'RATE_LIMITED');
    t.equal(answers[3]!.body.error.details.limit, 'clientRegistration');
    t.ok(Number(answers[3]!.body.error.details.retryAfter) > 3000, 'with the seconds left in the hour');
    const clients = await site.query(site.ids[0]!, 'select count(*) as n from sys_oauth_store where model = ?', ['Client']);
    t.equal(Number(clients[0]!.n), 3, 'a refused registration stores no client');
  });
});
