/**
 * Search and field-level security on both drivers, over HTTP: a member matches only on the fields
 * it may read (words, prefixes, scores), an edit by a member keeps the words of the fields it
 * cannot read, and a drifted index is repaired at the next start.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { ADMIN, bearer, SECRET, signIn } from '../auth/authHarness.ts';
import { bootSearch, drivers, dropSchema, idsOf, type DriverName, type SearchRuntime } from './searchFixtures.ts';

const GUARDED = 'test/search/fixtures/guarded';
const MEMBER = { email: 'member@example.com', password: 'member-password-0123' };

type Hit = { id: string; score: number; record: Record<string, unknown> };

/** Replace what the index holds for a record: its `secret` entry says `tampered`, the others are dropped. */
async function tamper(s: SearchRuntime, driver: DriverName, id: string, change: 'rewrite' | 'drop' | 'orphan'): Promise<void> {
  await s.database().withDatabase(s.environmentId, async (db) => {
    const k = db.knex;
    if (driver === 'sqlite') {
      if (change === 'rewrite') {
        await k.raw(`update osr_search_text set words = 'tampered' where rowid = (select id from osr_search_entry where object = 'case_file' and record_id = ? and field = 'secret')`, [id]);
      } else if (change === 'drop') {
        await k.raw(`delete from osr_search_text where rowid in (select id from osr_search_entry where object = 'case_file' and record_id = ?)`, [id]);
        await k.raw(`delete from osr_search_entry where object = 'case_file' and record_id = ?`, [id]);
      } else {
        const [row] = await k.raw(`insert into osr_search_entry (object, record_id, field) values ('case_file', ?, 'title') returning id`, [id]);
        await k.raw(`insert into osr_search_text (rowid, words) values (?, 'phantom')`, [row.id]);
      }
    } else if (change === 'rewrite') {
      await k.raw(`update osr_search_field set document = 'tampered'::tsvector where object = 'case_file' and record_id = ? and field = 'secret'`, [id]);
    } else if (change === 'drop') {
      await k.raw(`delete from osr_search_field where object = 'case_file' and record_id = ?`, [id]);
    } else {
      await k.raw(`insert into osr_search_field (object, record_id, field, document) values ('case_file', ?, 'title', 'phantom'::tsvector)`, [id]);
    }
  });
}

/**
 * SQLite, runtime closed: change the text FTS5 keeps for a record's title behind FTS5's back (its
 * shadow table, writable in unsafe mode only), so text and inverted index disagree.
 */
function corruptText(file: string, id: string): void {
  const db = new Database(file);
  try {
    db.unsafeMode(true);
    const row = db.prepare(`select id from osr_search_entry where object = 'case_file' and record_id = ? and field = 'title'`).get(id) as { id: number };
    db.prepare(`update osr_search_text_content set c0 = 'phantasm' where id = ?`).run(row.id);
  } finally {
    db.close();
  }
}

for (const driver of await drivers()) {
  await t.test(`${driver.name}: search matches a member only on the fields it may read`, { skip: driver.skip }, async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'osr-search-fls-'));
    const environment = `search-fls-${process.pid}`;
    t.teardown(async () => {
      rmSync(dataDir, { recursive: true, force: true });
      if (driver.name === 'postgres') await dropSchema(environment);
    });
    const boot = () => bootSearch(t, driver.name, {
      environment, dataDir, keep: true, apps: [GUARDED],
      config: { api: { requireAuth: true }, auth: { secret: SECRET, admin: ADMIN }, plugins: { email: { enabled: false } } },
    });

    let s = await boot();
    let adminToken = (await signIn(s.rt)).token;
    const created = await s.send('POST', '/api/v1/auth/admin/create-user', { ...MEMBER, name: 'member', mustChangePassword: false }, bearer(adminToken));
    t.equal(created.status, 201, 'the member is created');
    let memberToken = (await signIn(s.rt, MEMBER.email, MEMBER.password)).token;
    const as = (token: string) => ({
      send: (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown) => s.send(method, url, payload, bearer(token)),
      search: (q: string) => s.search({ q, object: 'case_file' }, bearer(token)),
    });
    const admin = () => as(adminToken);
    const member = () => as(memberToken);
    const create = async (record: Record<string, unknown>) => {
      const reply = await admin().send('POST', '/api/v1/data/case_file', record);
      t.equal(reply.status, 201, `created ${String(record.title)}`);
      return String(reply.body.id);
    };

    const set = await admin().send('POST', '/api/v1/data/sys_permission_set', { name: 'case_auditor', fields: { 'case_file.secret': { read: true, edit: true } } });
    t.equal(set.status, 201, 'a permission set names case_file.secret: the member may no longer read it');
    const report = await create({ title: 'Harbour report', notes: 'quarterly figures', secret: 'zanzibar codeword' });
    const read = await member().send('GET', `/api/v1/data/case_file/${report}`);
    t.same([read.status, 'secret' in read.body, read.body.title], [200, false, 'Harbour report'], 'the member reads the record without the field');
    const probe = await member().send('POST', '/api/v1/data/case_file/query', { select: ['id', 'secret'] });
    t.same([probe.status, probe.body.error?.code], [403, 'PERMISSION_DENIED'], 'and selecting the field is 403');

    await t.test('words and prefixes of a hidden field do not match for the member', async (t) => {
      for (const q of ['zanzibar', 'zan', 'zanz', 'zanzib', 'codeword', 'harbour zanzibar', 'harbour codew']) {
        const reply = await member().search(q);
        t.same([reply.status, idsOf(reply)], [200, []], `member '${q}': no match`);
      }
      for (const q of ['zanzibar', 'zan', 'zanz', 'codeword', 'harbour zanzibar', 'harbour codew']) {
        t.same(idsOf(await admin().search(q)), [report], `admin '${q}': the record`);
      }
      const visible = await member().search('harbour');
      t.same(idsOf(visible), [report], 'the member still finds it by a field it reads');
      t.notOk(JSON.stringify(visible.body).includes('zanzibar'), 'and the hit does not carry the hidden words');
    });

    await t.test('scores come from the fields the caller may read', async (t) => {
      const loud = await create({ title: 'Lantern', secret: 'lantern lantern lantern lantern' });
      const quiet = await create({ title: 'Lantern' });
      const forMember = (await member().search('lantern')).body.items as Hit[];
      t.same(forMember.map((h) => h.id), [loud, quiet].sort(), 'the member gets both, equal scores ordered by id');
      t.equal(forMember[0]!.score, forMember[1]!.score, `the hidden words add nothing to the member's score (${forMember.map((h) => h.score).join(', ')})`);
      const forAdmin = (await admin().search('lantern')).body.items as Hit[];
      t.same(forAdmin.map((h) => h.id), [loud, quiet], 'for the admin the hidden words count');
      t.ok(forAdmin[0]!.score > forAdmin[1]!.score, `admin scores ${forAdmin.map((h) => h.score).join(' > ')}`);
      const prefix = (await member().search('lante')).body.items as Hit[];
      t.equal(prefix[0]!.score, prefix[1]!.score, 'a prefix too');
    });

    await t.test("a member's edit of another field keeps the hidden words in the index", async (t) => {
      const patched = await member().send('PATCH', `/api/v1/data/case_file/${report}`, { notes: 'revised figures' });
      t.equal(patched.status, 200, 'the member edits notes');
      t.same(idsOf(await admin().search('zanzibar')), [report], 'the admin still finds the hidden word');
      t.same(idsOf(await admin().search('revised zanzibar')), [report], 'with the new words');
      t.same(idsOf(await admin().search('quarterly')), [], 'and without the replaced ones');
      t.same(idsOf(await member().search('revised')), [report], 'the member finds the new words');
      t.same(idsOf(await member().search('zanzibar')), [], 'but still not the hidden ones');
      t.equal((await member().send('PATCH', `/api/v1/data/case_file/${report}`, { notes: null })).status, 200, 'the member clears notes');
      t.same(idsOf(await admin().search('revised')), [], 'the words of the cleared field are gone');
      t.same(idsOf(await admin().search('zanzibar harbour')), [report], 'those of the others stay');
      t.equal((await member().send('PATCH', `/api/v1/data/case_file/${report}`, { notes: 'revised figures' })).status, 200, 'and writes it again');
      const own = await member().send('POST', '/api/v1/data/case_file', { title: 'Member memo' });
      t.equal(own.status, 201, 'a member creates a record');
      t.same(idsOf(await admin().search('memo')), [own.body.id], 'which is indexed');
    });

    const twin = idsOf(await admin().search('lantern'))[1]!;
    await t.test('a drifted index is found and repaired at the next start', async (t) => {
      const ghost = '01900000-0000-7000-8000-000000000000';
      await tamper(s, driver.name, report, 'rewrite');
      await tamper(s, driver.name, twin, 'drop');
      await tamper(s, driver.name, ghost, 'orphan');
      const memo = idsOf(await admin().search('memo'))[0]!;
      t.same(idsOf(await admin().search('tampered')), [report], 'the tampered entry is served before the restart');
      t.same(idsOf(await admin().search('zanzibar')), [], 'and the hidden words are lost');
      await s.rt.close();
      if (driver.name === 'sqlite') corruptText(join(dataDir, `${environment}.db`), memo);

      s = await boot();
      adminToken = (await signIn(s.rt)).token;
      memberToken = (await signIn(s.rt, MEMBER.email, MEMBER.password)).token;
      const lines = s.logs.map((l) => l.msg).filter((m) => m.startsWith('search:'));
      t.same(lines, [
        ...(driver.name === 'sqlite' ? ['search: the full-text index did not match its stored text and was rebuilt from it'] : []),
        driver.name === 'sqlite'
          ? 'search: repaired 4 drifted document(s) of case_file (2 stale, 1 missing, 1 orphaned)'
          : 'search: repaired 3 drifted document(s) of case_file (1 stale, 1 missing, 1 orphaned)',
      ], `the repair is logged: ${JSON.stringify(lines)}`);
      const detail = s.logs.find((l) => l.msg.startsWith('search: repaired'));
      const stale = driver.name === 'sqlite' ? [report, memo].sort() : [report];
      t.same(detail?.ids, { stale, missing: [twin], orphaned: [ghost] }, 'with the ids repaired');
      t.same(idsOf(await admin().search('zanzibar')), [report], 'the hidden words are back');
      t.same(idsOf(await admin().search('tampered')), [], 'the tampered words are gone');
      t.same(idsOf(await admin().search('lantern')).length, 2, 'the dropped record is indexed again');
      t.same(idsOf(await admin().search('phantom')), [], 'the orphan is gone');
      t.same(idsOf(await admin().search('memo')), [memo], 'the text changed behind FTS5 is written again');
      t.same(idsOf(await admin().search('phantasm')), [], 'and its words are gone from the index');
      if (driver.name === 'sqlite') {
        const check = await s.database().withDatabase(s.environmentId, (db) => db.knex.raw(`insert into osr_search_text (osr_search_text) values ('integrity-check')`)).then(() => 'consistent', (e: Error) => e.message);
        t.equal(check, 'consistent', 'the FTS5 index agrees with its text again');
      }
      t.same(idsOf(await member().search('zanzibar')), [], 'and the member still does not match the hidden words');
      await s.rt.close();

      s = await boot();
      t.same(s.logs.map((l) => l.msg).filter((m) => m.startsWith('search:')), [], 'an index in step is left alone');
    });

    await t.test('a permission granted later applies to the next search, without re-indexing', async (t) => {
      adminToken = (await signIn(s.rt)).token;
      const session = await signIn(s.rt, MEMBER.email, MEMBER.password);
      memberToken = session.token;
      const granted = await admin().send('POST', '/api/v1/data/sys_user_permission_set', { user_id: String(session.user.id), permission_set: String(set.body.id) });
      t.equal(granted.status, 201, 'the member is given the set that reads secret');
      t.same(idsOf(await member().search('zanzibar')), [report], 'and now finds the record by its words');
      t.same(idsOf(await member().search('zanz')), [report], 'and by a prefix');
    });
  });
}
