import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { eachBackend } from '../auth/authHarness.ts';
import { sendAs, type UserKey } from '../access/accessWorld.ts';
import { attachmentsOf, buildReportsWorld, finished } from './reportsWorld.ts';

/**
 * Reports run through the data engine as their caller: the same rows as POST /data/:object/query
 * for the same user, a field the saver may not read refused at save, another user's private
 * report invisible, exports through the data export's writers, and scheduled delivery as the owner.
 */
const PLAIN = { object: 'doc', fields: ['title', 'region'], orderBy: 'title' };
const GROUPED = { object: 'doc', groupBy: ['region'], aggregations: [{ function: 'count', alias: 'n' }], orderBy: 'region' };
const bodyOf = ({ object: _object, ...rest }: Record<string, unknown>) => rest;

t.test('reports', async (t) => {
  await eachBackend(t, ['reports'], async (t, site) => {
    const w = await buildReportsWorld(t, site);
    const dataQuery = async (user: UserKey, query: Record<string, unknown>) => {
      const res = await w.as(user, 'POST', `/api/v1/data/${String(query.object)}/query`, bodyOf(query));
      return res;
    };

    const mine = await w.as('owner', 'POST', '/api/v1/reports', { name: 'My docs', description: 'titles', query: PLAIN });
    t.equal(mine.status, 201, JSON.stringify(mine.body));
    t.match(mine.body, { name: 'My docs', description: 'titles', query: PLAIN, shared: false, owner: w.users.owner.id, schedule: null });
    const grouped = await w.as('admin', 'POST', '/api/v1/reports', { name: 'Docs by region', query: GROUPED, shared: true });
    t.equal(grouped.status, 201, JSON.stringify(grouped.body));

    await t.test('a run equals the data route for the same user, and differs between users as their rows do', async (t) => {
      for (const [report, query] of [[mine.body.id, PLAIN], [grouped.body.id, GROUPED]] as const) {
        const seen: Record<string, unknown> = {};
        for (const user of ['owner', 'admin', 'other'] as const) {
          const run = await w.as(user, 'POST', `/api/v1/reports/${report}/run`);
          if (user === 'other' && report === mine.body.id) {
            t.equal(run.status, 404, "another user's private report is not found");
            continue;
          }
          t.equal(run.status, 200, `${user}: ${JSON.stringify(run.body)}`);
          const data = await dataQuery(user, query);
          t.equal(data.status, 200);
          t.same(run.body.items, data.body.items, `${user}: the same items as POST /data/doc/query`);
          seen[user] = run.body.items;
        }
        t.notSame(seen.owner, seen.admin, 'owner and admin get different rows');
      }
      const plain = await w.as('owner', 'POST', `/api/v1/reports/${mine.body.id}/run`);
      t.same(plain.body.items.map((i: { title: string }) => i.title), ['DOC-A'], 'the owner reads its own doc only');
      t.same(plain.body.columns, [{ key: 'title', label: 'Title' }, { key: 'region', label: 'Region' }]);
      t.equal(plain.body.truncated, false);
      const all = await w.as('admin', 'POST', `/api/v1/reports/${mine.body.id}/run`);
      t.same(all.body.items.map((i: { title: string }) => i.title), ['DOC-A', 'DOC-B', 'DOC-C', 'DOC-E'], 'the admin reads every doc');
      const two = await w.as('admin', 'POST', '/api/v1/reports', { name: 'Two', query: { object: 'doc', fields: ['title'], orderBy: 'title', limit: 2 } });
      const firstTwo = await w.as('admin', 'POST', `/api/v1/reports/${two.body.id}/run`);
      t.same(firstTwo.body.items.map((i: { title: string }) => i.title), ['DOC-A', 'DOC-B'], 'the limit bounds the rows');
      t.equal(firstTwo.body.truncated, true, 'and says more rows match');
      const huge = await w.as('admin', 'POST', '/api/v1/reports', { name: 'Huge', query: { object: 'doc', fields: ['title'], limit: '100000' } });
      t.equal(huge.status, 201, 'a limit over maxPageSize is brought down to it, as on the data route');
      t.equal((await w.as('admin', 'POST', `/api/v1/reports/${huge.body.id}/run`)).body.items.length, 4);
      for (const id of [two.body.id, huge.body.id]) t.equal((await w.as('admin', 'DELETE', `/api/v1/reports/${id}`)).status, 204);
      const groups = await w.as('other', 'POST', `/api/v1/reports/${grouped.body.id}/run`);
      t.same(groups.body.columns, [{ key: 'region', label: 'Region' }, { key: 'n', label: 'N' }]);
      t.same(groups.body.items, [{ region: 'EU', n: 1 }, { region: 'US', n: 2 }], 'other counts only its own docs');
    });

    await t.test('a field the saver may not read is refused at save, as by the data route', async (t) => {
      const hidden = { object: 'doc', fields: ['title', 'secret'] };
      const saved = await w.as('owner', 'POST', '/api/v1/reports', { name: 'Secrets', query: hidden });
      const data = await dataQuery('owner', hidden);
      t.equal(saved.status, 403, 'refused');
      t.equal(saved.body.error.code, 'PERMISSION_DENIED');
      t.equal(saved.status, data.status, 'the status of the data route');
      t.same(saved.body.error, data.body.error, 'the error of the data route');
      t.notOk(JSON.stringify((await w.as('owner', 'GET', '/api/v1/reports')).body).includes('Secrets'), 'nothing stored');
      const where = await w.as('owner', 'POST', '/api/v1/reports', { name: 'Secret filter', query: { object: 'doc', where: { secret: 'SECRET-A' } } });
      t.equal(where.status, 403, 'a hidden field in where is refused too');
      const allowed = await w.as('viewAll', 'POST', '/api/v1/reports', { name: 'Secrets', query: hidden });
      t.equal(allowed.status, 201, 'a user who may read the field saves it');
      const stale = await w.rt.inject({ method: 'PATCH', url: `/api/v1/reports/${allowed.body.id}`, headers: { authorization: `Bearer ${w.users.viewAll.token}`, 'if-match': '"7"' }, payload: { shared: true } });
      t.equal(stale.statusCode, 409, 'a stale If-Match is refused');
      t.equal(stale.json().error.code, 'CONCURRENT_UPDATE');
      const shared = await w.rt.inject({ method: 'PATCH', url: `/api/v1/reports/${allowed.body.id}`, headers: { authorization: `Bearer ${w.users.viewAll.token}`, 'if-match': `"${allowed.body.version}"` }, payload: { shared: true } });
      t.equal(shared.statusCode, 200);
      t.equal(shared.json().version, allowed.body.version + 1);
      const byOwner = await w.as('owner', 'POST', `/api/v1/reports/${allowed.body.id}/run`);
      t.equal(byOwner.status, data.status, 'a shared report naming a field hidden from the runner fails as the data route does');
      t.same(byOwner.body.error, data.body.error);
      t.notOk(JSON.stringify(byOwner.body).includes('SECRET-'), 'no hidden value');
    });

    await t.test("another user's private report is 404 on every route", async (t) => {
      for (const [method, url, payload] of [
        ['GET', `/api/v1/reports/${mine.body.id}`, undefined],
        ['PATCH', `/api/v1/reports/${mine.body.id}`, { name: 'x' }],
        ['DELETE', `/api/v1/reports/${mine.body.id}`, undefined],
        ['POST', `/api/v1/reports/${mine.body.id}/run`, undefined],
        ['POST', `/api/v1/reports/${mine.body.id}/schedule`, { cron: '0 8 * * *', recipients: ['x@example.com'] }],
        ['DELETE', `/api/v1/reports/${mine.body.id}/schedule`, undefined],
      ] as const) {
        const res = await w.as('other', method, url, payload);
        t.equal(res.status, 404, `${method} ${url}`);
        t.equal(res.body.error.code, 'NOT_FOUND');
      }
      const list = await w.as('other', 'GET', '/api/v1/reports');
      t.same(list.body.items.map((r: { name: string }) => r.name).sort(), ['Docs by region', 'Secrets'], 'other lists the shared reports only');
      const sharedView = list.body.items.find((r: { name: string }) => r.name === 'Docs by region');
      t.notOk('schedule' in sharedView, 'a shared report shows no schedule to others');
      const admin = await w.as('admin', 'GET', '/api/v1/reports');
      t.same(admin.body.items.map((r: { name: string }) => r.name).sort(), ['Docs by region', 'My docs', 'Secrets'], 'admins list every report');
      const otherEdit = await w.as('other', 'PATCH', `/api/v1/reports/${grouped.body.id}`, { name: 'mine now' });
      t.equal(otherEdit.status, 403, 'a shared report is not editable by others');
    });

    await t.test('bad input is a 400 naming the key', async (t) => {
      const extra = await w.as('owner', 'POST', '/api/v1/reports', { name: 'x', query: PLAIN, colour: 'red' });
      t.equal(extra.status, 400);
      t.match(JSON.stringify(extra.body.error), /colour/);
      const badQuery = await w.as('owner', 'POST', '/api/v1/reports', { name: 'x', query: { ...PLAIN, colour: 'red' } });
      t.equal(badQuery.status, 400);
      t.match(JSON.stringify(badQuery.body.error), /colour/);
      const unknownObject = await w.as('owner', 'POST', '/api/v1/reports', { name: 'x', query: { object: 'nothing_here' } });
      t.equal(unknownObject.status, 404);
      const cursor = await w.as('owner', 'POST', '/api/v1/reports', { name: 'x', query: { ...PLAIN, cursor: 'abc' } });
      t.equal(cursor.status, 400);
      const patch = await w.as('owner', 'PATCH', `/api/v1/reports/${mine.body.id}`, { query: { object: 'doc', fields: ['secret'] } });
      t.equal(patch.status, 403, 'a patched query is validated as the caller');
    });

    await t.test('csv, xlsx and pdf exports', async (t) => {
      const csv = await w.rt.inject({ method: 'POST', url: `/api/v1/reports/${mine.body.id}/run?format=csv`, headers: { authorization: `Bearer ${w.users.admin.token}` } });
      t.equal(csv.statusCode, 200);
      t.match(csv.headers['content-type'], /^text\/csv/);
      t.equal(csv.body, 'title,region\r\nDOC-A,US\r\nDOC-B,US\r\nDOC-C,US\r\nDOC-E,EU\r\n');
      const ownCsv = await w.rt.inject({ method: 'POST', url: `/api/v1/reports/${mine.body.id}/run?format=csv`, headers: { authorization: `Bearer ${w.users.owner.token}` } });
      t.equal(ownCsv.body, 'title,region\r\nDOC-A,US\r\n', 'the owner exports its rows only');
      const xlsx = await w.rt.inject({ method: 'POST', url: `/api/v1/reports/${grouped.body.id}/run?format=xlsx`, headers: { authorization: `Bearer ${w.users.admin.token}` } });
      t.equal(xlsx.statusCode, 200);
      const { default: ExcelJS } = await import('exceljs');
      const book = new ExcelJS.Workbook();
      await book.xlsx.load(xlsx.rawPayload as unknown as ArrayBuffer);
      const rows = book.worksheets[0]!.getSheetValues().filter(Boolean).map((r) => (r as unknown[]).slice(1));
      t.same(rows, [['region', 'n'], ['EU', 1], ['US', 3]]);
      const pdf = await w.rt.inject({ method: 'POST', url: `/api/v1/reports/${mine.body.id}/run?format=pdf`, headers: { authorization: `Bearer ${w.users.owner.token}` } });
      t.equal(pdf.statusCode, 200);
      t.equal(pdf.rawPayload.subarray(0, 5).toString(), '%PDF-');
      const bad = await w.as('owner', 'POST', `/api/v1/reports/${mine.body.id}/run?format=docx`);
      t.equal(bad.status, 400);
    });

    await t.test('a schedule mails the report run as its owner', async (t) => {
      const bad = [
        { cron: '0 8 * *', recipients: ['a@example.com'] },
        { cron: '0 8 * * *', timezone: 'Mars/Olympus', recipients: ['a@example.com'] },
        { cron: '0 8 * * *', recipients: ['not-an-address'] },
        { cron: '0 8 * * *', recipients: Array.from({ length: 21 }, (_, i) => `r${i}@example.com`) },
        { cron: '0 8 * * *', recipients: ['a@example.com'], format: 'docx' },
        { cron: '0 8 * * *', recipients: ['a@example.com'], every: 5 },
      ];
      for (const body of bad) t.equal((await w.as('owner', 'POST', `/api/v1/reports/${mine.body.id}/schedule`, body)).status, 400, JSON.stringify(body));
      const byAdmin = await w.as('admin', 'POST', `/api/v1/reports/${mine.body.id}/schedule`, { cron: '0 8 * * *', recipients: ['a@example.com'] });
      t.equal(byAdmin.status, 403, 'only the owner schedules');
      const schedule = { cron: '30 7 * * 1-5', timezone: 'Europe/Berlin', recipients: ['boss@example.com', 'team@example.com'], format: 'csv' };
      const set = await w.as('owner', 'POST', `/api/v1/reports/${mine.body.id}/schedule`, schedule);
      t.equal(set.status, 200, JSON.stringify(set.body));
      t.same((await w.as('owner', 'GET', `/api/v1/reports/${mine.body.id}`)).body.schedule, schedule, 'GET shows the schedule');

      const job = await w.queue.add('reports.deliver', { reportId: mine.body.id }, { environmentId: w.environmentId });
      const mail = await w.sink.next('boss@example.com', 10_000);
      t.equal(mail.subject, 'Report: My docs');
      t.match(mail.text, /1 row\(s\)/);
      const files = attachmentsOf(mail.raw);
      t.equal(files.length, 1);
      t.match(files[0]!.filename, /^My-docs-\d{4}-\d\d-\d\d\.csv$/);
      t.equal(files[0]!.content.toString(), 'title,region\r\nDOC-A,US\r\n', "the owner's rows, not another user's");
      t.ok(await w.sink.next('team@example.com', 5000), 'each recipient gets it');
      t.equal(await finished(w.queue, job.id, w.environmentId), 'completed');
      t.match((await w.as('owner', 'GET', `/api/v1/reports/${mine.body.id}`)).body.lastDelivery, { at: String, error: null });

      const ticks = async () => (await w.as('admin', 'POST', '/api/v1/data/sys_job/query', { where: { name: 'reports.tick', state: { $in: ['waiting', 'delayed'] } }, fields: ['repeat_pattern'] })).body.items;
      if (w.queue.backend === 'embedded') t.same((await ticks()).map((j: { repeat_pattern: string }) => j.repeat_pattern), ['30 * * * *'], 'the hourly check is kept at the UTC minute 07:30 Berlin falls on');

      // Through the check: a pattern matching every minute queues this minute's delivery.
      t.equal((await w.as('owner', 'POST', `/api/v1/reports/${mine.body.id}/schedule`, { cron: '* * * * *', timezone: 'Asia/Kolkata', recipients: ['tick@example.com'], format: 'json' })).status, 200);
      await w.queue.add('reports.tick', { reportId: mine.body.id }, { environmentId: w.environmentId });
      const ticked = await w.sink.next('tick@example.com', 10_000);
      t.same(JSON.parse(attachmentsOf(ticked.raw)[0]!.content.toString()), [{ title: 'DOC-A', region: 'US' }], 'the check queued a delivery run as the owner');

      const removed = await w.as('owner', 'DELETE', `/api/v1/reports/${mine.body.id}/schedule`);
      t.equal(removed.status, 204);
      t.equal((await w.as('owner', 'GET', `/api/v1/reports/${mine.body.id}`)).body.schedule, null, 'unscheduled');
      const count = w.sink.mails.length;
      const after = await w.queue.add('reports.deliver', { reportId: mine.body.id }, { environmentId: w.environmentId });
      t.equal(await finished(w.queue, after.id, w.environmentId), 'completed');
      t.equal(w.sink.mails.length, count, 'nothing is sent once unscheduled');
      if (w.queue.backend === 'embedded') t.same(await ticks(), [], 'no check is left');
    });

    await t.test('a retried slot mails only the recipients its failed attempt did not reach', async (t) => {
      const report = await w.as('owner', 'POST', '/api/v1/reports', { name: 'Retry docs', query: PLAIN });
      t.equal(report.status, 201, JSON.stringify(report.body));
      const recipients = ['first@example.com', 'second@example.com', 'third@example.com'];
      t.equal((await w.as('owner', 'POST', `/api/v1/reports/${report.body.id}/schedule`, { cron: '0 8 * * *', recipients, format: 'csv' })).status, 200);
      w.sink.refuse('second@example.com', 1);
      const before = w.sink.mails.length;
      const job = await w.queue.add('reports.deliver', { reportId: report.body.id, slot: '2026-01-05T08:00:00.000Z' }, { environmentId: w.environmentId, attempts: 3, backoff: 20 });
      t.equal(await finished(w.queue, job.id, w.environmentId), 'completed');
      const sent = w.sink.mails.slice(before).map((m) => m.to.join(','));
      t.same(sent.sort(), [...recipients].sort(), 'each recipient got the report once, the first one no second time on the retry');
      t.same((await w.queue.get(job.id, w.environmentId))?.attempts, 2, 'the first attempt failed at the second recipient');
      const again = await w.queue.add('reports.deliver', { reportId: report.body.id, slot: '2026-01-06T08:00:00.000Z' }, { environmentId: w.environmentId });
      t.equal(await finished(w.queue, again.id, w.environmentId), 'completed');
      t.equal(w.sink.mails.length - before, 6, 'the next slot mails everyone again');
    });

    await t.test('dashboards: declared in metadata, each widget run as the caller', async (t) => {
      const list = await w.as('owner', 'GET', '/api/v1/dashboards');
      t.equal(list.status, 200);
      t.same(list.body.items.map((d: { name: string }) => d.name), ['doc_overview']);
      const one = await w.as('owner', 'GET', '/api/v1/dashboards/doc_overview');
      t.match(one.body, { name: 'doc_overview', label: 'Documents', package: 'reports_test', widgets: [{ id: 'doc_count', type: 'metric', title: 'Documents' }, { id: 'by_region', type: 'chart', chart: 'bar', title: 'By Region' }] });
      t.equal((await w.as('owner', 'GET', '/api/v1/dashboards/nope')).status, 404);
      const meta = await w.as('owner', 'GET', '/api/v1/meta/dashboard');
      t.equal(meta.status, 200);
      t.match(JSON.stringify(meta.body), /doc_overview/, '/meta/dashboard lists it');

      const runAs = async (user: UserKey) => {
        const res = await w.as(user, 'POST', '/api/v1/dashboards/doc_overview/run');
        t.equal(res.status, 200, JSON.stringify(res.body));
        return Object.fromEntries((res.body.widgets as Array<{ id: string }>).map((x) => [x.id, x])) as Record<string, { items?: unknown[]; error?: { code: string } }>;
      };
      const owner = await runAs('owner');
      const admin = await runAs('admin');
      const auditor = await runAs('viewAll');
      t.same(owner.doc_count!.items, [{ n: 1 }], 'the owner counts its own docs');
      t.same(admin.doc_count!.items, [{ n: 4 }], 'the admin counts every doc');
      t.same(admin.by_region!.items, [{ region: 'EU', n: 1 }, { region: 'US', n: 3 }]);
      for (const [user, widgets] of [['owner', owner], ['admin', admin]] as const) {
        const data = await dataQuery(user, { object: 'doc', groupBy: ['title', 'region'], orderBy: 'title' });
        t.same(widgets.titles!.items, data.body.items, `${user}: the table widget equals the data route`);
      }
      t.equal(owner.secrets!.error!.code, 'PERMISSION_DENIED', 'a widget naming a field hidden from the caller fails alone');
      t.notOk(JSON.stringify(owner).includes('SECRET-'), 'no hidden value');
      t.same((auditor.secrets!.items as Array<{ secret: string }>).map((r) => r.secret), ['SECRET-A', 'SECRET-B', 'SECRET-C', 'SECRET-E'], 'a caller who may read it gets it');
    });

    await t.test('a report on a dataset with extra filters runs as the caller', async (t) => {
      const saved = await w.as('owner', 'POST', '/api/v1/reports', { name: 'US docs', query: { dataset: 'docs', dimensions: ['region'], where: { region: 'US' } }, shared: true });
      t.equal(saved.status, 201, JSON.stringify(saved.body));
      t.same(saved.body.query, { dataset: 'docs', dimensions: ['region'], where: { region: 'US' } }, 'the report keeps the dataset use as given');
      for (const user of ['owner', 'admin'] as const) {
        const run = await w.as(user, 'POST', `/api/v1/reports/${saved.body.id}/run`);
        const data = await dataQuery(user, { object: 'doc', where: { region: 'US' }, groupBy: ['region'], aggregations: [{ function: 'count', alias: 'n' }] });
        t.same(run.body.items, data.body.items, `${user}: the same numbers as the data route`);
      }
      t.same((await w.as('admin', 'POST', `/api/v1/reports/${saved.body.id}/run`)).body.items, [{ region: 'US', n: 3 }]);
      const unknown = await w.as('owner', 'POST', '/api/v1/reports', { name: 'x', query: { dataset: 'docs', measures: ['total'] } });
      t.equal(unknown.status, 400);
      t.match(unknown.body.error.details.errors, [{ path: 'query.measures[0]', message: /no measure 'total'/ }]);
      const missing = await w.as('owner', 'POST', '/api/v1/reports', { name: 'x', query: { dataset: 'nope' } });
      t.equal(missing.status, 404);
    });

    await t.test('a dashboard widget naming a report runs it as the caller', async (t) => {
      const own = await w.as('owner', 'POST', '/api/v1/reports', { name: 'Own count', query: { object: 'doc', aggregations: [{ function: 'count', alias: 'n' }] } });
      const listing = await w.as('admin', 'POST', '/api/v1/reports', { name: 'Listing', query: PLAIN, shared: true });
      const dir = mkdtempSync(join(tmpdir(), 'osr-report-widgets-'));
      t.teardown(() => rmSync(dir, { recursive: true, force: true }));
      mkdirSync(join(dir, 'dashboards'));
      writeFileSync(join(dir, 'app.json'), JSON.stringify({ name: 'report_widgets', version: '1.0.0', protocol: '^16.0.0' }));
      writeFileSync(join(dir, 'dashboards', 'saved.json'), JSON.stringify({ name: 'saved', widgets: [
        { id: 'own_count', type: 'metric', report: own.body.id },
        { id: 'listing', type: 'table', report: listing.body.id },
        { id: 'listing_as_metric', type: 'metric', report: listing.body.id },
      ] }));
      // Another process of the same site, with the extra app: the users and reports are in the database.
      const rt = await site.boot({ config: { apps: ['test/access/fixtures/app', 'test/reports/fixtures/app', dir] } });
      const run = async (user: UserKey) => {
        const res = await sendAs(rt, w.users[user].token, 'POST', '/api/v1/dashboards/saved/run');
        t.equal(res.status, 200, JSON.stringify(res.body));
        return Object.fromEntries((res.body.widgets as Array<{ id: string }>).map((x) => [x.id, x])) as Record<string, { items?: unknown[]; error?: { code: string } }>;
      };
      const owner = await run('owner');
      const other = await run('other');
      t.same(owner.own_count!.items, [{ n: 1 }], "the owner's report, run as the owner");
      t.equal(other.own_count!.error!.code, 'NOT_FOUND', "another user's private report is not found in a widget either");
      t.same((owner.listing!.items as Array<{ title: string }>).map((r) => r.title), ['DOC-A'], 'a shared report runs as the caller');
      t.same((other.listing!.items as Array<{ title: string }>).map((r) => r.title), ['DOC-B', 'DOC-C', 'DOC-E']);
      t.equal(owner.listing_as_metric!.error!.code, 'VALIDATION_ERROR', 'a report that does not fit the widget type is refused in that widget');
      await rt.close();
    });

    await t.test('an owner who lost access gets nothing sent: the run fails and is kept', async (t) => {
      const saved = await w.as('viewAll', 'POST', '/api/v1/reports', { name: 'Audit', query: { object: 'doc', fields: ['title', 'secret'], orderBy: 'title' } });
      t.equal(saved.status, 201);
      t.equal((await w.as('viewAll', 'POST', `/api/v1/reports/${saved.body.id}/schedule`, { cron: '0 6 * * *', recipients: ['auditor@example.com'] })).status, 200);
      const first = await w.queue.add('reports.deliver', { reportId: saved.body.id }, { environmentId: w.environmentId });
      const mail = await w.sink.next('auditor@example.com', 10_000);
      t.match(attachmentsOf(mail.raw)[0]!.content.toString(), /SECRET-A/, 'while the owner may read the field, it is delivered');
      await finished(w.queue, first.id, w.environmentId);

      t.equal((await w.as('admin', 'DELETE', `/api/v1/data/sys_user_permission_set/${w.ids.usView}`)).status, 204, 'the grant is revoked');
      const count = w.sink.mails.length;
      const second = await w.queue.add('reports.deliver', { reportId: saved.body.id }, { environmentId: w.environmentId });
      t.equal(await finished(w.queue, second.id, w.environmentId), 'completed');
      t.equal(w.sink.mails.length, count, 'nothing is sent');
      const report = await w.as('viewAll', 'GET', `/api/v1/reports/${saved.body.id}`);
      t.match(report.body.lastDelivery.error, /^PERMISSION_DENIED/, 'the failure is kept on the report');
    });

    await t.test('delete: owner or admin; the report is gone', async (t) => {
      t.equal((await w.as('owner', 'DELETE', `/api/v1/reports/${mine.body.id}`)).status, 204);
      t.equal((await w.as('owner', 'GET', `/api/v1/reports/${mine.body.id}`)).status, 404);
      t.equal((await w.as('admin', 'DELETE', `/api/v1/reports/${grouped.body.id}`)).status, 204);
    });
  });
});
