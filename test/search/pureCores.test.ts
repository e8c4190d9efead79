/** The pure parts of search: words, query terms, documents, index literals, entry digests, plan fingerprints. */
import t from 'tap';
import { tsqueryLiteral, tsvectorLiteral } from '../../plugins/search/postgresIndex.ts';
import { buildDocument, documentChanged, entryChanges, knownWords, MAX_DOCUMENT_CHARS, searchPlan } from '../../plugins/search/searchPlan.ts';
import { sameEntries } from '../../plugins/search/repairDrift.ts';
import { MAX_QUERY_TERMS, queryTerms, tokenize } from '../../plugins/search/tokenize.ts';
import { resolvedObject } from '../harness/fixtures.ts';

t.test('tokenize folds case, accents and compatibility forms, and splits on everything else', async (t) => {
  t.same(tokenize('Crème BRÛLÉE, façade!'), ['creme', 'brulee', 'facade']);
  t.same(tokenize('ＦＵＬＬ width ﬁne'), ['full', 'width', 'fine'], 'full-width letters and ligatures decompose');
  t.same(tokenize('john.doe@example.com +1 (555) 010-99'), ['john', 'doe', 'example', 'com', '1', '555', '010', '99']);
  t.same(tokenize('"quoted" AND (x OR y) NEAR:* \'it\'s\' & | !'), ['quoted', 'and', 'x', 'or', 'y', 'near', 'it', 's']);
  t.same(tokenize('東京 Ελληνικά Straße'), ['東京', 'ελληνικα', 'straße'], 'other scripts are words too; ß is not expanded');
  t.same(tokenize(`a ${'x'.repeat(201)} b ${'y'.repeat(200)}`), ['a', 'b', 'y'.repeat(200)], 'words over 200 characters are left out');
  t.same(tokenize(''), []);
});

t.test('queryTerms: distinct words, a prefix for the word being typed', async (t) => {
  t.equal(queryTerms('!!! ...'), null, 'no word: nothing to search');
  t.same(queryTerms('Acme corp'), { terms: ['acme', 'corp'], prefix: true });
  t.same(queryTerms('acme corp '), { terms: ['acme', 'corp'], prefix: false }, 'a trailing separator ends the word');
  t.same(queryTerms('acme co'), { terms: ['acme', 'co'], prefix: false }, 'two letters are too short to be a prefix');
  t.same(queryTerms('acme corp ACME'), { terms: ['corp', 'acme'], prefix: true }, 'repeats count once; the word typed last stays last');
  const many = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
  t.same(queryTerms(many), { terms: Array.from({ length: MAX_QUERY_TERMS }, (_, i) => `word${i}`), prefix: false }, `at most ${MAX_QUERY_TERMS} terms, and then no prefix`);
});

t.test('index query literals quote every term', async (t) => {
  const terms = { terms: ['acme', 'corp'], prefix: true };
  t.equal(tsqueryLiteral(terms), "'acme' & 'corp':*");
  t.equal(tsqueryLiteral(terms, ' | '), "'acme' | 'corp':*", 'or any term');
  t.equal(tsqueryLiteral({ terms: ["it's", 'a\\b'], prefix: false }), "'it''s' & 'a\\\\b'", 'quotes doubled, backslashes escaped');
});

t.test('tsvectorLiteral writes a field as PostgreSQL prints it', async (t) => {
  t.equal(tsvectorLiteral({ field: 'title', weight: 4, words: ['corp', 'acme', 'corp'] }), "'acme':2A 'corp':1A,3A", 'words in byte order, each position with the weight letter');
  t.equal(tsvectorLiteral({ field: 'body', weight: 1, words: ['b', 'a'] }), "'a':2 'b':1", 'no letter for D (weight 1)');
  t.equal(tsvectorLiteral({ field: 'body', weight: 2, words: ['é', 'z', 'ab', 'a'] }), "'a':4C 'ab':3C 'z':2C 'é':1C", 'a prefix first, then bytes (é is 0xC3 0xA9)');
  const repeated = tsvectorLiteral({ field: 'body', weight: 1, words: Array.from({ length: 300 }, () => 'same') });
  t.equal(repeated.split(',').length, 256, 'at most 256 positions per word');
  const long = tsvectorLiteral({ field: 'body', weight: 1, words: [...Array.from({ length: 16_383 }, () => 'x'), 'late'] });
  t.match(long, /^'late' 'x':1,2,/, 'a word past position 16383 is kept without a position');
});

t.test('sameEntries compares fields and digests in any order', async (t) => {
  const a = [{ field: 'title', digest: '1' }, { field: 'body', digest: '2' }];
  t.ok(sameEntries(a, [...a].reverse()), 'order does not matter');
  t.notOk(sameEntries(a, [{ field: 'title', digest: '1' }]), 'a lost entry is drift');
  t.notOk(sameEntries(a, [{ field: 'title', digest: '1' }, { field: 'body', digest: '3' }]), 'other text is drift');
  t.notOk(sameEntries(a, [{ field: 'title', digest: '2' }, { field: 'body', digest: '1' }]), 'text moved to another field is drift');
  t.ok(sameEntries([], []), 'a record without words has no entries');
});

const article = resolvedObject('article', {
  title: { type: 'text', searchable: true },
  body: { type: 'textarea', searchable: true },
  code: { type: 'text' },
  kind: { type: 'select', options: ['a', 'b'], searchable: true },
}, { search: { weights: { title: 3, body: 1, kind: 1 } } });

t.test('searchPlan: searchable fields and weights; the fingerprint follows them', async (t) => {
  const plan = searchPlan([article, resolvedObject('plain', { code: { type: 'text' } })]);
  t.same([...plan.keys()], ['article'], 'objects without searchable fields have no index');
  t.same(plan.get('article')!.fields, [{ name: 'title', weight: 3 }, { name: 'body', weight: 1 }, { name: 'kind', weight: 1 }]);
  t.equal(plan.get('article')!.pageSize, 200, 'rebuild pages stay within maxPageSize');
  const unweighted = resolvedObject('article', { title: { type: 'text', searchable: true }, body: { type: 'textarea', searchable: true } });
  t.same(searchPlan([unweighted]).get('article')!.fields, [{ name: 'title', weight: 1 }, { name: 'body', weight: 1 }], 'weight 1 unless declared');
  const fingerprint = (object: typeof article) => searchPlan([object]).get('article')!.fingerprint;
  t.equal(fingerprint(article), fingerprint({ ...article }), 'stable');
  t.not(fingerprint(article), fingerprint({ ...article, search: { weights: { title: 4, body: 1, kind: 1 } } }), 'changes with a weight');
  t.not(fingerprint(article), fingerprint({ ...article, fields: { ...article.fields, code: { ...article.fields.code!, searchable: true } } }), 'changes with a searchable field');
});

t.test('buildDocument: an entry per field, the text capped', async (t) => {
  const indexed = searchPlan([article]).get('article')!;
  t.same(buildDocument(indexed, { title: 'Acme Corp', body: 'Big deal', code: 'HIDDEN-CODE', kind: 'b' }), [
    { field: 'title', weight: 3, words: ['acme', 'corp'] },
    { field: 'body', weight: 1, words: ['big', 'deal'] },
    { field: 'kind', weight: 1, words: ['b'] },
  ], 'an entry per searchable field, in declaration order; unsearchable fields are not indexed');
  t.same(buildDocument(indexed, { title: null, body: '!!!' }), [], 'null, missing and wordless fields have no entry');
  const huge = buildDocument(indexed, { title: 'first', body: 'word '.repeat(MAX_DOCUMENT_CHARS), kind: 'a' });
  t.equal(huge[1]!.words.length, Math.floor((MAX_DOCUMENT_CHARS - 6) / 5), `about ${MAX_DOCUMENT_CHARS} characters are indexed over the whole record`);
  t.same(huge.map((e) => e.field), ['title', 'body'], 'fields past the cap have no entry');
  t.equal(documentChanged(indexed, { title: 'a', code: 'x' }, { title: 'a', code: 'y' }), false, 'an unsearchable change does not touch the index');
  t.equal(documentChanged(indexed, { title: 'a' }, { title: 'b' }), true, 'a searchable one does');
  t.equal(documentChanged(indexed, { body: null }, {}), false, 'null and absent are the same');
});

t.test('buildDocument with words made before (knownWords): the same document, words of a changed value made anew', async (t) => {
  const indexed = searchPlan([article]).get('article')!;
  const records = [
    { title: 'Acme Corp', body: 'Big deal', kind: 'b' },
    // The first field's words are cut with 2 characters of the budget left: a word of 1 after it is still not indexed.
    { title: 'x'.repeat(97) + ' word'.repeat(MAX_DOCUMENT_CHARS / 5), body: 'a', kind: 'b' },
    { title: 'first', body: 'word '.repeat(MAX_DOCUMENT_CHARS), kind: 'a' },
    { title: 'short', body: `${'w'.repeat(199)} `.repeat(MAX_DOCUMENT_CHARS / 200 - 1), kind: 'tail words here' },
  ];
  for (const [i, record] of records.entries()) {
    t.same(buildDocument(indexed, record, knownWords(indexed, record)), buildDocument(indexed, record), `record ${i}: the same document`);
  }
  t.same(buildDocument(indexed, records[1]!).map((e) => [e.field, e.words.length]), [['title', 19_981]], 'a field cut at the budget ends the document, whatever budget it left');
  const known = knownWords(indexed, { title: 'Sent title', body: 'sent body' });
  t.same(buildDocument(indexed, { title: 'Sent title', body: 'stored body' }, known), [
    { field: 'title', weight: 3, words: ['sent', 'title'] },
    { field: 'body', weight: 1, words: ['stored', 'body'] },
  ], 'a value that is not the one the words were made of is split anew');
  t.same(known.get('body')?.words, ['stored', 'body'], 'and kept for a second document of the same values');
});

t.test('entryChanges: an update writes the entries whose words changed and drops the emptied ones', async (t) => {
  const entry = (field: string, words: string[]) => ({ field, weight: 1 as const, words });
  const before = [entry('title', ['acme']), entry('body', ['old', 'text']), entry('kind', ['a'])];
  t.same(entryChanges(before, [entry('title', ['acme']), entry('body', ['new', 'text']), entry('notes', ['added'])]), {
    write: [entry('body', ['new', 'text']), entry('notes', ['added'])],
    drop: ['kind', 'body'],
  }, 'body rewritten, notes added, kind emptied; title untouched');
  t.same(entryChanges(before, before), { write: [], drop: [] }, 'nothing changed, nothing written');
});
