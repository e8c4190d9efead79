/**
 * The cost of row-level security: list and get through the data engine for a member whose rows
 * come from a row policy, against an admin (no scope), same data, same page size.
 * Run: npx tsx bench/rlsCost.ts [iterations]. Writes bench/results/rls-<time>.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import type { Principal } from '../capabilities/authSession.ts';
import type { DataContext, DataEngine } from '../capabilities/dataEngine.ts';
import { startTestRuntime } from '../test/harness/startTestRuntime.ts';

const iterations = Number(process.argv[2] ?? 2000);
const rounds = 5;

const rt = await startTestRuntime({ config: { apps: ['test/access/fixtures/app'], environments: [{ id: 'bench' }] } });
const engine = rt.runtime.kernel.service<DataEngine>('data.engine')!;
const system: DataContext = { environmentId: 'bench', principal: null, system: true };
const principal = (userId: string, isAdmin: boolean): DataContext => ({
  environmentId: 'bench',
  principal: { kind: 'user', userId, environmentId: 'bench', isAdmin, positions: [], permissionSets: [], permissions: [] } satisfies Principal,
});

const position = await engine.create('sys_position', { name: 'eu_manager' }, system);
await engine.create('sys_user_position', { user_id: 'policy-user', position: position.id }, system);
let sample = '';
await engine.transaction(system, async (tx) => {
  for (let i = 0; i < 2000; i++) {
    const doc = await tx.create('doc', { title: `doc ${i}`, region: i % 10 === 0 ? 'US' : 'EU', owner_id: `owner-${i % 50}` }, system);
    if (i === 1) sample = String(doc.id);
  }
});

const admin = principal('admin-user', true);
const member = principal('policy-user', false);
const check = await engine.query('doc', { limit: 50 }, member);
if (check.items.length !== 50) throw new Error(`the policy user should see a full page, saw ${check.items.length}`);

async function measure(ctx: DataContext, op: 'list' | 'get'): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) {
    if (op === 'list') await engine.query('doc', { limit: 50, orderBy: 'title' }, ctx);
    else await engine.get('doc', sample, {}, ctx);
  }
  return iterations / (Number(process.hrtime.bigint() - start) / 1e9);
}

const results: Record<string, { admin: number; policy: number; ratio: number }> = {};
for (const op of ['list', 'get'] as const) {
  await measure(admin, op);
  await measure(member, op);
  const a: number[] = [];
  const m: number[] = [];
  // Alternate so drift and noise from other processes hit both sides alike; keep the best round.
  for (let r = 0; r < rounds; r++) {
    a.push(await measure(admin, op));
    m.push(await measure(member, op));
  }
  const best = { admin: Math.max(...a), policy: Math.max(...m) };
  results[op] = { ...best, ratio: best.policy / best.admin };
}
await rt.close();

const report = { scenario: 'rls-cost', iterations, rounds, at: new Date().toISOString(), results, budget: 'policy >= 0.85 x admin' };
mkdirSync(new URL('./results', import.meta.url), { recursive: true });
writeFileSync(new URL(`./results/rls-${report.at.replace(/[:.]/g, '-')}.json`, import.meta.url), JSON.stringify(report, null, 2));
for (const [op, r] of Object.entries(results)) {
  console.log(`${op}: admin ${r.admin.toFixed(0)} ops/s, policy user ${r.policy.toFixed(0)} ops/s, ratio ${(r.ratio * 100).toFixed(1)}% ${r.ratio >= 0.85 ? 'within' : 'OUTSIDE'} budget`);
}
