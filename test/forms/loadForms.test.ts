/** forms/<slug>.json: what the loader accepts, and every way a declaration fails the load naming its file and path. */
import { cpSync, mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { loadApps } from '../../metadata/loadApps.ts';

const FIXTURE = new URL('./fixtures/app/objects', import.meta.url).pathname;

/** An app holding the fixture objects and these forms; answers the load's problems as `{ file, path, reason }`. */
async function load(t: Test, forms: Record<string, unknown>) {
  const dir = mkdtempSync(join(tmpdir(), 'osr-forms-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(FIXTURE, join(dir, 'objects'), { recursive: true });
  mkdirSync(join(dir, 'forms'));
  writeFileSync(join(dir, 'app.json'), JSON.stringify({ name: 'desk', version: '1.0.0', protocol: '^16.0.0' }));
  for (const [file, body] of Object.entries(forms)) writeFileSync(join(dir, 'forms', file), JSON.stringify(body));
  const result = await loadApps([dir]);
  return {
    result,
    problems: result.errors.map((e) => ({ code: e.code, file: String(e.details.file).slice(dir.length + 1), path: e.details.path, reason: String(e.details.reason) })),
  };
}

const form = (extra: Record<string, unknown> = {}) => ({ slug: 'ask', object: 'ticket', fields: ['subject', 'email'], ...extra });

t.test('a valid form resolves its fields against the object', async (t) => {
  const { result, problems } = await load(t, {
    'ask.json': form({
      fields: [{ field: 'subject', label: 'Topic', help: 'Short', placeholder: 'e.g. invoice' }, 'email', { field: 'quantity', required: true }, 'priority'],
      sharing: { allowAnonymous: true }, runAs: 'someone@example.com', successMessage: 'Got it', rateLimit: { max: 3, windowSeconds: 10 },
    }),
  });
  t.same(problems, []);
  const loaded = result.apps[0]!.forms![0]!;
  t.equal(loaded.slug, 'ask');
  t.equal(loaded.allowAnonymous, true);
  t.equal(loaded.runAs, 'someone@example.com');
  t.same(loaded.rateLimit, { max: 3, windowSeconds: 10 });
  t.same(loaded.fields.map((f) => [f.field, f.type, f.label, f.required]), [
    ['subject', 'text', 'Topic', true], ['email', 'email', 'Email address', true], ['quantity', 'integer', 'Quantity', true], ['priority', 'select', 'Priority', false],
  ]);
  t.same(loaded.fields[3]!.options, [{ value: 'low', label: 'Low' }, { value: 'normal', label: 'Normal' }, { value: 'high', label: 'High' }]);
  t.equal(loaded.fields[0]!.maxLength, 60);
  t.equal(loaded.honeypot, 'website');
  t.equal(result.apps[0]!.forms![0]!.allowAnonymous, true);
});

t.test('sharing defaults to signed-in users only', async (t) => {
  const { result, problems } = await load(t, { 'ask.json': form() });
  t.same(problems, []);
  t.equal(result.apps[0]!.forms![0]!.allowAnonymous, false);
  t.equal(result.apps[0]!.forms![0]!.runAs, null);
});

const cases: Array<[string, Record<string, unknown>, string, RegExp]> = [
  ['an unknown top-level key', form({ colour: 'red' }), 'colour', /unknown key|not allowed|colour/i],
  ['an unknown key in a field entry', form({ fields: [{ field: 'subject', width: 3 }, 'email'] }), 'fields[0].width', /width/],
  ['an unknown key in sharing', form({ sharing: { allowAnonymous: true, public: true } }), 'sharing.public', /public/],
  ['the owner field', form({ fields: ['subject', 'email', 'owner_id'] }), 'fields[2]', /owner field/],
  ['a system field', form({ fields: ['subject', 'email', { field: 'created_by' }] }), 'fields[2].field', /system field/],
  ['a formula field', form({ fields: ['subject', 'email', 'shout'] }), 'fields[2]', /formula: the engine computes it/],
  ['a readonly field', form({ fields: ['subject', 'email', 'status'] }), 'fields[2]', /readonly/],
  ['an unknown field', form({ fields: ['subject', 'email', 'emial'] }), 'fields[2]', /unknown field 'emial'/],
  ['a field listed twice', form({ fields: ['subject', 'email', 'subject'] }), 'fields[2]', /listed twice/],
  ['a required field made optional', form({ fields: [{ field: 'subject', required: false }, 'email'] }), 'fields[0].required', /cannot make it optional/],
  ['a required field left out', form({ fields: ['subject'] }), 'fields', /'email' is required by object 'ticket'/],
  ['an unknown object', form({ object: 'tickets' }), 'object', /unknown object 'tickets' \(did you mean 'ticket'\?\)/],
  ['a runAs that names no user', form({ runAs: 'not a user!' }), 'runAs', /email address or by user id/],
  ['a slug that is not the file name', form({ slug: 'other' }), 'slug', /must be declared in a file named other\.json/],
  ['a rate limit of zero', form({ rateLimit: { max: 0, windowSeconds: 60 } }), 'rateLimit.max', /at least 1/],
  ['a honeypot named like a form field', form({ honeypot: 'email' }), 'honeypot', /honeypot/],
  ['no fields', form({ fields: [] }), 'fields', /at least one field/],
];
for (const [what, body, path, reason] of cases) {
  t.test(`refused: ${what}, naming ${path}`, async (t) => {
    const { result, problems } = await load(t, { 'ask.json': body });
    const hit = problems.find((p) => p.path === path);
    t.ok(hit, `a problem at ${path}: ${JSON.stringify(problems)}`);
    t.equal(hit?.code, 'METADATA_INVALID');
    t.equal(hit?.file, 'forms/ask.json');
    t.match(hit?.reason, reason);
    t.same(result.apps[0]?.forms ?? [], [], 'the form is not loaded');
  });
}

t.test('a slug declared by two apps is refused', async (t) => {
  const first = await load(t, { 'ask.json': form() });
  t.same(first.problems, []);
  const dir = mkdtempSync(join(tmpdir(), 'osr-forms-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  for (const name of ['one', 'two']) {
    mkdirSync(join(dir, name, 'forms'), { recursive: true });
    writeFileSync(join(dir, name, 'app.json'), JSON.stringify({ name, version: '1.0.0', protocol: '^16.0.0' }));
    writeFileSync(join(dir, name, 'forms', 'ask.json'), JSON.stringify(form()));
  }
  cpSync(FIXTURE, join(dir, 'one', 'objects'), { recursive: true });
  const result = await loadApps([join(dir, 'one'), join(dir, 'two')]);
  t.match(result.errors.map((e) => String(e.details.reason)), [/form 'ask' is already declared in .*one\/forms\/ask\.json/]);
});
