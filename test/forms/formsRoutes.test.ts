/** The form API on both drivers: schema, submission, refusals (extra and owner fields, rate limit, size, honeypot), anonymous 401, runAs. */
import t from 'tap';
import { eachBackend } from '../auth/authHarness.ts';
import { formsWorld } from './formsHarness.ts';

const valid = { subject: 'Broken invoice', email: 'ann@example.com', quantity: 3, priority: 'high', topics: ['billing'], notes: 'Please call', due: '2026-12-01', urgent: true };

await eachBackend(t, ['forms'], async (t, site) => {
  const w = await formsWorld(t, site);

  await t.test('GET /forms/:slug: the schema of an anonymous form, to anyone', async (t) => {
    const res = await w.anon('GET', '/api/v1/forms/contact');
    t.equal(res.status, 200);
    t.equal(res.body.title, 'Contact us');
    t.equal(res.body.allowAnonymous, true);
    t.equal(res.body.honeypot, 'website');
    t.same(res.body.fields.map((f: { name: string }) => f.name), ['subject', 'email', 'quantity', 'priority', 'topics', 'notes', 'due', 'urgent']);
    const subject = res.body.fields[0];
    t.match(subject, { type: 'text', label: 'Subject', help: 'A few words: at most 60 characters.', required: true, maxLength: 60 });
    t.match(res.body.fields[2], { type: 'integer', min: 1, max: 100, required: false });
    t.same(res.body.fields[3].options, [{ value: 'low', label: 'Low' }, { value: 'normal', label: 'Normal' }, { value: 'high', label: 'High' }]);
    t.match(res.body.fields[5], { type: 'textarea', help: 'Anything we should know.', maxLength: 500 });
    const prefixed = await w.anon('GET', `/api/v1/environments/${site.ids[0]}/forms/contact`);
    t.equal(prefixed.status, 200, 'also below the environment prefix');
    t.equal(prefixed.body.slug, 'contact');
  });

  await t.test('a form without allowAnonymous is 401 for anonymous callers, and served to signed-in ones', async (t) => {
    const schema = await w.anon('GET', '/api/v1/forms/members');
    t.equal(schema.status, 401);
    t.equal(schema.body.error.code, 'UNAUTHENTICATED');
    const submit = await w.anon('POST', '/api/v1/forms/members/submit', { subject: 'x', email: 'a@example.com' });
    t.equal(submit.status, 401);
    t.equal(submit.body.error.code, 'UNAUTHENTICATED');
    const page = await w.rt.inject({ url: '/f/members' });
    t.equal(page.statusCode, 401);
    t.match(page.headers['content-type'], /text\/html/);
    t.match(page.body, /signed-in users\. Sign in/);
    t.notMatch(page.body, /<form/);
    t.equal((await w.as(w.member.token, 'GET', '/api/v1/forms/members')).status, 200);
    const byCookie = await w.rt.inject({ url: '/f/members', headers: { cookie: w.admin.cookie } });
    t.equal(byCookie.statusCode, 200);
    t.match(byCookie.body, /<form id="public-form"/);
  });

  await t.test('an unknown form is 404', async (t) => {
    const res = await w.anon('GET', '/api/v1/forms/nope');
    t.equal(res.status, 404);
    t.equal(res.body.error.code, 'NOT_FOUND');
    t.equal((await w.rt.inject({ url: '/f/nope' })).statusCode, 404);
  });

  await t.test('an anonymous submission creates the record and answers its id and the message only', async (t) => {
    const res = await w.anon('POST', '/api/v1/forms/contact/submit', valid);
    t.equal(res.status, 201);
    t.same(Object.keys(res.body).sort(), ['id', 'message']);
    t.equal(res.body.message, 'Thanks, we will get back to you.');
    const record = (await w.as(w.admin.token, 'GET', `/api/v1/data/ticket/${res.body.id}`)).body;
    t.match(record, { subject: 'Broken invoice', email: 'ann@example.com', quantity: 3, priority: 'high', topics: ['billing'], notes: 'Please call', due: '2026-12-01', urgent: true, status: 'new' });
    t.equal(record.created_by, null, 'no user created it');
    t.equal(record.owner_id, null, 'and none owns it');
  });

  await t.test('exactly the form\'s fields: any other key is refused by name and nothing is stored', async (t) => {
    const before = (await w.tickets()).length;
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ ...valid, project: 'x' }, 'project', /is not a field of this form/],
      [{ ...valid, colour: 'red' }, 'colour', /is not a field of this form/],
      [{ ...valid, status: 'closed' }, 'status', /is not a field of this form/],
      [{ ...valid, owner_id: w.member.id }, 'owner_id', /owner field/],
      [{ ...valid, created_by: w.admin.id }, 'created_by', /system field/],
      [{ ...valid, id: 'chosen-id' }, 'id', /system field/],
    ];
    for (const [body, path, message] of cases) {
      const res = await w.anon('POST', '/api/v1/forms/contact/submit', body, '10.1.0.1');
      t.equal(res.status, 400, path);
      t.equal(res.body.error.code, 'VALIDATION_ERROR');
      const hit = res.body.error.details.errors.find((e: { path: string }) => e.path === path);
      t.match(hit?.message, message, `${path} named`);
    }
    t.equal((await w.tickets()).length, before, 'nothing was stored');
  });

  await t.test('field checks: required, maxLength, email, bounds, options; a server rule reports on its field', async (t) => {
    const res = await w.anon('POST', '/api/v1/forms/contact/submit', { subject: 'x'.repeat(61), email: 'nope', quantity: 101, priority: 'urgent' }, '10.1.0.2');
    t.equal(res.status, 400);
    t.same(res.body.error.details.errors, [
      { path: 'subject', message: 'must be at most 60 characters' },
      { path: 'email', message: 'must be an email address' },
      { path: 'quantity', message: 'must be at most 100' },
      { path: 'priority', message: 'must be one of low, normal, high' },
    ]);
    const missing = await w.anon('POST', '/api/v1/forms/contact/submit', {}, '10.1.0.2');
    t.same(missing.body.error.details.errors, [{ path: 'subject', message: 'is required' }, { path: 'email', message: 'is required' }]);
    const rule = await w.anon('POST', '/api/v1/forms/contact/submit', { ...valid, subject: 'forbidden' }, '10.1.0.2');
    t.equal(rule.status, 400);
    t.match(rule.body.error.details.errors, [{ path: 'subject', message: /This subject is not accepted/ }]);
  });

  await t.test('per-IP rate limit: past the form\'s max, 429 RATE_LIMITED with retryAfter; another IP is still served', async (t) => {
    const codes: number[] = [];
    let last: Awaited<ReturnType<typeof w.anon>> | null = null;
    for (let i = 0; i < 3; i++) {
      last = await w.anon('POST', '/api/v1/forms/tight/submit', { subject: `try ${i}`, email: 'b@example.com' }, '10.2.0.1');
      codes.push(last.status);
    }
    t.same(codes, [201, 201, 429]);
    t.equal(last!.body.error.code, 'RATE_LIMITED');
    t.ok(last!.body.error.details.retryAfter >= 1 && last!.body.error.details.retryAfter <= 60, 'retryAfter in seconds');
    t.equal(last!.headers['retry-after'], String(last!.body.error.details.retryAfter));
    t.equal((await w.tickets()).filter((r) => r.subject === 'try 2').length, 0, 'the refused one stored nothing');
    const other = await w.anon('POST', '/api/v1/forms/tight/submit', { subject: 'other ip', email: 'b@example.com' }, '10.2.0.2');
    t.equal(other.status, 201);
  });

  await t.test('a body over the form\'s maxBodyBytes is 413', async (t) => {
    const res = await w.anon('POST', '/api/v1/forms/tight/submit', { subject: 'big', email: `${'a'.repeat(2000)}@example.com` }, '10.3.0.1');
    t.equal(res.status, 413);
    t.equal(res.body.error.code, 'PAYLOAD_TOO_LARGE');
    t.equal(res.body.error.details.limit, 1024);
  });

  await t.test('a filled honeypot is answered 201 like a success and stores nothing', async (t) => {
    const before = (await w.tickets()).length;
    const res = await w.anon('POST', '/api/v1/forms/contact/submit', { ...valid, subject: 'spam', website: 'http://spam.example' }, '10.4.0.1');
    t.equal(res.status, 201);
    t.match(res.body.id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    t.equal((await w.as(w.admin.token, 'GET', `/api/v1/data/ticket/${res.body.id}`)).status, 404);
    t.equal((await w.tickets()).length, before);
  });

  await t.test('a signed-in form records the signed-in submitter as creator and owner', async (t) => {
    const res = await w.as(w.member.token, 'POST', '/api/v1/forms/members/submit', { subject: 'member asks', email: 'm@example.com' });
    t.equal(res.status, 201);
    t.equal(res.body.message, 'Request stored.');
    const record = (await w.as(w.admin.token, 'GET', `/api/v1/data/ticket/${res.body.id}`)).body;
    t.equal(record.created_by, w.member.id);
    t.equal(record.owner_id, w.member.id);
    const owner = await w.as(w.member.token, 'POST', '/api/v1/forms/members/submit', { subject: 'mine', email: 'm@example.com', owner_id: w.admin.id });
    t.equal(owner.status, 400);
    t.match(owner.body.error.details.errors, [{ path: 'owner_id', message: /owner field/ }]);
  });

  await t.test('runAs: the record is created as that user, and that user\'s row security applies', async (t) => {
    const res = await w.anon('POST', '/api/v1/forms/as-member/submit', { subject: 'as member', email: 'c@example.com' }, '10.5.0.1');
    t.equal(res.status, 201);
    const record = (await w.as(w.admin.token, 'GET', `/api/v1/data/ticket/${res.body.id}`)).body;
    t.equal(record.created_by, w.member.id, 'created_by is the runAs user');
    t.equal(record.owner_id, w.member.id);
    t.equal((await w.as(w.member.token, 'GET', `/api/v1/data/ticket/${res.body.id}`)).status, 200, 'the runAs user owns and reads it');

    const hidden = (await w.as(w.admin.token, 'POST', '/api/v1/data/project', { name: 'Admin only' })).body.id;
    const visible = (await w.as(w.member.token, 'POST', '/api/v1/data/project', { name: 'Member project' })).body.id;
    t.equal((await w.as(w.member.token, 'GET', `/api/v1/data/project/${hidden}`)).status, 404, 'the member cannot read the admin\'s private project');
    const refused = await w.anon('POST', '/api/v1/forms/as-member/submit', { subject: 'link hidden', email: 'c@example.com', project: hidden }, '10.5.0.1');
    t.equal(refused.status, 400);
    t.match(refused.body.error.details.errors, [{ path: 'project' }]);
    t.equal((await w.tickets()).filter((r) => r.subject === 'link hidden').length, 0);
    const linked = await w.anon('POST', '/api/v1/forms/as-member/submit', { subject: 'link visible', email: 'c@example.com', project: visible }, '10.5.0.1');
    t.equal(linked.status, 201);
    t.equal((await w.as(w.admin.token, 'GET', `/api/v1/data/ticket/${linked.body.id}`)).body.project, visible);
  });

  await t.test('a runAs user that does not exist makes the form unavailable (503) and stores nothing', async (t) => {
    const before = (await w.tickets()).length;
    const res = await w.anon('POST', '/api/v1/forms/as-ghost/submit', { subject: 'ghost', email: 'g@example.com' }, '10.6.0.1');
    t.equal(res.status, 503);
    t.equal(res.body.error.code, 'FORM_UNAVAILABLE');
    t.notMatch(JSON.stringify(res.body), /ghost@example\.com/, 'the runAs account is not named to the caller');
    t.equal((await w.tickets()).length, before);
  });

  await t.test('the page: labels, help, constraints, and a strict CSP', async (t) => {
    const page = await w.rt.inject({ url: '/f/contact' });
    t.equal(page.statusCode, 200);
    const csp = String(page.headers['content-security-policy']);
    for (const directive of ["default-src 'none'", "script-src 'self'", "style-src 'self'", "form-action 'self'", "frame-ancestors 'none'", "base-uri 'none'"]) {
      t.ok(csp.split('; ').includes(directive), directive);
    }
    t.notMatch(csp, /unsafe-inline|unsafe-eval|\*/);
    t.equal(page.headers['x-frame-options'], 'DENY');
    t.match(page.body, /<label for="f-subject">Subject/);
    t.match(page.body, /<input id="f-subject" name="subject" aria-describedby="f-subject-help f-subject-error" required type="text" maxlength="60"/);
    t.match(page.body, /<p class="help" id="f-subject-help">A few words: at most 60 characters\.<\/p>/);
    t.match(page.body, /type="email"/);
    t.match(page.body, /data-submit-url="\/api\/v1\/forms\/contact\/submit"/, 'the page posts to the submit route of its environment');
    t.notMatch(page.body, /\son[a-z]+=/i, 'no inline event handlers');
    t.notMatch(page.body, /<script>|<style/, 'no inline script or style');
    const script = await w.rt.inject({ url: '/f/assets/form.js' });
    t.equal(script.statusCode, 200);
    t.match(script.headers['content-type'], /text\/javascript/);
  });

  await t.test('GET /meta/form lists the forms; the runAs user is shown to admins only', async (t) => {
    const admin = await w.as(w.admin.token, 'GET', '/api/v1/meta/form');
    t.equal(admin.status, 200);
    const items = admin.body.items ?? admin.body;
    t.same(items.map((f: { name: string }) => f.name).sort(), ['as-ghost', 'as-member', 'contact', 'members', 'members-project', 'open-project', 'tight']);
    const asMember = items.find((f: { name: string }) => f.name === 'as-member');
    t.match(asMember, { slug: 'as-member', object: 'ticket', allowAnonymous: true, runsAs: 'user', runAs: 'member@example.com', package: 'forms_test', source: 'forms/as-member.json' });
    const member = await w.as(w.member.token, 'GET', '/api/v1/meta/form/as-member');
    t.equal(member.status, 200);
    t.equal(member.body.runsAs, 'user');
    t.notOk('runAs' in member.body, 'members do not see whom the form submits as');
    t.equal((await w.anon('GET', '/api/v1/meta/form')).status, 401);
    const refs = await w.as(w.admin.token, 'GET', '/api/v1/meta/object/project/references');
    t.match(refs.body.items ?? refs.body, [{ type: 'object', name: 'ticket' }, { type: 'form', name: 'as-member', path: 'fields.project.reference' }]);
  });

  await t.test('the routes are in the OpenAPI document', async (t) => {
    const doc = (await w.as(w.admin.token, 'GET', '/api/v1/openapi.json')).body;
    t.ok(doc.paths['/forms/{slug}']?.get, 'GET /forms/{slug}');
    t.ok(doc.paths['/forms/{slug}/submit']?.post, 'POST /forms/{slug}/submit');
    t.ok(doc.paths['/f/{slug}']?.get, 'GET /f/{slug}');
  });
});
