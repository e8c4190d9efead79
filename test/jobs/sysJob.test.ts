/** Jobs through /data as sys_job: admins read them, nobody writes them, the job's data never shows. */
import t from 'tap';
import type { JobsQueue } from '../../capabilities/jobsQueue.ts';
import { ERRORS } from '../../kernel/errors.ts';
import { bearer, eachBackend, signIn } from '../auth/authHarness.ts';
import { jobProbe } from './fixtures/jobProbe.ts';
import { waitFor } from './jobsHarness.ts';

const SECRET = 'HUNTER2-job-data-secret';

t.test('sys_job is read-only through /data, for admins', async (t) => {
  await eachBackend(t, ['main'], async (t, site) => {
    const rt = await site.boot({ plugins: [jobProbe], config: { plugins: { jobs: { pollMs: 50 } } } });
    const queue = rt.runtime.kernel.service<JobsQueue>('jobs.queue')!;
    const admin = await signIn(rt);
    const created = await rt.inject({ method: 'POST', url: '/api/v1/auth/admin/create-user', headers: bearer(admin.token), payload: { email: 'member@example.com', password: 'member-password-1', mustChangePassword: false } });
    t.equal(created.statusCode, 201);
    const member = await signIn(rt, 'member@example.com', 'member-password-1');

    const { id } = await queue.add('probe.fail', { message: 'upstream refused', password: SECRET }, { attempts: 2, backoff: 10 });
    t.ok(await waitFor(async () => (await queue.get(id))?.state === 'dead'));

    const list = await rt.inject({ url: '/api/v1/data/sys_job', headers: bearer(admin.token) });
    t.equal(list.statusCode, 200);
    const item = list.json().items.find((i: { id: string }) => i.id === id);
    t.match(item, { id, name: 'probe.fail', state: 'dead', attempts: 2, max_attempts: 2, last_error: 'upstream refused (attempt 2)' });
    t.type(item.run_at, 'string');
    t.type(item.finished_at, 'string');
    t.notOk(list.body.includes(SECRET), 'the job data is not in the list');
    const one = await rt.inject({ url: `/api/v1/data/sys_job/${id}`, headers: bearer(admin.token) });
    t.equal(one.statusCode, 200);
    t.equal(one.json().state, 'dead');
    t.notOk(one.body.includes(SECRET), 'nor in the record');
    const filtered = await rt.inject({ url: `/api/v1/data/sys_job?where=${encodeURIComponent(JSON.stringify({ state: 'dead' }))}`, headers: bearer(admin.token) });
    t.same(filtered.json().items.map((i: { id: string }) => i.id), [id], 'filters by state');

    const readOnly = { error: { code: 'SYSTEM_OBJECT_READ_ONLY', message: ERRORS.SYSTEM_OBJECT_READ_ONLY.message.replace('{object}', 'sys_job'), details: { object: 'sys_job' } } };
    for (const [method, url, payload] of [
      ['POST', '/api/v1/data/sys_job', { name: 'probe.effect', state: 'waiting', run_at: new Date().toISOString() }],
      ['PATCH', `/api/v1/data/sys_job/${id}`, { state: 'waiting' }],
      ['DELETE', `/api/v1/data/sys_job/${id}`, undefined],
    ] as const) {
      const res = await rt.inject({ method, url, headers: bearer(admin.token), ...(payload ? { payload } : {}) });
      t.equal(res.statusCode, 403, `${method} by an admin`);
      t.same(res.json(), readOnly);
    }
    t.equal((await queue.get(id))!.state, 'dead', 'unchanged');

    const byMember = await rt.inject({ url: '/api/v1/data/sys_job', headers: bearer(member.token) });
    t.equal(byMember.statusCode, 403, 'a member cannot list jobs');
    t.equal(byMember.json().error.code, 'PERMISSION_DENIED');
    const oneByMember = await rt.inject({ url: `/api/v1/data/sys_job/${id}`, headers: bearer(member.token) });
    t.equal(oneByMember.statusCode, 403, 'nor read one');
    t.notOk(oneByMember.body.includes('upstream refused'));
  });
});
