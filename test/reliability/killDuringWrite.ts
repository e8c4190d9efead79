/**
 * The process killed (SIGKILL) in the middle of a burst of writes — lead conversions (four records
 * each, one transaction) and lead creates (record plus autonumber sequence) — leaves nothing
 * half-written: after a restart every lead is converted whole or not at all, every autonumber is
 * covered by its sequence, and new writes work. The import variant (a killed import leaves no
 * partial batch) belongs with the import route.
 */
import Sqlite from 'better-sqlite3';
import { join } from 'node:path';
import type { Test } from 'tap';
import { dropSchema, environmentFor, POSTGRES_URL, withPostgres, type DriverName, type Reply } from './reliabilityHarness.ts';
import { runtimeFiles, startRuntimeProcess, type RuntimeProcess } from './spawnRuntime.ts';

const LEADS = 80;
const KILL_AFTER = 25;

/** Every record of a list, following nextCursor. */
async function all(rt: RuntimeProcess, path: string): Promise<Array<Record<string, unknown>>> {
  const items: Array<Record<string, unknown>> = [];
  let cursor: string | null = null;
  do {
    const r: Reply = await rt.send('GET', `${path}${path.includes('?') ? '&' : '?'}limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    if (r.status !== 200) throw new Error(`GET ${path} answered ${r.status}: ${r.text}`);
    items.push(...(r.body.items as Array<Record<string, unknown>>));
    cursor = r.body.nextCursor as string | null;
  } while (cursor);
  return items;
}

/** What is not whole among the leads of this run. */
async function halfWritten(rt: RuntimeProcess, tag: string): Promise<{ problems: string[]; converted: number; leads: number }> {
  const starts = (field: string, prefix = tag) => `where=${encodeURIComponent(JSON.stringify({ [field]: { $startsWith: prefix } }))}`;
  const leads = await all(rt, `/api/v1/data/lead?${starts('company')}`);
  const accounts = await all(rt, `/api/v1/data/account?${starts('name')}`);
  const contacts = await all(rt, `/api/v1/data/contact?${starts('email', tag.toLowerCase())}`);
  const deals = await all(rt, `/api/v1/data/opportunity?${starts('name')}`);
  const problems: string[] = [];
  let converted = 0;
  for (const lead of leads) {
    const own = accounts.filter((a) => a.name === lead.company);
    const people = contacts.filter((c) => c.email === lead.email);
    const opportunities = own.length === 1 ? deals.filter((d) => d.account === own[0]!.id) : [];
    const found = `${own.length} account(s), ${people.length} contact(s), ${opportunities.length} opportunity(ies)`;
    if (lead.status === 'converted') {
      converted++;
      const whole = own.length === 1 && people.length === 1 && opportunities.length === 1 && lead.converted_account === own[0]!.id
        && people[0]!.account === own[0]!.id && lead.converted_opportunity === opportunities[0]!.id;
      if (!whole) problems.push(`${String(lead.company)}: converted, with ${found}`);
    } else if (own.length > 0 || people.length > 0) {
      problems.push(`${String(lead.company)}: not converted, yet ${found}`);
    }
  }
  const orphans = deals.filter((d) => !accounts.some((a) => a.id === d.account));
  if (orphans.length > 0) problems.push(`${orphans.length} opportunity(ies) without their account`);
  return { problems, converted, leads: leads.length };
}

/** Autonumbers handed out never run ahead of the stored sequence, and never repeat. */
async function sequenceProblems(driver: DriverName, file: string, schema: string): Promise<string[]> {
  const sql = 'select (select max(lead_number_seq) from lead) as top, (select count(*) from lead) as n, (select count(distinct lead_number) from lead) as distinct_numbers, '
    + "(select value from osr_sequence where name = 'lead.lead_number') as sequence";
  const row = driver === 'sqlite'
    ? (() => {
      const db = new Sqlite(file, { readonly: true });
      try {
        return db.prepare(sql).get() as Record<string, number>;
      } finally {
        db.close();
      }
    })()
    : await withPostgres(async (client) => {
      await client.query(`set search_path to "${schema}"`);
      return (await client.query(sql)).rows[0] as Record<string, number>;
    });
  const problems: string[] = [];
  if (Number(row.top) > Number(row.sequence)) problems.push(`lead_number ${row.top} is past the sequence (${row.sequence})`);
  if (Number(row.n) !== Number(row.distinct_numbers)) problems.push(`${row.n} leads share ${row.distinct_numbers} lead numbers`);
  return problems;
}

/** The whole scenario on one driver (one test file per driver keeps each file near 20 s). */
export async function killDuringWrite(t: Test, driver: DriverName): Promise<void> {
  const env = environmentFor('kill');
  if (driver === 'postgres') t.teardown(() => dropSchema(env.schema));
  const files = await runtimeFiles(t, {
    apps: [new URL('../../metadata/apps/crm', import.meta.url).pathname],
    plugins: { crm: { enabled: true } },
    environments: [{ id: env.id }],
    ...(driver === 'postgres' ? { database: { url: POSTGRES_URL } } : {}),
  });
  const tag = `Kill${process.pid}${driver}`;
  let rt = await startRuntimeProcess(t, files);
  const created: number[] = [];
  const leads: string[] = [];
  await Promise.all(Array.from({ length: 10 }, async (_, worker) => {
    for (let i = worker; i < LEADS; i += 10) {
      const r = await rt.send('POST', '/api/v1/data/lead', { last_name: `L${i}`, company: `${tag} ${i}`, email: `${tag.toLowerCase()}-${i}@example.com` });
      created.push(r.status);
      if (r.status === 201) leads.push(String(r.body.id));
    }
  }));
  t.same([...new Set(created)], [201], `${LEADS} leads created`);

  // The burst: conversions from 12 clients and creates from 4, killed once some conversions have landed.
  let answered = 0;
  let killed = false;
  const fire = async (work: () => Promise<Reply>) => {
    try {
      const r = await work();
      if (r.status === 200) answered++;
    } catch {
      // Connections cut by the kill.
    }
    if (answered >= KILL_AFTER && !killed) {
      killed = true;
      await rt.kill('SIGKILL');
    }
  };
  let next = 0;
  const converters = Array.from({ length: 12 }, async () => {
    while (next < leads.length && !killed) {
      const id = leads[next++]!;
      await fire(() => rt.send('POST', `/api/v1/data/lead/${id}/convert`, { createOpportunity: true }));
    }
  });
  let extra = 0;
  const creators = Array.from({ length: 4 }, async () => {
    while (!killed && rt.isRunning()) {
      const n = extra++;
      await fire(() => rt.send('POST', '/api/v1/data/lead', { last_name: `Extra${n}`, company: `Extra ${tag} ${n}` }));
    }
  });
  await Promise.all([...converters, ...creators]);
  t.equal(await rt.exited, 'SIGKILL', 'the runtime was killed in the middle of the burst');

  rt = await startRuntimeProcess(t, files);
  const state = await halfWritten(rt, tag);
  t.same(state.problems, [], 'every lead is converted whole or not at all');
  t.equal(state.leads, LEADS, 'every lead is still there');
  t.ok(state.converted >= KILL_AFTER && state.converted < LEADS, `the kill came mid-burst (${state.converted} of ${LEADS} converted)`);
  t.same(await sequenceProblems(driver, join(files.dir, `${env.id}.db`), env.schema), [], 'autonumbers and their sequence agree');

  const after = await rt.send('POST', '/api/v1/data/lead', { last_name: 'After', company: `${tag} after`, email: `${tag.toLowerCase()}-after@example.com` });
  t.equal(after.status, 201, 'a new lead is created after the restart');
  const convert = await rt.send('POST', `/api/v1/data/lead/${String(after.body.id)}/convert`, {});
  t.equal(convert.status, 200, 'and converted');
  await rt.kill('SIGTERM');

  if (driver === 'sqlite') {
    const db = new Sqlite(join(files.dir, `${env.id}.db`), { readonly: true });
    t.same(db.pragma('integrity_check'), [{ integrity_check: 'ok' }], 'the SQLite file passes its integrity check');
    db.close();
  }
}
