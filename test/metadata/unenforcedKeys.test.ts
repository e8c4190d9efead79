/** Declared means enforced: a key the loader accepts does something, or the load fails naming its path. */
import t from 'tap';
import { loadApps } from '../../metadata/loadApps.ts';
import { UNENFORCED_OBJECT_KEYS, unenforcedKeyProblems } from '../../metadata/unenforcedKeys.ts';
import { rows, writeApp } from './helpers.ts';

const note = { name: 'note', fields: { title: { type: 'text' } } };

t.test('a made-up enable flag is a load error naming its path', async (t) => {
  const dir = writeApp(t, { 'note.json': { ...note, enable: { x: true } } });
  const { objects, errors } = await loadApps([dir]);
  t.same(rows(errors, dir).map((r) => [r.file, r.path]), [['objects/note.json', 'enable.x']]);
  t.match(rows(errors, dir)[0]!.reason, /unknown key 'x'/);
  t.equal(objects.size, 0);
});

t.test('a key nothing enforces is a load error naming its path; enable.activities is enforced', async (t) => {
  t.same(Object.keys(UNENFORCED_OBJECT_KEYS), [], 'every enable flag is acted on today');
  const made = { 'enable.timeline': 'nothing serves a timeline flag; remove the key' };
  t.same(unenforcedKeyProblems({ ...note, enable: { timeline: true } }, made), [{ path: 'enable.timeline', reason: 'is not enforced: nothing serves a timeline flag; remove the key' }]);
  t.same(unenforcedKeyProblems({ ...note, enable: { feeds: true } }, made), [], 'an absent key is no problem');
  const unknown = writeApp(t, { 'note.json': { ...note, enable: { timeline: true } } });
  t.same(rows((await loadApps([unknown])).errors, unknown).map((r) => [r.file, r.path]), [['objects/note.json', 'enable.timeline']], 'a made-up flag stays refused');
  for (const value of [true, false]) {
    const dir = writeApp(t, { 'note.json': { ...note, enable: { activities: value } } });
    const { objects, errors } = await loadApps([dir]);
    t.same(errors, [], `enable.activities: ${value} is accepted`);
    t.equal(objects.get('note')!.enable.activities, value);
  }
  const dir = writeApp(t, { 'note.json': note });
  t.equal((await loadApps([dir])).objects.get('note')!.enable.activities, true, 'on by default');
});

t.test('the enforced enable flags and field keys stay accepted', async (t) => {
  const dir = writeApp(t, {
    'note.json': {
      ...note,
      fields: { ...note.fields, amount: { type: 'number', scale: 2 } },
      enable: { feeds: false, files: true, trackHistory: true, trash: true },
    },
  });
  const { objects, errors } = await loadApps([dir]);
  t.same(errors, []);
  t.match(objects.get('note')!.enable, { feeds: false, files: true, trackHistory: true, trash: true });
  t.equal(objects.get('note')!.fields['amount']!.scale, 2);
});

t.test('scale is enforced on write: more digits after the point than declared is refused', async (t) => {
  const { coerceInput } = await import('../../plugins/data/engine/coerceInput.ts');
  const dir = writeApp(t, { 'note.json': { ...note, fields: { ...note.fields, amount: { type: 'currency', scale: 2 }, rate: { type: 'percent', scale: 0 } } } });
  const object = (await loadApps([dir])).objects.get('note')!;
  t.same(coerceInput(object, { amount: 12.34, rate: 7 }, 'create'), { values: { amount: 12.34, rate: 7 }, errors: [] });
  t.same(coerceInput(object, { amount: 12.345, rate: 7.5 }, 'update').errors, [
    { path: 'amount', message: 'must have at most 2 digits after the decimal point' },
    { path: 'rate', message: 'must have at most 0 digits after the decimal point' },
  ]);
});
