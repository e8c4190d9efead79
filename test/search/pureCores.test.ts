/** The pure parts of search: words, query terms, documents, index literals, plan fingerprints. */
import Database from 'better-sqlite3';
import t from 'tap';
import { tsqueryLiteral, tsvectorLiteral } from '../../plugins/search/postgresIndex.ts';
import { buildDocument, documentChanged, MAX_DOCUMENT_CHARS, searchPlan } from '../../plugins/search/searchPlan.ts';
import { matchExpression } from '../../plugins/search/sqliteIndex.ts';
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
  t.equal(matchExpression(terms), '"acme" "corp"*');
  t.equal(matchExpression({ terms: ['a"b'], prefix: false }), '"a""b"', 'a double quote is doubled');
  t.equal(tsqueryLiteral(terms), "'acme' & 'corp':*");
  t.equal(tsqueryLiteral({ terms: ["it's", 'a\\b'], prefix: false }), "'it''s' & 'a\\\\b'", 'quotes doubled, backslashes escaped');
  t.equal(tsvectorLiteral([['body', 'acme'], [], [], ['acme', 'corp']]), "'acme':1A,4D 'corp':2A 'body':3D", 'heaviest class first; each position carries its weight letter');
  t.equal(tsvectorLiteral([[], [], [], []]), '', 'an empty document is an empty vector');
  const repeated = tsvectorLiteral([Array.from({ length: 300 }, () => 'same'), [], [], []]);
  t.equal(repeated.split(',').length, 256, 'at most 256 positions per word');
});

t.test('user text passed raw breaks FTS5; the quoted expression does not', async (t) => {
  const db = new Database(':memory:');
  t.teardown(() => db.close());
  db.exec("create virtual table f using fts5(w1, w2, w3, w4, tokenize = 'unicode61 remove_diacritics 2')");
  db.prepare('insert into f (rowid, w1, w2, w3, w4) values (1, ?, ?, ?, ?)').run('', '', 'syntax mongoose', '');
  const match = (expression: string) => db.prepare('select rowid from f where f match ?').all(expression).map((r) => (r as { rowid: number }).rowid);
  for (const q of ['"unterminated', 'a AND', '(', 'title:x', 'NEAR(', '*', "it's"]) {
    t.throws(() => match(q), `raw ${JSON.stringify(q)} is an FTS5 syntax error`);
    const terms = queryTerms(q);
    t.doesNotThrow(() => (terms ? match(matchExpression(terms)) : []), `quoted ${JSON.stringify(q)} is not`);
  }
  t.same(match('mongoose OR zebra'), [1], 'raw, OR is an operator');
  t.same(match(matchExpression(queryTerms('mongoose OR zebra')!)), [], 'quoted, it is a word to find');
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

t.test('buildDocument groups words by weight and caps the text', async (t) => {
  const indexed = searchPlan([article]).get('article')!;
  t.same(buildDocument(indexed, { title: 'Acme Corp', body: 'Big deal', code: 'HIDDEN-CODE', kind: 'b' }), [['big', 'deal', 'b'], [], ['acme', 'corp'], []], 'unsearchable fields are not indexed');
  t.same(buildDocument(indexed, { title: null }), [[], [], [], []], 'null and missing fields add nothing');
  const huge = buildDocument(indexed, { body: 'word '.repeat(MAX_DOCUMENT_CHARS) });
  t.equal(huge[0].length, MAX_DOCUMENT_CHARS / 5, `about ${MAX_DOCUMENT_CHARS} characters are indexed`);
  t.equal(documentChanged(indexed, { title: 'a', code: 'x' }, { title: 'a', code: 'y' }), false, 'an unsearchable change does not touch the index');
  t.equal(documentChanged(indexed, { title: 'a' }, { title: 'b' }), true, 'a searchable one does');
  t.equal(documentChanged(indexed, { body: null }, {}), false, 'null and absent are the same');
});
