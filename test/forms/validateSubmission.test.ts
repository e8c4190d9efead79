/** The pure check of a submission: exactly the form's fields, each as the page checks it. */
import t from 'tap';
import type { ResolvedForm, ResolvedFormField } from '../../metadata/formTypes.ts';
import { validateSubmission } from '../../plugins/forms/validateSubmission.ts';

const field = (name: string, type: string, extra: Partial<ResolvedFormField> = {}): ResolvedFormField => ({
  field: name, type, label: name, help: null, placeholder: null, required: false, maxLength: null, min: null, max: null, options: null, reference: null, ...extra,
});

const form: ResolvedForm = {
  slug: 'f', object: 'o', title: 'F', description: null, allowAnonymous: true, runAs: null, successMessage: 'ok', submitLabel: 'Submit',
  rateLimit: { max: 1, windowSeconds: 1 }, honeypot: 'website', maxBodyBytes: 1024, source: 'forms/f.json', app: 'a',
  fields: [
    field('name', 'text', { required: true, maxLength: 5 }),
    field('site', 'url'),
    field('phone', 'phone'),
    field('count', 'integer', { min: 0, max: 9 }),
    field('ratio', 'percent'),
    field('agree', 'boolean', { required: true }),
    field('day', 'date'),
    field('at', 'datetime'),
    field('tags', 'multiselect', { options: [{ value: 'a', label: 'A' }, { value: 'b', label: 'B' }] }),
    field('ref', 'lookup', { reference: 'project' }),
  ],
};

t.test('valid values pass; empty optional ones are left out; false is a value', async (t) => {
  const result = validateSubmission(form, { name: 'Ann', site: 'https://x.example', phone: '+49 151 1234', count: 0, ratio: 0.5, agree: false, day: '2026-01-31', at: '2026-01-31T09:30:00Z', tags: ['a', 'b'], ref: 'r1', website: '' });
  t.same(result, { ok: true, honeypot: false, values: { name: 'Ann', site: 'https://x.example', phone: '+49 151 1234', count: 0, ratio: 0.5, agree: false, day: '2026-01-31', at: '2026-01-31T09:30:00Z', tags: ['a', 'b'], ref: 'r1' } });
  t.same(validateSubmission(form, { name: 'Ann', agree: true, site: '', tags: [] }), { ok: true, honeypot: false, values: { name: 'Ann', agree: true } });
});

t.test('each type refuses what the page refuses, with the same messages', async (t) => {
  const result = validateSubmission(form, { name: 'Annabel', site: 'ftp://x', phone: 'call me', count: 1.5, ratio: '3', day: '31.01.2026', at: '2026-01-31T09:30', tags: ['c'], ref: 7 });
  t.same(result, { ok: false, errors: [
    { path: 'name', message: 'must be at most 5 characters' },
    { path: 'site', message: 'must be an http or https URL' },
    { path: 'phone', message: 'must be a phone number (digits, spaces, + ( ) . -)' },
    { path: 'count', message: 'must be a whole number' },
    { path: 'ratio', message: 'must be a number' },
    { path: 'agree', message: 'is required' },
    { path: 'day', message: 'must be a date YYYY-MM-DD' },
    { path: 'at', message: 'must be a date and time with a time zone, e.g. 2026-01-31T09:30:00Z' },
    { path: 'tags', message: 'must be a list of values from a, b' },
    { path: 'ref', message: 'must be the id of a project record' },
  ] });
});

t.test('keys outside the form are refused by name; the honeypot is read, not stored', async (t) => {
  t.same(validateSubmission(form, { name: 'A', agree: true, owner_id: 'u', updated_by: 'u', extra: 1 }), { ok: false, errors: [
    { path: 'owner_id', message: 'is the owner field: the server sets it, a form never does' },
    { path: 'updated_by', message: 'is a system field: the server sets it, a form never does' },
    { path: 'extra', message: 'is not a field of this form' },
  ] });
  t.same(validateSubmission(form, { name: 'A', agree: true, website: 'spam' }), { ok: true, honeypot: true, values: { name: 'A', agree: true } });
});
