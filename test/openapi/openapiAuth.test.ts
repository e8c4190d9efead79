/** With requireAuth: the document needs a credential, the explorer page is public and locked down by CSP. */
import t from 'tap';
import { startTestRuntime } from '../harness/startTestRuntime.ts';
import { as, BUILTINS } from '../meta/metaFixtures.ts';

t.test('requireAuth true', async (t) => {
  const rt = await startTestRuntime({
    config: { apps: ['metadata/apps/crm'], api: { requireAuth: true }, environments: [{ id: 'prod' }, { id: 'eu-west' }] },
    builtins: BUILTINS,
  });
  t.teardown(() => rt.close());

  await t.test('the document refuses anonymous callers with the envelope and nothing of the API', async (t) => {
    for (const url of ['/api/v1/openapi.json', '/api/v1/environments/eu-west/openapi.json']) {
      const res = await rt.inject(url);
      t.equal(res.statusCode, 401, `${url}: 401`);
      t.same(Object.keys(res.json()), ['error'], 'the envelope only');
      t.equal(res.json().error.code, 'UNAUTHENTICATED');
      for (const text of ['paths', '/data/account', 'components']) t.equal(res.body.includes(text), false, `no ${text}`);
    }
    const unknown = await rt.inject('/api/v1/environments/nowhere/openapi.json');
    t.equal(unknown.statusCode, 404, 'an unknown environment is a 404');
  });

  await t.test('an authenticated caller gets it, credentials required by default', async (t) => {
    const res = await rt.inject({ method: 'GET', url: '/api/v1/openapi.json', headers: as('alice') });
    t.equal(res.statusCode, 200);
    const doc = res.json();
    t.same(doc.security, [{ session: [] }, { bearer: [] }, { apiKey: [] }], 'no anonymous alternative');
    t.match(doc.components.securitySchemes.session, { in: 'cookie', name: 'osr-prod.session_token' }, 'the default environment\'s cookie');
    t.match(doc.info.description, /Every operation needs a credential/);
    t.same(doc.paths['/docs'].get.security, [], 'the explorer page is public');
    t.match(doc.paths['/docs'].get.responses['200'].content, { 'text/html': {} }, 'and answers HTML');
    t.match(doc.paths['/docs/explorer.js'].get.responses['200'].content, { 'text/javascript': {} }, 'its script');
    t.same(doc.paths['/openapi.json'].get.security, undefined, 'the document itself takes the default: a credential');
  });

  await t.test('the explorer page: public, self-contained, strict CSP', async (t) => {
    const res = await rt.inject('/api/v1/docs');
    t.equal(res.statusCode, 200);
    t.match(res.headers['content-type'], /^text\/html/);
    const csp = String(res.headers['content-security-policy']);
    for (const directive of ["default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "frame-ancestors 'none'", "base-uri 'none'", "form-action 'none'"]) {
      t.ok(csp.includes(directive), `CSP has ${directive}`);
    }
    t.equal(csp.includes('unsafe'), false, 'nothing unsafe allowed');
    t.equal(res.headers['x-content-type-options'], 'nosniff');
    t.match(res.body, '<script src="/api/v1/docs/explorer.js"></script>', 'the script is served by the runtime');
    t.match(res.body, 'href="/api/v1/docs/explorer.css"', 'and the styles');
    t.match(res.body, 'data-spec="/api/v1/openapi.json"', 'it reads the live document');
    t.notMatch(res.body, /<script>|<style|\sstyle=|\son[a-z]+=/, 'no inline script, style or handler');
    t.notMatch(res.body, /https?:\/\//, 'nothing from another origin');
    const env = await rt.inject('/api/v1/environments/eu-west/docs');
    t.match(env.body, 'data-spec="/api/v1/environments/eu-west/openapi.json"', 'below a prefix, the environment\'s document');
  });

  await t.test('the explorer assets', async (t) => {
    const js = await rt.inject('/api/v1/docs/explorer.js');
    t.equal(js.statusCode, 200);
    t.match(js.headers['content-type'], /^text\/javascript/);
    t.match(js.body, "credentials: session ? 'omit' : 'same-origin'", 'the document is fetched with the session cookie, or with the bearer token of the explorer\'s own sign-in');
    t.notMatch(js.body, /localStorage|[?&]token=/, 'the token is kept in the tab only and never put in a URL');
    t.match(js.body, 'res.status === 401', 'a refusal shows the sign-in hint');
    t.notMatch(js.body, /innerHTML|eval\(|new Function/, 'text only: no HTML from the document');
    const css = await rt.inject('/api/v1/docs/explorer.css');
    t.equal(css.statusCode, 200);
    t.match(css.headers['content-type'], /^text\/css/);
    t.notMatch(css.body, /@import|url\(/, 'nothing loaded from elsewhere');
  });
});
