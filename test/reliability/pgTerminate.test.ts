/**
 * PostgreSQL connections terminated under load (pg_terminate_backend on the runtime's own
 * connections, found by application_name): requests in the outage fail with 503
 * SERVICE_UNAVAILABLE in the envelope, the process survives, requests succeed once the killing
 * stops, and no lead conversion (four records in one transaction) is left half-written.
 */
import t from 'tap';
import { databaseCases } from '../harness/databases.ts';
import { dropSchema, environmentFor, POSTGRES_URL, requirePostgres, responseProblems, sleep, withPostgres, type Reply } from './reliabilityHarness.ts';
import { runtimeFiles, startRuntimeProcess, type RuntimeProcess } from './spawnRuntime.ts';

const LEADS = 60;
const IN_OUTAGE = 40;

const postgres = (await databaseCases()).find((c) => c.name === 'postgres')!;

/** Every lead either fully converted (account, contact, links) or untouched; lists what is not. */
async function halfWritten(schema: string, tag: string): Promise<string[]> {
  return withPostgres(async (client) => {
    await client.query(`set search_path to "${schema}"`);
    const leads = (await client.query(`select id, company, email, status, converted_account, converted_contact from lead where company like $1`, [`${tag}%`])).rows;
    const problems: string[] = [];
    for (const lead of leads) {
      const accounts = (await client.query('select id from account where name = $1', [lead.company])).rows;
      const contacts = (await client.query('select id, account from contact where email = $1', [lead.email])).rows;
      if (lead.status === 'converted') {
        const ok = accounts.length === 1 && contacts.length === 1 && lead.converted_account === accounts[0].id
          && lead.converted_contact === contacts[0].id && contacts[0].account === accounts[0].id;
        if (!ok) problems.push(`${lead.company}: converted, but ${accounts.length} account(s), ${contacts.length} contact(s)`);
      } else if (accounts.length > 0 || contacts.length > 0 || lead.converted_account !== null) {
        problems.push(`${lead.company}: not converted, but ${accounts.length} account(s) and ${contacts.length} contact(s) exist`);
      }
    }
    if (leads.length !== LEADS) problems.push(`${leads.length} leads instead of ${LEADS}`);
    return problems;
  });
}

/** The start of a crash report: the error and where it was emitted, without the dumped objects. */
function crashExcerpt(output: string): string {
  const at = output.search(/Unhandled|throw er|Error:|error:/);
  return output.slice(Math.max(0, at), Math.max(0, at) + 1500);
}

t.test('connections terminated under load', { skip: postgres.skip }, async (t) => {
  await requirePostgres(t);
  const env = environmentFor('term');
  const applicationName = `osr-${env.id}`;
  t.teardown(() => dropSchema(env.schema));
  const files = await runtimeFiles(t, {
    apps: [new URL('../../metadata/apps/crm', import.meta.url).pathname],
    plugins: { crm: { enabled: true } },
    environments: [{ id: env.id }],
    database: { url: `${POSTGRES_URL}?application_name=${applicationName}` },
  });
  const rt: RuntimeProcess = await startRuntimeProcess(t, files);
  const tag = `Term ${process.pid} `;
  const created: Reply[] = [];
  for (let i = 0; i < LEADS; i++) {
    created.push(await rt.send('POST', '/api/v1/data/lead', { last_name: `L${i}`, company: `${tag}${i}`, email: `term-${process.pid}-${i}@example.com` }));
  }
  t.same(created.map((r) => r.status), Array(LEADS).fill(201), 'leads created');
  const leads = created.map((r) => String(r.body.id));

  // The outage: the runtime's connections are killed every few milliseconds while 8 clients convert leads and read.
  let killing = true;
  let killed = 0;
  const killer = withPostgres(async (client) => {
    while (killing) {
      const r = await client.query('select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1 and pid <> pg_backend_pid()', [applicationName]);
      killed += r.rowCount ?? 0;
      await sleep(10);
    }
  });
  const during: Reply[] = [];
  const socketErrors: string[] = [];
  let next = 0;
  await Promise.all(Array.from({ length: 8 }, async (_, worker) => {
    while (next < IN_OUTAGE && rt.isRunning()) {
      const id = leads[next++]!;
      try {
        during.push(await rt.send('POST', `/api/v1/data/lead/${id}/convert`, {}));
        if (worker % 2 === 0) during.push(await rt.send('GET', '/api/v1/data/lead?limit=5'));
      } catch (error) {
        socketErrors.push((error as Error).message);
      }
    }
  }));
  killing = false;
  await killer;

  t.ok(rt.isRunning(), rt.isRunning() ? 'the runtime survives its connections being terminated' : `the runtime died when its connections were terminated:\n${crashExcerpt(rt.output())}`);
  if (!rt.isRunning()) return;
  t.same(socketErrors, [], 'every request got an HTTP answer');
  t.ok(killed > 0, `connections were terminated (${killed})`);
  const unavailable = during.filter((r) => r.status === 503);
  t.ok(unavailable.length > 0, `some requests hit the outage (${unavailable.length} of ${during.length})`);
  const wrong = during.filter((r) => r.status >= 300 && (r.status !== 503 || r.body?.error?.code !== 'SERVICE_UNAVAILABLE'));
  t.same(wrong.map((r) => `${r.status} ${r.text.slice(0, 200)}`), [], 'every failure in the outage is 503 SERVICE_UNAVAILABLE');
  t.same(during.flatMap(responseProblems).filter((p) => p !== 'status 503'), [], 'no leak and always the envelope');
  t.match(unavailable[0]?.body, { error: { code: 'SERVICE_UNAVAILABLE', details: { service: 'The database' } } }, 'the 503 names what is unavailable');

  // After the outage: reads and writes succeed again without a restart.
  const reads = await Promise.all(Array.from({ length: 10 }, () => rt.send('GET', '/api/v1/data/lead?limit=5')));
  t.same(reads.map((r) => r.status), Array(10).fill(200), 'reads succeed after reconnecting');
  const after: number[] = [];
  for (const id of leads.slice(IN_OUTAGE)) after.push((await rt.send('POST', `/api/v1/data/lead/${id}/convert`, {})).status);
  t.same(after, Array(LEADS - IN_OUTAGE).fill(200), 'conversions after the outage succeed');
  t.same(await halfWritten(env.schema, tag), [], 'every conversion is whole or absent');

  // Converting again what failed: done once, or refused as already converted; never duplicated.
  const retried: string[] = [];
  for (const id of leads.slice(0, IN_OUTAGE)) {
    const r = await rt.send('POST', `/api/v1/data/lead/${id}/convert`, {});
    if (r.status !== 200 && !(r.status === 409 && r.body.error.code === 'CONFLICT')) retried.push(`${id}: ${r.status} ${r.text.slice(0, 200)}`);
  }
  t.same(retried, [], 'a retried conversion succeeds, or is refused as already done');
  t.same(await halfWritten(env.schema, tag), [], 'still whole after the retries');
  const converted = await withPostgres(async (client) => (await client.query(`select count(*)::int as n from "${env.schema}".lead where status = 'converted' and company like $1`, [`${tag}%`])).rows[0].n as number);
  t.equal(converted, LEADS, 'every lead is converted exactly once in the end');
});
