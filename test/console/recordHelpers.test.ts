/**
 * The console's pure helpers for lookups: the ids a page references by referenced object (one read
 * each), slices within a page size, and the lookups the metadata names as pointing to an object,
 * kept only where the user may list the object and read the field.
 */
import t from 'tap';
import { chunk, lookupIds } from '../../plugins/console/app/lookupIds.ts';
import { readableSource, referencingLookups } from '../../plugins/console/app/relatedSources.ts';
import type { FieldDoc } from '../../plugins/meta/api/viewDocs.ts';

const lookup = (reference: string): FieldDoc => ({ type: 'lookup', label: reference, reference });
const fields: Record<string, FieldDoc> = {
  title: { type: 'text', label: 'Title' },
  project: lookup('project'),
  backup_project: lookup('project'),
  owner: lookup('vault'),
};

t.test('lookupIds: by referenced object, without duplicates or empties', async (t) => {
  const rows = [
    { id: '1', title: 'a', project: 'p1', backup_project: 'p2', owner: null },
    { id: '2', title: 'b', project: 'p1', backup_project: '', owner: 'v1' },
    { id: '3', title: 'c', project: 'p3', backup_project: 'p1' },
  ];
  t.same([...lookupIds(rows, ['title', 'project', 'backup_project', 'owner'], fields)], [['project', ['p1', 'p3', 'p2']], ['vault', ['v1']]],
    'two lookup columns to one object make one list of ids');
  t.same([...lookupIds(rows, ['title', 'project'], fields)], [['project', ['p1', 'p3']]], 'only the columns shown');
  t.same([...lookupIds(rows, ['owner', 'secret'], {})], [], 'a column whose field the user may not read (absent from fields) is not read');
  t.same([...lookupIds([{ id: '1', project: null }], ['project'], fields)], [], 'no value: no read');
  t.same([...lookupIds([{ id: '1', project: 7 }], ['project'], fields)], [['project', ['7']]], 'ids as text');
});

t.test('chunk: slices of at most the page size', async (t) => {
  t.same(chunk(['a', 'b', 'c', 'd', 'e'], 2), [['a', 'b'], ['c', 'd'], ['e']]);
  t.same(chunk(['a'], 200), [['a']]);
  t.same(chunk([], 5), []);
  t.same(chunk(['a', 'b'], 0), [['a'], ['b']], 'a size below one counts as one');
});

t.test('referencingLookups and readableSource', async (t) => {
  const refs = [
    { type: 'object', name: 'ticket', path: 'fields.project.reference' },
    { type: 'object', name: 'ticket', path: 'fields.backup_project.reference' },
    { type: 'object', name: 'ticket', path: 'fields.project.reference' },
    { type: 'object', name: 'contract', path: 'fields.project.reference' },
    { type: 'book', name: 'desk', path: 'nodes[0].object' },
    { type: 'action', name: 'close', path: 'input.project.reference' },
    { type: 'object', name: 'milestone', path: 'fields.project.reference' },
  ];
  t.same(referencingLookups(refs, new Set(['ticket', 'milestone'])), [
    { object: 'ticket', field: 'project' },
    { object: 'ticket', field: 'backup_project' },
    { object: 'milestone', field: 'project' },
  ], 'lookups of listable objects, each once; not books, actions, or objects the user may not list');
  t.same(referencingLookups(refs, new Set()), [], 'nothing listable: nothing');
  t.equal(readableSource({ object: 'ticket', field: 'project' }, fields, 'project'), true, 'a readable lookup to the object');
  t.equal(readableSource({ object: 'ticket', field: 'secret_project' }, fields, 'project'), false, 'a field the user may not read (absent from its view)');
  t.equal(readableSource({ object: 'ticket', field: 'owner' }, fields, 'project'), false, 'a lookup to another object');
  t.equal(readableSource({ object: 'ticket', field: 'title' }, fields, 'project'), false, 'not a lookup');
});
