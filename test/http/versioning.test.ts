/** /api/v1 and /api/v2 side by side: the list change, discovery, deprecation headers, one OpenAPI document each. */
import { Validator } from '@seriousme/openapi-schema-validator';
import t from 'tap';
import { V1_DEPRECATED_AT, V1_SUNSET } from '../../plugins/http/apiVersions.ts';
import { startTestRuntime } from '../harness/startTestRuntime.ts';

type Doc = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const rt = await startTestRuntime({
  config: { apps: ['metadata/apps/crm'], api: { requireAuth: false }, plugins: { crm: { enabled: true } }, environments: [{ id: 'main' }, { id: 'staging' }] },
});
t.teardown(() => rt.close());
for (const name of ['Acme', 'Globex', 'Initech']) {
  const res = await rt.inject({ method: 'POST', url: '/api/v1/data/account', payload: { name } });
  t.equal(res.statusCode, 201, `seeded ${name}`);
}

const DEPRECATION = ['deprecation', 'sunset', 'link'];
const without = (headers: Record<string, unknown>, names: string[]) => Object.fromEntries(Object.entries(headers).filter(([k]) => !names.includes(k)));
/** Headers that differ per request whatever the version. */
const VOLATILE = ['x-request-id', 'date', 'content-length'];

t.test('GET list: v2 differs from v1 exactly by total and the deprecation headers', async (t) => {
  const v1 = await rt.inject('/api/v1/data/account?orderBy=name&limit=2');
  const v2 = await rt.inject('/api/v2/data/account?orderBy=name&limit=2');
  t.equal(v1.statusCode, 200);
  t.equal(v2.statusCode, 200);
  const b1 = v1.json();
  const b2 = v2.json();
  t.equal(b1.total, 3, 'v1 counts');
  t.equal('total' in b2, false, 'v2 does not count unless asked');
  const { total: _total, ...rest1 } = b1;
  t.same(b2, rest1, 'everything else is the same body');
  t.same(without(v2.headers, VOLATILE), without(without(v1.headers, VOLATILE), DEPRECATION), 'the headers differ by the deprecation headers only');
  t.equal(v1.headers.deprecation, `@${V1_DEPRECATED_AT / 1000}`, 'Deprecation: @<unix seconds> (RFC 9745)');
  t.equal(v1.headers.sunset, new Date(V1_SUNSET).toUTCString(), 'Sunset: HTTP-date (RFC 8594)');
  t.match(v1.headers.sunset, /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/, 'IMF-fixdate');
  t.equal(v1.headers.link, '</api/v2/data/account>; rel="successor-version"', 'the successor path, without the query');
  for (const name of DEPRECATION) t.equal(v2.headers[name], undefined, `v2 sends no ${name}`);

  const counted = await rt.inject('/api/v2/data/account?orderBy=name&limit=2&count=true');
  t.same(counted.json(), b1, 'v2 with count=true answers the v1 body');
  const notCounted = await rt.inject('/api/v2/data/account?orderBy=name&limit=2&count=false');
  t.same(notCounted.json(), b2, 'count=false is the default');
  const bad = await rt.inject('/api/v2/data/account?count=yes');
  t.equal(bad.statusCode, 400, 'count takes its listed values only');
  t.equal(bad.json().error.code, 'VALIDATION_ERROR');
  t.match(bad.json().error.details, { errors: [{ path: 'query.count' }] });
});

t.test('POST query: the same rule, through the query string', async (t) => {
  const payload = { orderBy: ['name'], limit: 2 };
  const v1 = await rt.inject({ method: 'POST', url: '/api/v1/data/account/query', payload });
  const v2 = await rt.inject({ method: 'POST', url: '/api/v2/data/account/query', payload });
  const v2c = await rt.inject({ method: 'POST', url: '/api/v2/data/account/query?count=true', payload });
  t.equal(v1.json().total, 3);
  t.equal('total' in v2.json(), false);
  const { total: _total, ...rest } = v1.json();
  t.same(v2.json(), rest, 'v2 body is the v1 body without total');
  t.same(v2c.json(), v1.json(), 'count=true brings total back');
  t.equal(v1.headers.link, '</api/v2/data/account/query>; rel="successor-version"');
  const bad = await rt.inject({ method: 'POST', url: '/api/v2/data/account/query?count=1', payload });
  t.equal(bad.statusCode, 400, 'count=1 is refused');
});

t.test('routes without a variant: same answer on both, no deprecation headers; environment prefix on both', async (t) => {
  const list = (await rt.inject('/api/v1/data/account?limit=1')).json();
  const id = list.items[0].id;
  const v1 = await rt.inject(`/api/v1/data/account/${id}`);
  const v2 = await rt.inject(`/api/v2/data/account/${id}`);
  t.same(v2.json(), v1.json(), 'same record');
  t.equal(v1.headers.deprecation, undefined, 'no Deprecation on a route without a v2 variant');
  t.equal(v1.headers.etag, v2.headers.etag);
  const env1 = await rt.inject('/api/v1/environments/staging/data/account');
  const env2 = await rt.inject('/api/v2/environments/staging/data/account');
  t.equal(env1.statusCode, 200);
  t.equal(env2.statusCode, 200);
  t.equal(env1.json().total, 0, 'staging is empty (v1)');
  t.same(env2.json(), { items: [], nextCursor: null }, 'v2 environment form, no total');
  t.equal(env1.headers.link, '</api/v2/environments/staging/data/account>; rel="successor-version"', 'successor keeps the environment');
  const unknown = await rt.inject('/api/v2/environments/nope/data/account');
  t.equal(unknown.statusCode, 404, 'an unknown environment is refused on v2 too');
  const ok1 = await rt.inject('/api/v1/auth/ok');
  const ok2 = await rt.inject('/api/v2/auth/ok');
  t.equal(ok1.statusCode, 200);
  t.equal(ok2.statusCode, 200, 'auth routes answer on v2 as on v1');
  t.same(ok2.json(), ok1.json());
  const v3 = await rt.inject('/api/v3/data/account');
  t.equal(v3.statusCode, 404, 'no /api/v3');
});

t.test('discovery on both versions', async (t) => {
  for (const version of ['v1', 'v2']) {
    const res = await rt.inject(`/api/${version}`);
    t.equal(res.statusCode, 200);
    const body = res.json();
    t.equal(body.apiVersion, version, `${version} says which version answered`);
    t.equal(body.version, '16.0.0', 'the runtime version');
    t.same(body.apiVersions.map((v: { version: string; status: string }) => [v.version, v.status]), [['v1', 'deprecated'], ['v2', 'current']]);
    t.match(body.apiVersions[0], { sunset: new Date(V1_SUNSET).toISOString(), deprecatedAt: new Date(V1_DEPRECATED_AT).toISOString() });
    t.match(body.api, { current: 'v2', supported: ['v1', 'v2'], horizon: /previous version is served beside it/ });
    t.equal(body.scoping.pathPrefix, `/api/${version}/environments/:environmentId`);
    const list = body.routes.find((r: { method: string; path: string }) => r.method === 'GET' && r.path === `/api/${version}/data/:object`);
    t.match(list, { v2Change: /count=true/ }, `${version} lists the data list route with its change`);
    t.ok(body.routes.every((r: { path: string }) => r.path.startsWith(`/api/${version}`) || !r.path.startsWith('/api/')), 'paths in the version asked');
  }
  t.equal((await rt.inject('/api/v1')).headers.deprecation, undefined, 'discovery itself is not deprecated');
});

t.test('one valid OpenAPI document per version', async (t) => {
  const docs: Record<string, Doc> = {};
  for (const version of ['v1', 'v2']) {
    const res = await rt.inject(`/api/${version}/openapi.json`);
    t.equal(res.statusCode, 200);
    const doc = res.json();
    docs[version] = doc;
    const validator = new Validator();
    const result = await validator.validate(doc);
    t.same(result.errors, undefined, `${version}: no schema errors`);
    t.equal(result.valid, true, `${version}: valid`);
    t.equal(doc.info['x-api-version'], version);
    t.equal(doc.servers[0].url, `/api/${version}`, `${version} server`);
    t.equal(doc.servers[1].url, `/api/${version}/environments/{environmentId}`);
  }
  const list1 = docs.v1.paths['/data/account'].get;
  const list2 = docs.v2.paths['/data/account'].get;
  t.equal(list1.deprecated, true, 'v1 list is deprecated');
  t.equal(list2.deprecated, undefined, 'v2 list is not');
  t.match(list1.parameters.find((p: { name: string }) => p.name === 'count'), { in: 'query', description: /Absent: capped/, schema: { enum: ['capped', 'exact', 'estimated', 'none', 'true', 'false'] } }, 'v1 counts up to the cap unless told');
  t.match(list2.parameters.find((p: { name: string }) => p.name === 'count'), { in: 'query', description: /Absent: none/, schema: { enum: ['capped', 'exact', 'estimated', 'none', 'true', 'false'] } });
  t.ok(docs.v2.paths['/data/account/query'].post.parameters.some((p: { name: string }) => p.name === 'count'), 'the v2 query takes count');
  t.equal(docs.v1.paths['/data/account/{id}'].get.deprecated, undefined, 'a route without a variant is not deprecated');
  const e1 = (await rt.inject('/api/v1/openapi.json')).headers.etag;
  const e2 = (await rt.inject('/api/v2/openapi.json')).headers.etag;
  t.not(e1, e2, 'each version has its own ETag');
});
