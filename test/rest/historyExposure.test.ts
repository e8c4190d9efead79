import t from 'tap';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { eachBackend, signIn } from '../auth/authHarness.ts';
import { addUser, sendAs, type Reply } from '../access/accessWorld.ts';

/**
 * History entries hold old and new values of every tracked field: they are read through
 * /data/:object/:id/history only (the record's access and field-level security applied). A
 * permission set granting read on sys_record_history gives a member nothing: every generic read
 * path (list, get, query, count, aggregate, search, export, reports, MCP) refuses it, on both drivers.
 */
t.test('a permission set granting sys_record_history opens no generic read path to a member', async (t) => {
  await eachBackend(t, ['histexp'], async (t, site) => {
    const rt = await site.boot({
      config: {
        apps: ['test/rest/fixtures/records'],
        server: { listen: true, port: 0, host: '127.0.0.1' },
        plugins: { email: { enabled: false }, mcp: { enabled: true } },
      },
    });
    const session = await signIn(rt);
    const admin = { id: String(session.user.id), token: session.token };
    const m1 = await addUser(rt, admin.token, 'memberOne');
    const m2 = await addUser(rt, admin.token, 'memberTwo');
    const as = (token: string, method: string, url: string, payload?: unknown): Promise<Reply> => sendAs(rt, token, method, url, payload);
    const must = async (reply: Promise<Reply>, status = 201) => {
      const res = await reply;
      t.equal(res.status, status, `answered ${res.status}: ${JSON.stringify(res.body).slice(0, 200)}`);
      return res.body as Record<string, unknown>;
    };
    // m2 holds a set granting every read on the history object, and the memo secret stays hidden from it.
    const reader = await must(as(admin.token, 'POST', '/api/v1/data/sys_permission_set', { name: 'history_reader', objects: { sys_record_history: { read: true, viewAll: true } } }));
    await must(as(admin.token, 'POST', '/api/v1/data/sys_user_permission_set', { user_id: m2.id, permission_set: reader.id }));
    await must(as(admin.token, 'POST', '/api/v1/data/sys_permission_set', { name: 'memo_secrets', fields: { 'memo.secret': { read: true, edit: true } } }));
    // A private memo of m1 that m2 cannot see, with a secret set by the admin.
    const memo = await must(as(m1.token, 'POST', '/api/v1/data/memo', { title: 'PRIVATE-TITLE' }));
    await must(as(admin.token, 'PATCH', `/api/v1/data/memo/${String(memo.id)}`, { secret: 'SECRET-VALUE-9' }), 200);
    t.equal((await as(m2.token, 'GET', `/api/v1/data/memo/${String(memo.id)}`)).status, 404, 'm2 cannot read the memo');
    t.equal((await as(m2.token, 'GET', `/api/v1/data/memo/${String(memo.id)}/history`)).status, 404, 'nor its history on the sanctioned path');

    const leaks = (res: Reply | { body: unknown }) => /PRIVATE-TITLE|SECRET-VALUE-9/.test(typeof res.body === 'string' ? res.body : JSON.stringify(res.body));
    const refused = (res: Reply, what: string) => {
      t.equal(res.status, 403, `${what}: 403`);
      t.equal(res.body?.error?.code, 'PERMISSION_DENIED', `${what}: PERMISSION_DENIED`);
      t.equal(res.body?.error?.details?.permission, 'sys_record_history:read', `${what}: names sys_record_history:read`);
      t.notOk(leaks(res), `${what}: no value leaks`);
    };
    const where = encodeURIComponent(JSON.stringify({ record_id: { $eq: memo.id } }));
    const adminList = await as(admin.token, 'GET', `/api/v1/data/sys_record_history?where=${where}`);
    t.equal(adminList.body.total, 2, 'admins still read the entries through /data');
    const entryId = String(adminList.body.items[0].id);

    refused(await as(m2.token, 'GET', '/api/v1/data/sys_record_history'), 'list');
    refused(await as(m2.token, 'GET', `/api/v1/data/sys_record_history?where=${where}&count=exact`), 'list with a where');
    refused(await as(m2.token, 'GET', `/api/v1/data/sys_record_history/${entryId}`), 'get by id');
    refused(await as(m2.token, 'POST', '/api/v1/data/sys_record_history/query', { where: { record_id: { $eq: memo.id } } }), 'query');
    refused(await as(m2.token, 'POST', '/api/v1/data/sys_record_history/query', { aggregations: [{ function: 'count', alias: 'n' }] }), 'count aggregation');
    refused(await as(m2.token, 'POST', '/api/v1/data/sys_record_history/query', { groupBy: ['object'], aggregations: [{ function: 'count', alias: 'n' }] }), 'grouped aggregation');
    refused(await as(m2.token, 'POST', '/api/v1/data/sys_record_history/export', { format: 'json' }), 'export');
    refused(await as(m2.token, 'POST', '/api/v1/reports', { name: 'History', query: { object: 'sys_record_history', fields: ['changes'] } }), 'a report over the entries');
    const search = await as(m2.token, 'GET', '/api/v1/search?q=PRIVATE&object=sys_record_history');
    t.not(search.status, 200, `search: refused (${search.status})`);
    t.notOk(leaks(search), 'search: no value leaks');

    // MCP query_records with m2's key: refused, nothing leaks.
    const key = await must(as(m2.token, 'POST', '/api/v1/keys', { name: 'm2-mcp' }));
    const client = new Client({ name: 'osr-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${rt.runtime.http().url()!}/api/v1/mcp`), { requestInit: { headers: { 'x-api-key': String(key.key) } } }));
    t.teardown(() => client.close());
    const tool = await client.callTool({ name: 'query_records', arguments: { object: 'sys_record_history', limit: 50 } });
    t.equal(tool.isError, true, 'MCP query_records: a tool error');
    t.notOk(leaks({ body: tool.content }), 'MCP query_records: no value leaks');
    const described = await client.callTool({ name: 'describe_object', arguments: { object: 'sys_record_history' } });
    t.equal(described.isError, true, 'MCP describe_object: not offered to the member');
  });
});
