/** The live OpenAPI document: valid, complete both ways, faithful to metadata (apiEnabled, apiMethods, field types). */
import { Validator } from '@seriousme/openapi-schema-validator';
import t from 'tap';
import { startTestRuntime } from '../harness/startTestRuntime.ts';

type Doc = any; // eslint-disable-line @typescript-eslint/no-explicit-any
interface Listed { method: string; path: string }

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const CRM = ['account', 'contact', 'lead', 'opportunity', 'task'];

/** `/api/v1/data/:object/:id` as a regular expression over concrete paths. */
const pattern = (fullPath: string) => new RegExp(`^${fullPath.replace(/[.+?^$()|[\]\\]/g, '\\$&').replace(/:[A-Za-z0-9_]+/g, '[^/]+').replace(/\*$/, '.+')}$`);
const concrete = (path: string) => `/api/v1${path === '/' ? '' : path}`.replace(/\{[^}]+\}/g, 'x1');
const operations = (doc: Doc) => Object.entries(doc.paths as Record<string, Record<string, Doc>>)
  .flatMap(([path, item]) => METHODS.filter((m) => item[m]).map((m) => ({ method: m.toUpperCase(), path, op: item[m] })));

t.test('requireAuth false, CRM and a fixture app with limits', async (t) => {
  const rt = await startTestRuntime({
    config: {
      apps: ['metadata/apps/crm', 'test/openapi/fixtures/limits'],
      api: { requireAuth: false },
      plugins: { crm: { enabled: true } },
      environments: [{ id: 'main' }, { id: 'staging' }],
    },
  });
  t.teardown(() => rt.close());
  const res = await rt.inject('/api/v1/openapi.json');
  t.equal(res.statusCode, 200, 'served');
  t.match(res.headers['content-type'], /^application\/json/, 'as JSON');
  const doc: Doc = res.json();
  const ops = operations(doc);

  await t.test('valid OpenAPI 3.0.3 under an external validator', async (t) => {
    const validator = new Validator();
    const result = await validator.validate(doc);
    t.same(result.errors, undefined, 'no schema errors');
    t.equal(result.valid, true, 'valid');
    t.equal(validator.version, '3.0', 'read as OpenAPI 3.0');
    t.equal(doc.openapi, '3.0.3', 'declares 3.0.3');
    t.equal(doc.info['x-metadata-version'], res.headers.etag?.toString().replace(/"/g, ''), 'the ETag is the metadata version');
  });

  await t.test('every mounted route is documented, every documented operation is mounted', async (t) => {
    const mounted = ((await rt.inject('/api/v1')).json() as { routes: Listed[] }).routes;
    t.ok(mounted.length > 30, `discovery lists the mounted routes (${mounted.length})`);
    for (const route of mounted) {
      if (route.path.startsWith('/api/v1/data/:object')) {
        const documented = ops.filter((o) => o.method === route.method && pattern(route.path).test(concrete(o.path)) && o.op['x-object']);
        t.ok(documented.length > 0, `${route.method} ${route.path} is documented per object (${documented.map((o) => o.path).join(', ')})`);
      } else {
        // Root routes (the form pages) keep their path; the document serves them from '/'.
        const path = (route.path.startsWith('/api/v1') ? route.path.slice('/api/v1'.length) || '/' : route.path).replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\*$/, '{wildcard}');
        t.ok(doc.paths[path]?.[route.method.toLowerCase()], `${route.method} ${route.path} is documented as ${path}`);
      }
    }
    for (const { method, path, op } of ops) {
      const url = op.servers?.[0]?.url === '/' ? path.replace(/\{[^}]+\}/g, 'x1') : concrete(path);
      t.ok(mounted.some((r) => r.method === method && pattern(r.path).test(url)), `${method} ${path} matches a mounted route`);
    }
    t.equal(ops.filter((o) => o.path.includes('/environments/')).length, 0, 'the environment-prefixed duplicates are not paths');
    t.equal(ops.length, new Set(ops.map((o) => o.op.operationId)).size, 'operationIds are unique');
  });

  await t.test('each documented operation reaches a route when requested', async (t) => {
    // A wildcard route hands unknown sub-paths to its owner, which may answer ROUTE_NOT_FOUND itself.
    for (const { method, path, op } of ops.filter((o) => !o.path.includes('{wildcard}'))) {
      const reply = await rt.inject({ method: method as 'GET', url: op.servers?.[0]?.url === '/' ? path.replace(/\{[^}]+\}/g, 'x1') : concrete(path) });
      const code = reply.headers['content-type']?.toString().startsWith('application/json') && reply.statusCode === 404 ? reply.json().error?.code : null;
      t.not(code, 'ROUTE_NOT_FOUND', `${method} ${path}`);
    }
  });

  await t.test('apiEnabled false objects are absent everywhere; apiMethods decide which operations exist', async (t) => {
    t.equal(JSON.stringify(doc).includes('vault_item'), false, 'no path, schema or tag of vault_item');
    t.equal(JSON.stringify(doc).includes('vault_secret_code'), false, 'nor its fields');
    t.equal(JSON.stringify(doc).includes('sys_meta_'), false, 'nor the engine-owned objects');
    // Operations that apiMethods govern (the record shares are not among them).
    const of = (object: string) => ops.filter((o) => o.op['x-object'] === object && o.op['x-api-method']).map((o) => `${o.method} ${o.path}`).sort();
    t.same(of('ledger_line'), ['DELETE /data/ledger_line/{id}/comments/{commentId}', 'GET /data/ledger_line', 'GET /data/ledger_line/{id}', 'GET /data/ledger_line/{id}/activities', 'GET /data/ledger_line/{id}/comments', 'PATCH /data/ledger_line/{id}/comments/{commentId}', 'POST /data/ledger_line/query', 'POST /data/ledger_line/{id}/comments'], 'list and get (query lists), comments and activities (get: enable.feeds and enable.activities are on by default)');
    t.same(of('metric'), ['POST /data/metric/query'], 'aggregate: the query only');
    t.same(of('binned_note'), [
      'DELETE /data/binned_note/{id}', 'DELETE /data/binned_note/{id}/comments/{commentId}', 'DELETE /data/binned_note/{id}/purge', 'GET /data/binned_note/trash', 'GET /data/binned_note/{id}',
      'GET /data/binned_note/{id}/activities', 'GET /data/binned_note/{id}/comments', 'PATCH /data/binned_note/{id}/comments/{commentId}', 'POST /data/binned_note/{id}/comments', 'POST /data/binned_note/{id}/restore',
    ], 'a trash: its listing, restore and purge; no history without trackHistory');
    t.same(of('intake'), ['POST /data/intake', 'POST /data/intake/import'], 'create and import');
    t.same(of('account'), [
      'DELETE /data/account/{id}', 'DELETE /data/account/{id}/comments/{commentId}', 'DELETE /data/account/{id}/files/{fileId}', 'GET /data/account', 'GET /data/account/{id}',
      'GET /data/account/{id}/activities', 'GET /data/account/{id}/comments', 'GET /data/account/{id}/files', 'GET /data/account/{id}/files/{fileId}', 'GET /data/account/{id}/history', 'PATCH /data/account/{id}',
      'PATCH /data/account/{id}/comments/{commentId}', 'POST /data/account', 'POST /data/account/bulk', 'POST /data/account/export', 'POST /data/account/import',
      'POST /data/account/query', 'POST /data/account/{id}/comments', 'POST /data/account/{id}/files',
    ], 'no apiMethods: every operation (upsert needs a unique field, which account has not; files: enable.files)');
    // What the document says is what the REST layer does.
    const probes: Array<[string, string, string]> = [['POST', '/data/ledger_line', 'create'], ['PATCH', '/data/ledger_line/x1', 'update'], ['GET', '/data/intake', 'list'], ['GET', '/data/metric/x1', 'get']];
    for (const [method, path] of probes) {
      const reply = await rt.inject({ method: method as 'GET', url: `/api/v1${path}`, ...(method === 'GET' ? {} : { payload: {} }) });
      t.equal(reply.statusCode, 405, `${method} ${path} is refused with 405`);
      t.equal(doc.paths[path.replace('x1', '{id}')]?.[method.toLowerCase()], undefined, `and not documented`);
    }
    const tagged = doc.tags.filter((tag: Doc) => tag['x-object']).map((tag: Doc) => tag.name);
    for (const name of [...CRM, 'intake', 'ledger_line', 'metric']) t.ok(tagged.includes(name), `a tag for ${name}`);
    t.equal(tagged.includes('vault_item'), false, 'none for an object the API does not serve');
    // Engine-owned objects: read operations, writes only where their userActions allow them.
    const system = ((await rt.inject('/api/v1/meta/object')).json().items as Array<{ name: string; system: boolean; apiEnabled: boolean; userActions?: Record<string, boolean> }>).filter((o) => o.system);
    for (const object of system.filter((o) => o.apiEnabled)) {
      const documented = ops.filter((o) => o.op['x-object'] === object.name);
      t.ok(documented.some((o) => o.method === 'GET' && o.path === `/data/${object.name}`), `${object.name}: listed`);
      t.equal(documented.some((o) => o.method === 'POST' && o.path === `/data/${object.name}`), object.userActions?.create === true, `${object.name}: create only with userActions.create`);
      t.equal(documented.some((o) => o.path.endsWith('/shares')), false, `${object.name}: no record shares`);
    }
  });

  await t.test('component schemas follow the field types', async (t) => {
    const s = doc.components.schemas;
    const account = s.account.properties;
    t.same(account.billing_email, { type: 'string', format: 'email', maxLength: 320, title: 'Billing email', nullable: true }, 'email, at most its type\'s default length');
    t.match(account.website, { type: 'string', format: 'uri' }, 'url');
    t.match(account.customer_since, { type: 'string', format: 'date' }, 'date');
    t.match(account.rating, { type: 'string', enum: ['hot', 'warm', 'cold', null], nullable: true }, 'select: enum of its values');
    t.match(account.segments, { type: 'array', items: { type: 'string', enum: ['smb', 'mid_market', 'enterprise', 'public_sector'] } }, 'multiselect: array of values');
    t.match(account.employees, { type: 'integer', minimum: 0, description: 'Number of employees, all sites' }, 'integer with its bound and help');
    t.match(account.name, { type: 'string', maxLength: 255 }, 'text with maxLength');
    t.equal(account.name.nullable, undefined, 'a required field is not nullable');
    t.match(account.parent_account, { description: /account record/, 'x-reference': 'account', anyOf: [{ type: 'string', nullable: true }, { type: 'object' }] }, 'lookup: the id of the referenced object, or the record when expanded');
    t.match(doc.components.schemas['account.create'].properties.parent_account, { type: 'string', 'x-reference': 'account' }, 'a lookup is written as an id');
    t.equal(doc.components.schemas['account.create'].properties.name.minLength, 1, 'a required text refuses the empty string, as the engine does');
    t.match(doc.components.schemas.account.properties.phone, { type: 'string', pattern: '^\\+?[0-9][0-9 ().-]{2,31}$' }, 'a phone carries the engine\'s pattern');
    t.match(doc.components.schemas.account.properties.website, { format: 'uri', pattern: '^https?://' }, 'a url is http or https');
    for (const system of ['id', 'version', 'created_at', 'updated_at', 'created_by', 'updated_by', 'owner_id']) {
      t.equal(account[system]?.readOnly, true, `system field ${system} is read-only`);
    }
    t.match(s.lead.properties.converted_at, { type: 'string', format: 'date-time', readOnly: true }, 'datetime, declared read-only');
    t.match(s.lead.properties.lead_number, { type: 'string', readOnly: true }, 'autonumber is read-only');
    t.match(s.opportunity.properties.expected_revenue, { type: 'number', readOnly: true }, 'formula: its result type, read-only');
    t.same(s['lead.create'].required, ['last_name', 'company'], 'create requires the required fields without a default');
    t.equal(s['lead.create'].properties.lead_number, undefined, 'create has no read-only field');
    t.equal(s['lead.update'].required, undefined, 'update requires nothing');
    t.match(s['lead.update'].properties.expectedVersion, { type: 'integer' }, 'update takes expectedVersion');
    t.match(s['account.list'].properties.items.items, { $ref: '#/components/schemas/account' }, 'list of records');
    t.match(doc.paths['/data/account'].get.responses['200'].content['application/json'].schema, { $ref: '#/components/schemas/account.list' }, 'the list operation answers the list schema');
    t.match(doc.paths['/data/account'].get.parameters.find((p: Doc) => p.name === 'limit').schema, { maximum: 200 }, 'limit capped by maxPageSize');
  });

  await t.test('the error envelope is shared by every 4xx and 5xx response', async (t) => {
    t.match(doc.components.schemas.Error.properties.error.required, ['code', 'message', 'details'], 'code, message, details');
    t.ok(doc.components.schemas.Error.properties.error.properties.code.enum.includes('VALIDATION_ERROR'), 'codes are the closed list');
    let count = 0;
    for (const { method, path, op } of ops) {
      for (const [status, response] of Object.entries(op.responses as Record<string, Doc>)) {
        if (Number(status) < 400) continue;
        count++;
        // An HTML page (a form at /f/:slug) answers its own errors as pages a browser shows.
        const page = Object.keys(response.content ?? {}).length === 1 && response.content['text/html'] !== undefined;
        if (response.$ref !== '#/components/responses/Error' && !page) t.fail(`${method} ${path} ${status} does not use the envelope`);
      }
      t.ok(op.responses['500'], `${method} ${path} documents 500`);
    }
    t.ok(count > 100, `${count} error responses, all through the shared component`);
    t.match(doc.components.responses.Error.content['application/json'].schema, { $ref: '#/components/schemas/Error' }, 'the response holds the envelope');
  });

  await t.test('security schemes, public routes and path parameters', async (t) => {
    t.same(Object.keys(doc.components.securitySchemes).sort(), ['apiKey', 'bearer', 'session'], 'cookie session, bearer, API key');
    t.match(doc.components.securitySchemes.apiKey, { type: 'apiKey', in: 'header', name: 'x-api-key' }, 'API key header');
    t.match(doc.components.securitySchemes.session, { type: 'apiKey', in: 'cookie' }, 'session cookie');
    t.same(doc.security[0], {}, 'requireAuth false: the credential is optional by default');
    t.same(doc.paths['/health'].get.security, [], 'a public route needs nothing');
    t.same(doc.paths['/auth/sign-in'].post.security, [], 'sign-in is public');
    t.same(doc.paths['/meta/{type}/{section}/{name}'].post.security, [{ session: [] }, { bearer: [] }, { apiKey: [] }], 'a permission route always needs a credential');
    t.equal(doc.paths['/meta/{type}/{section}/{name}'].post['x-permission'], 'metadata:write', 'and names the permission');
    for (const { method, path, op } of ops) {
      const declared = (op.parameters ?? []).filter((p: Doc) => p.in === 'path').map((p: Doc) => p.name).sort();
      const inPath = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
      t.same(declared, inPath, `${method} ${path}: path parameters declared`);
    }
    t.match(doc.paths['/auth/{wildcard}'].get.parameters[0], { name: 'wildcard', in: 'path', required: true }, 'the wildcard is a path parameter');
  });

  await t.test('environments: one server variable, the same document below the prefix', async (t) => {
    t.match(doc.servers, [{ url: '/api/v1' }, { url: '/api/v1/environments/{environmentId}', variables: { environmentId: { default: 'main', enum: ['main', 'staging'] } } }]);
    t.match(doc.info.description, /\/api\/v1\/environments\/\{environmentId\}/, 'described in info');
    const prefixed = await rt.inject('/api/v1/environments/staging/openapi.json');
    t.equal(prefixed.statusCode, 200, 'served below the prefix');
    t.equal(prefixed.body, res.body, 'the same document');
  });

  await t.test('cached per metadata version; If-None-Match answers 304', async (t) => {
    const again = await rt.inject('/api/v1/openapi.json');
    t.equal(again.body, res.body, 'same document');
    t.equal(again.headers.etag, `"${doc.info['x-metadata-version']}"`, 'ETag of the metadata version');
    const cached = await rt.inject({ method: 'GET', url: '/api/v1/openapi.json', headers: { 'if-none-match': String(again.headers.etag) } });
    t.equal(cached.statusCode, 304, '304');
    t.equal(cached.body, '', 'no body');
  });
});
