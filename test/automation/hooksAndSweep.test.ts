/** Signed inbound hooks start their flow once per delivery; the sweep starts time-relative flows once per record and offset. */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import type { Test } from 'tap';
import type { AutomationSweep } from '../../capabilities/automationSweep.ts';
import type { DataContext } from '../../capabilities/dataEngine.ts';
import type { FlowsRunner } from '../../capabilities/flowsRunner.ts';
import { signPayload } from '../../plugins/automation/verifySignature.ts';
import { onEachDriver, type Rest } from '../rest/restFixtures.ts';

const SECRET = 'orders-hook-secret-for-tests';
process.env.OSR_TEST_ORDERS_HOOK_SECRET = SECRET;
const APPS = ['metadata/apps/crm', 'test/automation/fixtures/hooks-app'];
const HOOK = '/api/v1/automation/hooks/order_received/orders';

function signed(body: string, at = Math.floor(Date.now() / 1000), secret = SECRET): Record<string, string> {
  return { 'content-type': 'application/json', 'x-osr-signature': `t=${at},v1=${signPayload(secret, at, body)}` };
}

async function subjects(rest: Rest, prefix: string): Promise<string[]> {
  const ctx: DataContext = { environmentId: rest.environments[0]!, principal: null, system: true };
  const page = await rest.engine().query('task', { where: { subject: { $startsWith: prefix } }, select: ['subject'], orderBy: 'subject', limit: 200 }, ctx, { total: false });
  return page.items.map((r) => String(r.subject));
}

async function settle(rest: Rest, runIds: string[]): Promise<void> {
  const runner = rest.rt.runtime.kernel.service<FlowsRunner>('flows.runner')!;
  const until = Date.now() + 15_000;
  for (const id of runIds) {
    for (;;) {
      const run = await runner.getRun(rest.environments[0]!, id);
      if (run && (run.status === 'completed' || run.status === 'failed' || run.status === 'cancelled')) break;
      if (Date.now() > until) throw new Error(`run ${id} did not finish: ${JSON.stringify(run)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

const options = { apps: APPS, config: { plugins: { crm: { enabled: true }, jobs: { pollMs: 20 } } } };

t.test('inbound hooks', (t) => onEachDriver(t, 'hooks', async (t: Test, rest) => {
  const body = JSON.stringify({ order: 'A-1' });
  const firstSigned = signed(body);
  const first = await rest.send('POST', HOOK, body, { ...firstSigned, 'x-osr-delivery': 'dlv-1' });
  t.equal(first.status, 202, 'a signed call is accepted');
  t.type(first.body.runId, 'string');
  await settle(rest, [first.body.runId]);
  t.same(await subjects(rest, 'order '), ['order A-1'], 'its flow ran once');

  // Signed anew a second apart: its signature differs from the first one's, so only the delivery id tells it is the same delivery.
  const firstAt = Number(/^t=(\d+),/.exec(firstSigned['x-osr-signature']!)![1]);
  const resigned = signed(body, firstAt - 1);
  t.not(resigned['x-osr-signature'], firstSigned['x-osr-signature'], 'a redelivery with a signature of its own');
  const again = await rest.send('POST', HOOK, body, { ...resigned, 'x-osr-delivery': 'dlv-1' });
  t.equal(again.status, 200, 'the same delivery again');
  t.same(again.body, { duplicate: true, runId: first.body.runId }, 'answers duplicate and the first run');

  // A captured request replayed within the signature's 300 s: its delivery id dropped or changed, it runs nothing.
  const replayHeaders = firstSigned;
  const replayed = await rest.send('POST', HOOK, body, replayHeaders);
  t.equal(replayed.status, 200, 'a replay without the delivery id');
  t.same(replayed.body, { duplicate: true, runId: first.body.runId }, 'is a duplicate of the first run');
  for (const id of ['dlv-1-changed', 'dlv-1-other']) {
    const renamed = await rest.send('POST', HOOK, body, { ...replayHeaders, 'x-osr-delivery': id });
    t.same({ status: renamed.status, body: renamed.body }, { status: 200, body: { duplicate: true, runId: first.body.runId } }, `a replay with another delivery id (${id}) too`);
  }
  const resent = JSON.stringify({ order: 'A-1' }, null, 1);
  const fresh = await rest.send('POST', HOOK, resent, { ...signed(resent), 'x-osr-delivery': 'dlv-1-changed' });
  t.equal(fresh.status, 202, 'a newly signed request may use a delivery id a replay carried: the replay claimed none');
  await settle(rest, [fresh.body.runId]);
  t.same(await subjects(rest, 'order '), ['order A-1', 'order A-1'], 'the replays ran nothing; the new request ran once');

  const other = JSON.stringify({ order: 'B-2' });
  const wrong = await rest.send('POST', HOOK, other, { ...signed(other, undefined, 'not-the-secret'), 'x-osr-delivery': 'dlv-2' });
  t.equal(wrong.status, 401, 'a wrong signature');
  t.equal(wrong.body.error.code, 'HOOK_SIGNATURE_INVALID');
  t.equal(wrong.body.error.details.reason, 'mismatch');
  const stale = await rest.send('POST', HOOK, other, { ...signed(other, Math.floor(Date.now() / 1000) - 301), 'x-osr-delivery': 'dlv-3' });
  t.equal(stale.status, 401, 'a stale timestamp');
  t.equal(stale.body.error.details.reason, 'stale');
  const unsigned = await rest.send('POST', HOOK, other, { 'content-type': 'application/json', 'x-osr-delivery': 'dlv-4' });
  t.equal(unsigned.status, 401, 'an unsigned call');
  t.equal(unsigned.body.error.details.reason, 'missing');
  const tampered = await rest.send('POST', HOOK, JSON.stringify({ order: 'C-3' }), { ...signed(other), 'x-osr-delivery': 'dlv-5' });
  t.equal(tampered.status, 401, 'a body other than the signed one');
  const otherHook = await rest.send('POST', '/api/v1/automation/hooks/order_received/payments', other, signed(other));
  t.equal(otherHook.status, 401, 'another hook id: the same 401');
  const noFlow = await rest.send('POST', '/api/v1/automation/hooks/due_reminder/orders', other, signed(other));
  t.equal(noFlow.status, 401, 'a flow that is not an api flow: the same 401');
  t.equal(noFlow.body.error.details.reason, 'missing');
  t.same(await subjects(rest, 'order '), ['order A-1', 'order A-1'], 'none of the refused calls ran anything');

  const bad = JSON.stringify({ order: 42 });
  const invalid = await rest.send('POST', HOOK, bad, { ...signed(bad), 'x-osr-delivery': 'dlv-6' });
  t.equal(invalid.status, 400, 'input refused by the flow declaration');
  t.equal(invalid.body.error.code, 'VALIDATION_ERROR');
  const fixed = JSON.stringify({ order: 'D-4' });
  const retried = await rest.send('POST', HOOK, fixed, { ...signed(fixed), 'x-osr-delivery': 'dlv-6' });
  t.equal(retried.status, 202, 'a refused delivery may come again, corrected');
  await settle(rest, [retried.body.runId]);
  t.same(await subjects(rest, 'order '), ['order A-1', 'order A-1', 'order D-4']);
}, options));

t.test('the time-relative sweep', (t) => onEachDriver(t, 'sweep', async (t: Test, rest) => {
  // Due on the 28th: reminded three days before (25th) and on the day (28th). Due on the 26th: on the 26th only (23rd is not swept).
  await rest.create('task', { subject: 'due 28', due_date: '2026-11-28' });
  await rest.create('task', { subject: 'due 26', due_date: '2026-11-26' });
  await rest.create('task', { subject: 'undated' });
  const sweep = rest.rt.runtime.kernel.service<AutomationSweep>('automation.sweep')!;
  const runner = rest.rt.runtime.kernel.service<FlowsRunner>('flows.runner')!;
  const runsOf = async () => {
    const ctx: DataContext = { environmentId: rest.environments[0]!, principal: null, system: true };
    return (await rest.engine().query('sys_flow_run', { select: ['id'], limit: 200 }, ctx, { total: false })).items.map((r) => String(r.id));
  };

  const day25 = await sweep.run({ date: '2026-11-25' });
  const slots = day25.environments[0]!.flows.find((f) => f.flow === 'due_reminder')!.slots;
  t.match(slots, [{ slot: 'offset:-3', from: '2026-11-28', matched: 1, started: 1, already: 0 }, { slot: 'offset:0', from: '2026-11-25', matched: 0, started: 0 }]);
  const day26 = await sweep.run({ date: '2026-11-26' });
  t.match(day26.environments[0]!.flows[0]!.slots, [{ slot: 'offset:-3', matched: 0 }, { slot: 'offset:0', matched: 1, started: 1 }]);
  const again = await sweep.run({ date: '2026-11-26' });
  t.match(again.environments[0]!.flows[0]!.slots, [{ slot: 'offset:-3', matched: 0 }, { slot: 'offset:0', matched: 1, started: 0, already: 1 }], 'the same day swept twice starts nothing more');
  await settle(rest, await runsOf());
  t.same(await subjects(rest, 'reminder '), ['reminder due 26', 'reminder due 28'], 'one start per record and offset');
  t.ok(runner.list().some((f) => f.name === 'due_reminder'));

  const bad = await sweep.run({ date: '2026-02-30' }).catch((error: { code: string }) => error);
  t.equal((bad as { code: string }).code, 'VALIDATION_ERROR', 'a date that is not a day');
}, options));

t.test('osr automation sweep', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'osr-sweep-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const config = join(dir, 'runtime.config.json');
  writeFileSync(config, JSON.stringify({ apps: APPS.map((a) => join(process.cwd(), a)), dataDir: dir, plugins: { crm: { enabled: true } } }));
  const run = promisify(execFile);
  const { stdout } = await run(process.execPath, ['bin/osr.js', 'automation', 'sweep', '--date', '2026-11-25', '--config', config, '--json'], { env: { ...process.env, LOG_LEVEL: 'error' } });
  const report = JSON.parse(stdout);
  t.equal(report.date, '2026-11-25');
  t.match(report.environments[0].flows, [{ flow: 'due_reminder', object: 'task', field: 'due_date' }]);
  const usage = await run(process.execPath, ['bin/osr.js', 'automation', '--config', config]).catch((error: { code: number; stderr: string }) => error);
  t.equal((usage as { code: number }).code, 2, 'osr automation without sweep is a usage error');
});
