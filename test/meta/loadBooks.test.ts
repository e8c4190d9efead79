/** The loader's books and package overrides: validated like objects, every problem named by file and path. */
import t from 'tap';
import { loadApps } from '../../metadata/loadApps.ts';
import { rows } from '../metadata/helpers.ts';

const crmDir = new URL('../../metadata/apps/crm', import.meta.url).pathname;
const manifest = (name: string) => JSON.stringify({ name, version: '1.0.0', protocol: '^16.0.0' });
const json = (value: unknown) => JSON.stringify(value, null, 2);
const note = { name: 'note', fields: { body: { type: 'text' }, mood: { type: 'select', options: ['calm', 'busy'] } } };

t.test('the crm app loads its book; objects load as before', async (t) => {
  const { apps, objects, errors } = await loadApps([crmDir]);
  t.same(errors, []);
  t.same([...objects.keys()].sort(), ['account', 'contact', 'lead', 'opportunity', 'task']);
  const crm = apps[0]!;
  t.same(crm.books.map((b) => b.name), ['sales']);
  t.same(crm.overrides, []);
  const sales = crm.books[0]!;
  t.match(sales, { label: 'Sales', app: 'crm', source: `${crmDir}/books/sales.json` });
  t.same(sales.nodes.map((n) => [n.name, n.kind]), [['pipeline', 'section'], ['customers', 'section'], ['tasks', 'page'], ['management', 'section']]);
  t.same(sales.nodes[3]!.audience, { permissionSet: 'sales_manager' });
});

t.test('book problems: schema, node rules, references, names', async (t) => {
  const root = t.testdir({
    demo: {
      'app.json': manifest('demo'),
      objects: { 'note.json': json(note) },
      books: {
        'main.json': json({
          name: 'main',
          nodes: [
            { name: 'home', kind: 'page', object: 'nott', colour: 'red' },
            { name: 'home', kind: 'page', object: 'note' },
            { name: 'group', kind: 'section', object: 'note', children: [] },
            { name: 'Deep', kind: 'section', audience: { permissionSet: 'x', role: 'y' }, children: [{ name: 'leaf', kind: 'page' }] },
            { name: 'odd', kind: 'folder' },
          ],
        }),
        'other.json': json({ name: 'elsewhere', nodes: [{ name: 'a', kind: 'page', object: 'note', children: [] }] }),
        'notes.txt': 'x',
      },
    },
  });
  const { apps, errors } = await loadApps([`${root}/demo`]);
  t.same(rows(errors, `${root}/demo`), [
    { code: 'METADATA_INVALID', file: 'books/notes.txt', path: '(root)', reason: 'unsupported file: books are declared in <name>.json or <name>.ts' },
    { code: 'METADATA_INVALID', file: 'books/main.json', path: 'nodes[0].colour', reason: "unknown key 'colour'; allowed keys: name, kind, label, description, object, view, audience, children" },
    { code: 'METADATA_INVALID', file: 'books/main.json', path: 'nodes[3].audience.role', reason: "unknown key 'role'; allowed keys: permissionSet" },
    { code: 'METADATA_INVALID', file: 'books/main.json', path: 'nodes[4].kind', reason: "must be 'section' or 'page'" },
    { code: 'METADATA_INVALID', file: 'books/main.json', path: 'nodes[1].name', reason: "node 'home' is declared twice at this level" },
    { code: 'METADATA_INVALID', file: 'books/main.json', path: 'nodes[2].object', reason: 'a section has no object: put a page with this object in its children' },
    { code: 'METADATA_INVALID', file: 'books/main.json', path: 'nodes[2].children', reason: 'a section needs at least one child node' },
    { code: 'METADATA_INVALID', file: 'books/main.json', path: 'nodes[3].name', reason: "'Deep' must be snake_case (lowercase letters, digits and single underscores, starting with a letter)" },
    { code: 'METADATA_INVALID', file: 'books/main.json', path: 'nodes[3].children[0].object', reason: 'is required: the object the page shows' },
    { code: 'METADATA_INVALID', file: 'books/main.json', path: 'nodes[0].object', reason: "unknown object 'nott' (did you mean 'note'?)" },
    { code: 'METADATA_INVALID', file: 'books/other.json', path: 'nodes[0].children', reason: 'a page has no children: make it a section to group nodes' },
    { code: 'METADATA_INVALID', file: 'books/other.json', path: 'name', reason: "book 'elsewhere' must be declared in a file named elsewhere.json" },
  ]);
  t.same(apps[0]!.books, [], 'an invalid book is not loaded');
  t.same([...apps[0]!.objects.map((o) => o.name)], ['note'], 'objects load regardless');
});

t.test('a book name is unique across apps', async (t) => {
  const book = json({ name: 'nav', nodes: [{ name: 'notes', kind: 'page', object: 'note' }] });
  const root = t.testdir({
    one: { 'app.json': manifest('one'), objects: { 'note.json': json(note) }, books: { 'nav.json': book } },
    two: { 'app.json': manifest('two'), books: { 'nav.json': book } },
  });
  const { apps, errors } = await loadApps([`${root}/one`, `${root}/two`]);
  t.same(rows(errors, root), [{ code: 'METADATA_INVALID', file: 'two/books/nav.json', path: 'name', reason: `book 'nav' is already declared in ${root}/one/books/nav.json` }]);
  t.same(apps.map((a) => a.books.map((b) => b.name)), [['nav'], []]);
});

t.test('package overrides: changes to another app\'s object, never a schema change', async (t) => {
  const root = t.testdir({
    base: { 'app.json': manifest('base'), objects: { 'note.json': json(note) } },
    extra: {
      'app.json': manifest('extra'),
      objects: { 'memo.json': json({ name: 'memo', fields: { text: { type: 'text' } } }) },
      overrides: {
        objects: {
          'note.json': json({
            labels: { label: 'Journal entry' },
            fields: { mood: { label: 'Feeling', options: { calm: 'Serene' } } },
            views: { busy_notes: { label: 'Busy', columns: ['body', 'created_at'], where: { mood: { $eq: 'busy' } }, orderBy: [{ field: 'created_at', order: 'desc' }] } },
          }),
          'memo.json': json({ labels: { label: 'Mine' } }),
          'nope.json': json({ labels: { label: 'x' } }),
        },
      },
    },
    broken: {
      'app.json': manifest('broken'),
      overrides: {
        objects: {
          'note.json': json({
            labels: { colour: 'x' },
            fields: { mood: { options: { stormy: 'Stormy' }, type: 'text' } },
            views: { all: { label: 'All', columns: ['body'], orderBy: [{ field: 'body', order: 'up' }] } },
          }),
        },
      },
    },
  });
  const ok = await loadApps([`${root}/base`, `${root}/extra`]);
  t.same(rows(ok.errors, root), [
    { code: 'METADATA_INVALID', file: 'extra/overrides/objects/memo.json', path: '(root)', reason: "app 'extra' declares 'memo' itself: change objects/memo instead of overriding it" },
    { code: 'METADATA_INVALID', file: 'extra/overrides/objects/nope.json', path: '(root)', reason: "overrides object 'nope', which no app declares (did you mean 'note'?)" },
  ]);
  t.same(ok.apps[1]!.overrides.map((o) => [o.object, o.app]), [['note', 'extra']], 'the valid override is loaded');
  t.same(ok.apps[1]!.overrides[0]!.patch.fields, { mood: { label: 'Feeling', options: { calm: 'Serene' } } });

  const bad = await loadApps([`${root}/base`, `${root}/broken`]);
  t.same(rows(bad.errors, root).map((r) => [r.path, r.reason]), [
    ['labels.colour', "unknown key 'colour'; allowed keys: label, pluralLabel, description"],
    ['fields.mood.type', "unknown key 'type'; allowed keys: label, help, options"],
    ['views.all.orderBy[0].order', "must be 'asc' or 'desc'"],
  ], 'schema problems; the semantic checks wait for a valid shape');
  t.ok(bad.errors.every((e) => e.details.file === `${root}/broken/overrides/objects/note.json`), 'every problem names the override file');
  t.same(bad.apps[1]!.overrides, [], 'an invalid override is not loaded');
});

t.test('package override semantics: fields, options, views', async (t) => {
  const root = t.testdir({
    base: { 'app.json': manifest('base'), objects: { 'note.json': json(note) } },
    broken: {
      'app.json': manifest('broken'),
      overrides: {
        objects: {
          'note.json': json({
            fields: { title: { label: 'Title' }, body: { options: { a: 'A' } }, mood: { options: { stormy: 'Stormy' } } },
            views: { All: { label: 'All', columns: ['body', 'nickname'], orderBy: [{ field: 'nickname', order: 'asc' }], where: { $where: 1, ghost: 2, $or: [{ mood: 'x' }, { spirit: 1 }, { mood: { $like: 'c%' } }] } } },
          }),
        },
      },
    },
  });
  const { errors, apps } = await loadApps([`${root}/base`, `${root}/broken`]);
  t.same(rows(errors, root).map((r) => [r.path, r.reason]), [
    ['fields.title', "'title' is not a declared field of note (declared: body, mood); adding a field needs a schema change, declare it in the object's file"],
    ['fields.body.options', "'body' is a text field; option labels apply to select and multiselect fields"],
    ['fields.mood.options.stormy', "'stormy' is not an option of note.mood (options: calm, busy); only labels of existing options change"],
    ['views.All', "view 'All' must be snake_case (lowercase letters, digits and single underscores, starting with a letter)"],
    ['views.All.columns[1]', "'nickname' is not a field of note"],
    ['views.All.orderBy[0].field', "'nickname' is not a field of note"],
    ['views.All.where.$where', "unknown logical operator '$where': use $and, $or or $not, or a field name"],
    ['views.All.where.ghost', "unknown field 'ghost' on object 'note'"],
    ['views.All.where.$or[1].spirit', "unknown field 'spirit' on object 'note'"],
    ['views.All.where.$or[2].mood.$like', "unknown operator '$like'; operators are $eq, $ne, $gt, $gte, $lt, $lte, $in, $nin, $between, $contains, $notContains, $startsWith, $endsWith, $null, $exists"],
  ]);
  t.same(apps[1]!.overrides, [], 'not loaded');
});
