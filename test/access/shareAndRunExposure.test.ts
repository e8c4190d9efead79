import t, { type Test } from 'tap';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { eachBackend, signIn } from '../auth/authHarness.ts';
import { addUser, sendAs, type Reply } from './accessWorld.ts';

/**
 * Record shares (which record is shared with whom) and flow runs (the record, input and step
 * outputs of each run) are admin-only on the generic data paths: a permission set granting read on
 * sys_record_share or sys_flow_run gives a member nothing, so it cannot list the shares or runs of
 * records it cannot see. Members read a record's shares through /data/:object/:id/shares and their
 * own runs through /flows/:flow/runs/:runId. Both drivers.
 */

type Must = (reply: Promise<Reply>, status?: number) => Promise<Record<string, unknown>>;

function helpers(t: Test, rt: Parameters<typeof sendAs>[0]) {
  const as = (user: { token: string }, method: string, url: string, payload?: unknown): Promise<Reply> => sendAs(rt, user.token, method, url, payload);
  const must: Must = async (reply, status = 201) => {
    const res = await reply;
    t.equal(res.status, status, `answered ${res.status}: ${JSON.stringify(res.body).slice(0, 200)}`);
    return res.body as Record<string, unknown>;
  };
  /** Every generic read path refuses the member with 403 naming `<object>:read`, and nothing matching `secret` shows. */
  const refusedEverywhere = async (user: { token: string }, object: string, id: string, secret: RegExp) => {
    const leaks = (body: unknown) => secret.test(typeof body === 'string' ? body : JSON.stringify(body));
    const refused = (res: Reply, what: string) => {
      t.equal(res.status, 403, `${what}: 403`);
      t.equal(res.body?.error?.code, 'PERMISSION_DENIED', `${what}: PERMISSION_DENIED`);
      t.equal(res.body?.error?.details?.permission, `${object}:read`, `${what}: names ${object}:read`);
      t.notOk(leaks(res.body), `${what}: nothing leaks`);
    };
    refused(await as(user, 'GET', `/api/v1/data/${object}`), 'list');
    refused(await as(user, 'GET', `/api/v1/data/${object}/${id}`), 'get by id');
    refused(await as(user, 'POST', `/api/v1/data/${object}/query`, { where: { id: { $eq: id } } }), 'query');
    refused(await as(user, 'POST', `/api/v1/data/${object}/query`, { aggregations: [{ function: 'count', alias: 'n' }] }), 'count aggregation');
    refused(await as(user, 'POST', `/api/v1/data/${object}/export`, { format: 'json' }), 'export');
    refused(await as(user, 'POST', '/api/v1/reports', { name: 'Probe', query: { object, fields: ['id'] } }), 'a report');
    // MCP with the member's key: a tool error, nothing leaks.
    const key = await must(as(user, 'POST', '/api/v1/keys', { name: `${object}-mcp` }));
    const client = new Client({ name: 'osr-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${rt.runtime.http().url()!}/api/v1/mcp`), { requestInit: { headers: { 'x-api-key': String(key.key) } } }));
    t.teardown(() => client.close());
    const tool = await client.callTool({ name: 'query_records', arguments: { object, limit: 50 } });
    t.equal(tool.isError, true, 'MCP query_records: a tool error');
    t.notOk(leaks(tool.content), 'MCP query_records: nothing leaks');
  };
  return { as, must, refusedEverywhere };
}

t.test('a permission set granting sys_record_share does not show a member the shares of records it cannot see', async (t) => {
  await eachBackend(t, ['shareexp'], async (t, site) => {
    const rt = await site.boot({
      config: {
        apps: ['test/rest/fixtures/records'],
        server: { listen: true, port: 0, host: '127.0.0.1' },
        plugins: { email: { enabled: false }, mcp: { enabled: true } },
      },
    });
    const admin = await signIn(rt);
    const { as, must, refusedEverywhere } = helpers(t, rt);
    const m1 = await addUser(rt, admin.token, 'shareOwner');
    const m2 = await addUser(rt, admin.token, 'shareProbe');
    const m3 = await addUser(rt, admin.token, 'shareRecipient');
    const reader = await must(as(admin, 'POST', '/api/v1/data/sys_permission_set', { name: 'share_reader', objects: { sys_record_share: { read: true, viewAll: true } } }));
    await must(as(admin, 'POST', '/api/v1/data/sys_user_permission_set', { user_id: m2.id, permission_set: reader.id }));

    // m1 shares a private memo with m3; m2 cannot see the memo.
    const memo = await must(as(m1, 'POST', '/api/v1/data/memo', { title: 'PRIVATE-MEMO' }));
    const share = await must(as(m1, 'POST', `/api/v1/data/memo/${String(memo.id)}/shares`, { recipient_type: 'user', recipient_id: m3.id }));
    t.equal((await as(m2, 'GET', `/api/v1/data/memo/${String(memo.id)}`)).status, 404, 'm2 cannot read the memo');
    t.equal((await as(m2, 'GET', `/api/v1/data/memo/${String(memo.id)}/shares`)).status, 404, 'nor its shares on the share route');

    // The sanctioned paths still answer: the owner lists the memo's shares, admins read them through /data.
    const own = await must(as(m1, 'GET', `/api/v1/data/memo/${String(memo.id)}/shares`), 200);
    t.same((own.items as Array<Record<string, unknown>>).map((s) => s.recipient_id), [m3.id], 'the owner reads the share on the share route');
    const adminList = await must(as(admin, 'GET', '/api/v1/data/sys_record_share'), 200);
    t.equal(adminList.total, 1, 'admins read the shares through /data');

    const secret = new RegExp(`${String(memo.id)}|${m3.id}|PRIVATE-MEMO`);
    await refusedEverywhere(m2, 'sys_record_share', String(share.id), secret);
  });
});

t.test('a permission set granting sys_flow_run does not show a member the runs of other users', async (t) => {
  await eachBackend(t, ['runexp'], async (t, site) => {
    const rt = await site.boot({
      config: {
        apps: ['test/flows/fixtures/ops'],
        server: { listen: true, port: 0, host: '127.0.0.1' },
        plugins: { email: { enabled: false }, mcp: { enabled: true }, jobs: { pollMs: 50 } },
      },
    });
    const admin = await signIn(rt);
    const { as, must, refusedEverywhere } = helpers(t, rt);
    const ann = await addUser(rt, admin.token, 'runOwner');
    const bob = await addUser(rt, admin.token, 'runProbe');
    const reader = await must(as(admin, 'POST', '/api/v1/data/sys_permission_set', { name: 'run_reader', objects: { sys_flow_run: { read: true, viewAll: true } } }));
    await must(as(admin, 'POST', '/api/v1/data/sys_user_permission_set', { user_id: bob.id, permission_set: reader.id }));

    const task = await must(as(ann, 'POST', '/api/v1/data/task', { title: 'PRIVATE-TASK' }));
    t.equal((await as(bob, 'GET', `/api/v1/data/task/${String(task.id)}`)).status, 404, 'bob cannot read the task');
    const started = await must(as(ann, 'POST', '/api/v1/flows/touch_task/start', { task_id: task.id }), 202);
    const runId = String(started.runId);
    t.equal((await as(ann, 'GET', `/api/v1/flows/touch_task/runs/${runId}`)).status, 200, 'the starter reads its run');
    t.equal((await as(bob, 'GET', `/api/v1/flows/touch_task/runs/${runId}`)).status, 404, 'bob does not, on the run route');
    const adminList = await must(as(admin, 'GET', '/api/v1/data/sys_flow_run'), 200);
    t.equal(adminList.total, 1, 'admins read the runs through /data');

    await refusedEverywhere(bob, 'sys_flow_run', runId, new RegExp(`${String(task.id)}|PRIVATE-TASK`));
  });
});
