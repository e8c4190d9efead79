/** Flows over HTTP on both drivers: start, branch and wait, cancel, input errors, caller security, run visibility, record flows, the http allow-list, actions and discovery. */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import type { DataContext, DataEngine } from '../../capabilities/dataEngine.ts';
import type { FlowsRunner } from '../../capabilities/flowsRunner.ts';
import type { JobsQueue } from '../../capabilities/jobsQueue.ts';
import { addUser, sendAs } from '../access/accessWorld.ts';
import { eachBackend, signIn } from '../auth/authHarness.ts';
import { openTransaction } from '../harness/rememberedReads.ts';

const OPS = 'test/flows/fixtures/ops';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A local HTTP server that records what it receives and answers JSON. */
async function echoServer(t: Test) {
  const seen: Array<{ url: string; method: string; body: string; header: string | undefined }> = [];
  const server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      seen.push({ url: req.url ?? '', method: req.method ?? '', body, header: req.headers['x-flow'] as string | undefined });
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ got: body ? JSON.parse(body) : null }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { port: (server.address() as AddressInfo).port, seen };
}

t.test('flows over HTTP', async (t) => {
  const echo = await echoServer(t);
  await eachBackend(t, ['flows'], async (t, site) => {
    const rt = await site.boot({ config: { apps: [OPS], plugins: { jobs: { pollMs: 50 }, flows: { http: { allow: [`http://127.0.0.1:${echo.port}/ok/`] } } } } });
    const admin = await signIn(rt);
    const ann = await addUser(rt, admin.token, 'ann');
    const bob = await addUser(rt, admin.token, 'bob');
    const as = (user: { token: string }, method: string, url: string, payload?: unknown) => sendAs(rt, user.token, method, url, payload);
    const runOf = (user: { token: string }, flow: string, id: string) => as(user, 'GET', `/api/v1/flows/${flow}/runs/${id}`);
    /** Polls a run until it reaches one of the statuses (at most ~15 s). */
    const until = async (user: { token: string }, flow: string, id: string, statuses: string[]) => {
      for (let i = 0; i < 300; i++) {
        const res = await runOf(user, flow, id);
        if (statuses.includes(res.body?.status)) return res.body;
        await sleep(50);
      }
      throw new Error(`run ${id} of ${flow} never reached ${statuses.join('/')}: ${JSON.stringify((await runOf(user, flow, id)).body)}`);
    };
    const task = async (user: { token: string }, title: string, extra: Record<string, unknown> = {}) => {
      const res = await as(user, 'POST', '/api/v1/data/task', { title, ...extra });
      if (res.status !== 201) throw new Error(JSON.stringify(res.body));
      return res.body as Record<string, unknown>;
    };

    await t.test('a run with a branch and a wait completes with each step\'s output, as the caller', async (t) => {
      const mine = await task(ann, 'Printer');
      const started = await as(ann, 'POST', '/api/v1/flows/follow_up/start', { task_id: mine.id });
      t.equal(started.status, 202);
      t.equal(started.body.status, 'running');
      t.type(started.body.runId, 'string');
      const run = await until(ann, 'follow_up', started.body.runId, ['completed', 'failed']);
      t.equal(run.status, 'completed', JSON.stringify(run));
      t.equal(run.flow, 'follow_up');
      t.same(run.input, { task_id: mine.id });
      t.same(run.steps.map((s: { id: string; status: string }) => [s.id, s.status]), [['load', 'completed'], ['check', 'completed'], ['pause', 'completed'], ['mark', 'completed']]);
      t.equal(run.steps[0].output.title, 'Printer');
      t.same(run.steps[1].output, { branch: 'then' });
      t.ok(Date.parse(run.steps[2].output.until) >= Date.parse(run.startedAt) + 1000, 'the wait lasted its second');
      t.same([run.steps[3].output.status, run.steps[3].output.effort], ['done', 1]);
      t.equal(run.steps.every((s: { error: unknown }) => s.error === null), true);
      t.ok(Date.parse(run.endedAt) >= Date.parse(run.startedAt) + 1000);
      const after = (await as(ann, 'GET', `/api/v1/data/task/${mine.id}`)).body;
      t.same([after.status, after.updated_by, after.version], ['done', ann.id, 2], 'written as the caller, version bumped');
    });

    await t.test('the else branch runs when the condition does not hold', async (t) => {
      const done = await task(ann, 'Finished', { status: 'done' });
      const started = await as(ann, 'POST', '/api/v1/flows/follow_up/start', { task_id: done.id });
      const run = await until(ann, 'follow_up', started.body.runId, ['completed', 'failed']);
      t.same(run.steps.map((s: { id: string }) => s.id), ['load', 'check', 'noop']);
      t.same(run.steps[1].output, { branch: 'else' });
      t.equal(run.steps[2].output.count >= 1, true);
    });

    await t.test('bad input is 400 VALIDATION_ERROR naming each field; nothing runs', async (t) => {
      const missing = await as(ann, 'POST', '/api/v1/flows/follow_up/start', {});
      t.equal(missing.status, 400);
      t.equal(missing.body.error.code, 'VALIDATION_ERROR');
      t.match(JSON.stringify(missing.body.error), /task_id/);
      const bad = await as(ann, 'POST', '/api/v1/flows/follow_up/start', { task_id: 'x', pause: 'soon', bogus: 1 });
      t.equal(bad.status, 400);
      t.match(JSON.stringify(bad.body.error), /pause/);
      t.match(JSON.stringify(bad.body.error), /bogus/);
      const runs = await site.query(site.ids[0]!, 'select count(*) as n from sys_flow_run where cast(input as text) like ?', ['%soon%']);
      t.equal(Number(runs[0]!.n), 0);
    });

    await t.test('cancel stops a waiting run: its later steps never run', async (t) => {
      const started = await as(ann, 'POST', '/api/v1/flows/long_wait/start', { tag: 'cancel-me' });
      t.equal(started.status, 202);
      const waiting = await until(ann, 'long_wait', started.body.runId, ['waiting']);
      t.same(waiting.steps.map((s: { id: string; status: string }) => [s.id, s.status]), [['pause', 'waiting']]);
      const other = await as(bob, 'POST', `/api/v1/flows/long_wait/runs/${started.body.runId}/cancel`);
      t.equal(other.status, 404, 'another user cannot cancel it');
      const cancelled = await as(ann, 'POST', `/api/v1/flows/long_wait/runs/${started.body.runId}/cancel`);
      t.equal(cancelled.status, 200);
      t.equal(cancelled.body.status, 'cancelled');
      t.type(cancelled.body.endedAt, 'string');
      const again = await as(ann, 'POST', `/api/v1/flows/long_wait/runs/${started.body.runId}/cancel`);
      t.equal(again.status, 409);
      t.equal(again.body.error.code, 'FLOW_RUN_FINISHED');
      const notes = (await as(admin, 'GET', `/api/v1/data/note?where=${encodeURIComponent(JSON.stringify({ text: 'cancel-me' }))}`)).body;
      t.equal(notes.items.length, 0);
      const job = await site.query(site.ids[0]!, "select count(*) as n from sys_job where name = 'flows.run' and state in ('waiting', 'delayed')");
      t.equal(Number(job[0]!.n), 0, 'the delayed job is removed');
    });

    await t.test('a caller-run flow cannot read or write what the caller cannot', async (t) => {
      const anns = await task(ann, 'Ann private');
      await task(bob, 'Bob own');
      const started = await as(bob, 'POST', '/api/v1/flows/touch_task/start', { task_id: anns.id });
      const run = await until(bob, 'touch_task', started.body.runId, ['completed', 'failed']);
      t.equal(run.status, 'failed');
      t.equal(run.steps[0].status, 'failed');
      t.equal(run.steps[0].error.code, 'NOT_FOUND');
      t.notMatch(JSON.stringify(run), /Ann private/);
      const after = (await as(ann, 'GET', `/api/v1/data/task/${anns.id}`)).body;
      t.same([after.effort ?? null, after.version], [null, 1], "Ann's task is unchanged");
      const listed = await as(bob, 'POST', '/api/v1/flows/list_tasks/start', {});
      const list = await until(bob, 'list_tasks', listed.body.runId, ['completed', 'failed']);
      t.equal(list.status, 'completed');
      const titles = list.steps[0].output.records.map((r: { title: string }) => r.title);
      t.same(titles, ['Bob own'], 'the query sees only what Bob may read');
    });

    await t.test('a run is read by its starter and admins; anyone else gets 404', async (t) => {
      const mine = await task(ann, 'Visible');
      const started = await as(ann, 'POST', '/api/v1/flows/touch_task/start', { task_id: mine.id });
      await until(ann, 'touch_task', started.body.runId, ['completed', 'failed']);
      const byBob = await runOf(bob, 'touch_task', started.body.runId);
      t.equal(byBob.status, 404);
      t.equal(byBob.body.error.code, 'NOT_FOUND');
      t.notMatch(JSON.stringify(byBob.body), /Visible|completed/);
      t.equal((await runOf(admin, 'touch_task', started.body.runId)).status, 200);
      t.equal((await runOf(ann, 'follow_up', started.body.runId)).status, 404, 'under another flow name it is not found');
      t.equal((await runOf(ann, 'touch_task', 'no-such-run')).status, 404);
      const viaData = await as(ann, 'GET', '/api/v1/data/sys_flow_run');
      t.equal(viaData.status, 403, 'runs are not read through /data by members');
      const write = await as(admin, 'POST', '/api/v1/data/sys_flow_run', { flow: 'x' });
      t.equal(write.status, 403);
      t.equal(write.body.error.code, 'SYSTEM_OBJECT_READ_ONLY');
    });

    await t.test('a record flow fires on insert when its condition holds, and not otherwise', async (t) => {
      const calm = await task(ann, 'calm printer');
      const urgent = await task(ann, 'urgent printer');
      let notes: Array<Record<string, unknown>> = [];
      for (let i = 0; i < 300 && notes.length === 0; i++) {
        notes = (await as(admin, 'GET', `/api/v1/data/note?where=${encodeURIComponent(JSON.stringify({ task_id: urgent.id }))}`)).body.items;
        if (notes.length === 0) await sleep(50);
      }
      t.equal(notes.length, 1);
      t.equal(notes[0]!.text, 'urgent: urgent printer');
      t.equal(notes[0]!.created_by, 'system', 'a system run writes as the system');
      let touched: Record<string, unknown> = {};
      for (let i = 0; i < 100; i++) {
        touched = (await as(admin, 'GET', `/api/v1/data/task/${urgent.id}`)).body;
        if (touched.effort === 1) break;
        await sleep(50);
      }
      t.same([touched.effort, touched.updated_by], [1, 'system']);
      const calmNotes = (await as(admin, 'GET', `/api/v1/data/note?where=${encodeURIComponent(JSON.stringify({ task_id: calm.id }))}`)).body.items;
      t.equal(calmNotes.length, 0, 'no run for a record the condition refuses');
      const runs = await site.query(site.ids[0]!, "select count(*) as n from sys_flow_run where flow = 'on_urgent'");
      t.equal(Number(runs[0]!.n), 1, 'one run: its own update (an update event it listens to) did not start it again');
      const run = (await site.query(site.ids[0]!, "select run_as, started_by, trigger from sys_flow_run where flow = 'on_urgent'"))[0]!;
      t.same([run.run_as, run.started_by, run.trigger], ['system', null, 'record']);
    });

    await t.test('a record run is queued once its write committed, and not at all when it rolled back', async (t) => {
      const engine = rt.runtime.kernel.service<DataEngine>('data.engine')!;
      const environmentId = site.ids[0]!;
      const system: DataContext = { environmentId, principal: null, system: true };
      const runJobs = async () => Number((await site.query(environmentId, "select count(*) as n from sys_job where name = 'flows.run'"))[0]!.n);
      const before = await runJobs();
      let id = '';
      const open = openTransaction(engine, system, async (tx) => {
        id = String((await tx.create('task', { title: 'urgent: held' }, system)).id);
      });
      await open.ready;
      // Several polls of the job worker (pollMs 50) while the write is open: a job queued now would find no run.
      await sleep(300);
      t.equal(await runJobs(), before, 'nothing is queued while the write is open');
      await open.commit();
      let notes: Array<Record<string, unknown>> = [];
      for (let i = 0; i < 300 && notes.length === 0; i++) {
        notes = (await as(admin, 'GET', `/api/v1/data/note?where=${encodeURIComponent(JSON.stringify({ task_id: id }))}`)).body.items;
        if (notes.length === 0) await sleep(50);
      }
      t.same(notes.map((n) => n.text), ['urgent: urgent: held'], 'the run ran once the write committed');
      const queued = await runJobs();
      t.equal(queued, before + 1, 'one job for the run');

      await t.rejects(engine.transaction(system, async (tx) => {
        await tx.create('task', { title: 'urgent: undone' }, system);
        throw new Error('undo');
      }), /undo/);
      await sleep(300);
      t.equal(await runJobs(), queued, 'a rolled-back write queues no job');
      t.equal(Number((await site.query(environmentId, "select count(*) as n from task where title = 'urgent: undone'"))[0]!.n), 0, 'the task is gone too');
    });

    await t.test('a schedule flow keeps a repeatable job on its cron pattern', async (t) => {
      const rows = await site.query(site.ids[0]!, "select repeat_key, repeat_pattern from sys_job where name = 'flows.schedule'");
      t.same(rows.map((r) => [r.repeat_key, r.repeat_pattern]), [['flow:nightly_count', '0 3 * * *']]);
    });

    await t.test('the schedule of a flow no longer declared removes itself when it fires', async (t) => {
      const queue = rt.runtime.kernel.service<JobsQueue>('jobs.queue')!;
      await queue.schedule('flows.schedule', 'flow:gone_flow', { every: 1000 }, { flow: 'gone_flow' }, { environmentId: site.ids[0]! });
      const pending = async (key: string) => (await site.query(site.ids[0]!, "select id from sys_job where name = 'flows.schedule' and repeat_key = ? and state in ('waiting', 'delayed')", [key])).length;
      t.equal(await pending('flow:gone_flow'), 1, 'scheduled');
      // Until its run ends: between the claim and the next occurrence being queued, nothing is pending.
      const live = async (key: string) => (await site.query(site.ids[0]!, "select id from sys_job where name = 'flows.schedule' and repeat_key = ? and state in ('waiting', 'delayed', 'active')", [key])).length;
      for (let i = 0; i < 200 && (await live('flow:gone_flow')) > 0; i++) await sleep(50);
      t.equal(await pending('flow:gone_flow'), 0, 'gone after its first occurrence');
      t.equal(await pending('flow:nightly_count'), 1, "a declared flow's schedule stays");
    });

    await t.test('the http step calls allowed URLs and refuses any other', async (t) => {
      const ok = await as(ann, 'POST', '/api/v1/flows/call_out/start', { url: `http://127.0.0.1:${echo.port}/ok/hook-${site.backend}` });
      const done = await until(ann, 'call_out', ok.body.runId, ['completed', 'failed']);
      t.equal(done.status, 'completed', JSON.stringify(done));
      t.same(done.steps[0].output.status, 200);
      t.same(done.steps[0].output.body, { got: { hello: 'world' } });
      const hit = echo.seen.find((s) => s.url === `/ok/hook-${site.backend}`);
      t.same([hit?.method, hit?.header], ['POST', 'call_out']);
      for (const url of [`http://127.0.0.1:${echo.port}/nope-${site.backend}`, `http://127.0.0.1:${echo.port}/okay-${site.backend}`, `http://localhost:${echo.port}/ok/x-${site.backend}`, `http://u:p@127.0.0.1:${echo.port}/ok/y-${site.backend}`]) {
        const refused = await as(ann, 'POST', '/api/v1/flows/call_out/start', { url });
        const run = await until(ann, 'call_out', refused.body.runId, ['completed', 'failed']);
        t.equal(run.status, 'failed', url);
        t.equal(run.steps[0].error.code, 'FLOW_HTTP_REFUSED', url);
      }
      t.equal(echo.seen.filter((s) => s.url.endsWith(site.backend) && !s.url.startsWith('/ok/')).length, 0, 'no refused URL was called');
    });

    await t.test('a system flow is started by admins through the route, and writes as the system', async (t) => {
      const mine = await task(ann, 'For the system');
      const denied = await as(ann, 'POST', '/api/v1/flows/sweep_notes/start', { task_id: mine.id });
      t.equal(denied.status, 403);
      t.equal(denied.body.error.code, 'PERMISSION_DENIED');
      const started = await as(admin, 'POST', '/api/v1/flows/sweep_notes/start', { task_id: mine.id });
      t.equal(started.status, 202);
      const run = await until(admin, 'sweep_notes', started.body.runId, ['completed', 'failed']);
      t.equal(run.status, 'completed');
      t.equal(run.runAs, 'system');
      const after = (await as(ann, 'GET', `/api/v1/data/task/${mine.id}`)).body;
      t.same([after.status, after.updated_by], ['done', 'system']);
    });

    await t.test('a system run started by a member through an action shows it no step output', async (t) => {
      const set = await as(admin, 'POST', '/api/v1/data/sys_permission_set', { name: 'sweepers', permissions: ['task:sweep'] });
      t.equal(set.status, 201);
      t.equal((await as(admin, 'POST', '/api/v1/data/sys_user_permission_set', { user_id: ann.id, permission_set: set.body.id })).status, 201);
      const bobs = await task(bob, 'Bob secret title');
      const res = await as(ann, 'POST', '/api/v1/actions/mark_done', { task_id: bobs.id });
      t.equal(res.status, 200);
      const run = await until(ann, 'sweep_notes', res.body.result.runId, ['completed', 'failed']);
      t.equal(run.status, 'completed');
      t.same(run.steps.map((s: { id: string; output: unknown }) => [s.id, s.output]), [['mark', null]]);
      t.notMatch(JSON.stringify(run), /Bob secret title/);
      const full = (await runOf(admin, 'sweep_notes', res.body.result.runId)).body;
      t.equal(full.steps[0].output.title, 'Bob secret title', 'admins see the outputs');
    });

    await t.test('a wait until an instant and a notify step', async (t) => {
      const res = await as(ann, 'POST', '/api/v1/flows/remind/start', { text: `ping ${site.backend}` });
      const run = await until(ann, 'remind', res.body.runId, ['completed', 'failed']);
      t.equal(run.status, 'completed', JSON.stringify(run));
      t.equal(run.steps[0].status, 'completed');
      t.same(run.steps[1].output.results.map((r: { channel: string; status: string }) => [r.channel, r.status]), [['in_app', 'sent']]);
      const inbox = (await as(ann, 'GET', '/api/v1/notifications')).body;
      t.ok(JSON.stringify(inbox).includes(`ping ${site.backend}`), 'the notification is in the caller\'s inbox');
    });

    await t.test('an action of run.type flow starts the flow and answers its run', async (t) => {
      const mine = await task(ann, 'Via action');
      const res = await as(ann, 'POST', '/api/v1/actions/start_follow_up', { task_id: mine.id });
      t.equal(res.status, 200);
      t.equal(res.body.result.status, 'running');
      const run = await until(ann, 'follow_up', res.body.result.runId, ['completed', 'failed']);
      t.equal(run.status, 'completed');
      t.equal(run.trigger, 'action');
    });

    await t.test('flows that their own trigger starts are not started through the route; unknown flows are 404', async (t) => {
      const record = await as(admin, 'POST', '/api/v1/flows/on_urgent/start', {});
      t.equal(record.status, 409);
      t.equal(record.body.error.code, 'FLOW_NOT_STARTABLE');
      const unknown = await as(ann, 'POST', '/api/v1/flows/no_such_flow/start', {});
      t.equal(unknown.status, 404);
      const anonymous = await rt.inject({ method: 'POST', url: '/api/v1/flows/follow_up/start', payload: { task_id: 'x' } });
      t.equal(anonymous.statusCode, 401);
    });

    await t.test('flows.runner starts api and time-relative flows without a principal, once per idempotency key', async (t) => {
      const runner = rt.runtime.kernel.service<FlowsRunner>('flows.runner')!;
      const environmentId = site.ids[0]!;
      const first = await runner.start('orders_in', { ref: 'A-1' }, { environmentId, principal: null, trigger: 'hook', idempotencyKey: 'delivery-1' });
      const again = await runner.start('orders_in', { ref: 'A-1' }, { environmentId, principal: null, trigger: 'hook', idempotencyKey: 'delivery-1' });
      t.equal(again.runId, first.runId, 'the same delivery starts nothing new');
      const bad = await runner.start('orders_in', { reff: 'x' }, { environmentId, principal: null, trigger: 'hook' }).then(() => null, (e: { code: string; details: { errors: Array<{ path: string }> } }) => e);
      t.equal(bad?.code, 'VALIDATION_ERROR');
      t.same(bad?.details.errors.map((e) => e.path).sort(), ['body/ref', 'body/reff']);
      const anonymous = await runner.start('follow_up', { task_id: 'x' }, { environmentId, principal: null, trigger: 'api' }).then(() => null, (e: { code: string }) => e);
      t.equal(anonymous?.code, 'UNAUTHENTICATED', 'a caller flow needs a principal');
      const due = await task(ann, 'Due today', { due_date: new Date().toISOString().slice(0, 10) });
      const relative = await runner.start('due_soon', {}, { environmentId, principal: null, trigger: 'timeRelative', record: due, idempotencyKey: `${due.id}:0` });
      for (const [flow, id] of [['orders_in', first.runId], ['due_soon', relative.runId]] as const) {
        let run = await runner.getRun(environmentId, id);
        for (let i = 0; i < 300 && run?.status !== 'completed' && run?.status !== 'failed'; i++) { await sleep(50); run = await runner.getRun(environmentId, id); }
        t.equal(run?.status, 'completed', `${flow}: ${JSON.stringify(run)}`);
        t.same([run?.trigger, run?.runAs, run?.startedBy], [flow === 'orders_in' ? 'hook' : 'timeRelative', 'system', null]);
      }
      const notes = (await as(admin, 'POST', '/api/v1/data/note/query', { where: { text: { $in: ['order A-1', 'due Due today'] } }, limit: 10 })).body.items;
      t.same(notes.map((n: { text: string }) => n.text).sort(), ['due Due today', 'order A-1'], 'each ran once');
      const meta = (await as(admin, 'GET', '/api/v1/meta/flow/orders_in')).body;
      t.match(JSON.stringify(meta), /POST \/api\/v1\/automation\/hooks\/orders_in\/orders/);
    });

    await t.test('finished runs are deleted past the retention window; unfinished ones are kept', async (t) => {
      const old = await as(ann, 'POST', '/api/v1/flows/list_tasks/start', {});
      await until(ann, 'list_tasks', old.body.runId, ['completed']);
      const waiting = await as(ann, 'POST', '/api/v1/flows/long_wait/start', { tag: 'kept' });
      await until(ann, 'long_wait', waiting.body.runId, ['waiting']);
      const longAgo = new Date(Date.now() - 100 * 86_400_000).toISOString();
      await site.query(site.ids[0]!, 'update sys_flow_run set ended_at = ? where id = ?', [longAgo, old.body.runId]);
      await site.query(site.ids[0]!, 'update sys_flow_run set created_at = ? where id = ?', [longAgo, waiting.body.runId]);
      const lifecycle = rt.runtime.kernel.service<{ run(o: { environmentId: string }): Promise<unknown> }>('lifecycle.retention')!;
      await lifecycle.run({ environmentId: site.ids[0]! });
      t.equal((await runOf(ann, 'list_tasks', old.body.runId)).status, 404, 'the old finished run is gone');
      t.equal((await runOf(ann, 'long_wait', waiting.body.runId)).body.status, 'waiting', 'the waiting run is kept');
      await as(ann, 'POST', `/api/v1/flows/long_wait/runs/${waiting.body.runId}/cancel`);
    });

    await t.test('flows are listed by the metadata API and documented in the OpenAPI document', async (t) => {
      const list = await as(ann, 'GET', '/api/v1/meta/flow');
      t.equal(list.status, 200);
      const names = (list.body.items ?? list.body).map((f: { name: string }) => f.name);
      t.ok(names.includes('follow_up') && names.includes('on_urgent'), JSON.stringify(names));
      const one = await as(ann, 'GET', '/api/v1/meta/flow/follow_up');
      t.equal(one.status, 200);
      t.match(JSON.stringify(one.body), /POST \/api\/v1\/flows\/follow_up\/start/);
      const doc = (await as(admin, 'GET', '/api/v1/openapi.json')).body;
      const start = doc.paths['/flows/follow_up/start'].post;
      const schema = start.requestBody.content['application/json'].schema;
      t.same(Object.keys(schema.properties).sort(), ['pause', 'task_id']);
      t.same(schema.required, ['task_id']);
      t.ok(start.responses['202']);
      t.ok(doc.paths['/flows/{flow}/runs/{runId}'].get);
      t.ok(doc.paths['/flows/{flow}/runs/{runId}/cancel'].post);
      t.notOk(doc.paths['/flows/on_urgent/start'], 'a record flow has no start route of its own');
    });
  });
});
