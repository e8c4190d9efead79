/** The cost bound of CEL: estimated when an expression is checked, metered while it runs, matches() on RE2. */
import t from 'tap';
import { compileActionExpression } from '../../metadata/cel/compileActionExpression.ts';
import { compileExpression } from '../../metadata/cel/compileExpression.ts';
import { compileFlowExpression, flowEnvironment } from '../../metadata/cel/compileFlowExpression.ts';
import { ambiguousRepetition } from '../../metadata/cel/ambiguousRepetition.ts';
import { CEL_LIMITS } from '../../metadata/cel/celLimits.ts';
import { evaluateConstantExpression } from '../../metadata/cel/evaluateConstant.ts';
import { metered } from '../../metadata/cel/meterEvaluation.ts';
import type { FieldDefinition } from '../../metadata/types.ts';

const TEN = '[0,1,2,3,4,5,6,7,8,9]';
/** Comprehensions over ten-element lists nested `depth` deep: 10^depth steps of the innermost body. */
function nested(depth: number, body: string, macro = 'all'): string {
  let source = body;
  for (let i = depth - 1; i >= 0; i--) source = `${TEN}.${macro}(${'abcdefghij'[i]}, ${source})`;
  return source;
}
const EIGHT_NESTED = nested(8, 'a+b+c+d+e+f+g+h < 10000000');
const BACKTRACKING = "'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!'.matches('^(a|a)+$') ? 'x' : 'y'";

const fields: Record<string, FieldDefinition> = {
  title: { type: 'text' },
  pattern: { type: 'text' },
  items: { type: 'json' },
  tags: { type: 'multiselect', options: ['t0'] },
};
const deal = { name: 'deal', fields };
const where = { file: 'objects/deal.json', path: 'validationRules[0].expression' };

/** A string doubled `times` times from 64 characters, through cel.bind. */
function doubling(times: number): string {
  const names = Array.from({ length: times + 1 }, (_, i) => `v${i}`);
  let source = `size(${names[times]}) > 0`;
  for (let i = times; i >= 1; i--) source = `cel.bind(${names[i]}, ${names[i - 1]} + ${names[i - 1]}, ${source})`;
  return `cel.bind(v0, '${'x'.repeat(64)}', ${source})`;
}

t.test('a caller expression over the estimate is QUERY_TOO_COSTLY before it runs', async (t) => {
  t.equal(EIGHT_NESTED.length, 266);
  const started = performance.now();
  t.throws(() => evaluateConstantExpression(EIGHT_NESTED), {
    code: 'QUERY_TOO_COSTLY', status: 400,
    details: { limit: 'celCost', max: CEL_LIMITS.maxCost, reason: /estimated cost is [0-9,]+ steps and at most 100,000 are allowed/, fix: /nest fewer comprehensions/ },
  });
  for (const macro of ['exists', 'map', 'exists_one']) {
    t.throws(() => evaluateConstantExpression(nested(8, 'a == b', macro)), { code: 'QUERY_TOO_COSTLY', details: { limit: 'celCost' } }, macro);
  }
  t.ok(performance.now() - started < 2000, `refused without running (${(performance.now() - started).toFixed(1)} ms for four)`);
  t.equal(evaluateConstantExpression(nested(3, 'a+b+c >= 0')), true, 'three levels (1,000 steps) run');
});

t.test('a pattern that backtracks is refused; matches() runs on RE2', async (t) => {
  t.throws(() => evaluateConstantExpression(BACKTRACKING), {
    code: 'QUERY_TOO_COSTLY', status: 400,
    details: { limit: 'celPattern', reason: /pattern '\^\(a\|a\)\+\$' can take exponential time in a backtracking engine: it repeats \(a\|a\), whose alternatives can start with the same character/ },
  });
  t.equal(evaluateConstantExpression("'abc'.matches('(?i)^ABC$')"), true, 'RE2 flags (JavaScript RegExp refuses this pattern)');
  t.equal(evaluateConstantExpression("'a\\nb'.matches('a.b')"), false, 'RE2: . does not match a newline');
  t.equal(evaluateConstantExpression(`'${'a'.repeat(1900)}!'.matches('^a+$')`), false);
  t.throws(() => evaluateConstantExpression("'abc'.matches('a(?=b)')"), {
    code: 'VALIDATION_ERROR', details: { reason: /invalid regular expression 'a\(\?=b\)': .*matches\(\) takes RE2 syntax/ },
  }, 'refused when checked: lookaround is not RE2');
  t.throws(() => evaluateConstantExpression(`'a'.matches('${'a'.repeat(1001)}')`), { code: 'QUERY_TOO_COSTLY', details: { limit: 'celPattern', max: 1000 } });
});

t.test('a pattern known only at run time is checked when it runs', async (t) => {
  const rule = compileExpression('record.title.matches(record.pattern)', deal, 'boolean', where);
  t.equal(rule.evaluate({ title: 'abc', pattern: '^a' }), true);
  t.throws(() => rule.evaluate({ title: 'a'.repeat(40) + '!', pattern: '^(a+)+$' }), {
    code: 'VALIDATION_ERROR', details: { limit: 'celPattern', reason: /it repeats \(a\+\), which repeats on its own/ },
  });
  t.throws(() => rule.evaluate({ title: 'abc', pattern: '(' }), { code: 'VALIDATION_ERROR', details: { reason: /invalid regular expression '\('/ } });
});

t.test('an evaluation past the step bound stops, whatever absorbs its errors', async (t) => {
  const pairs = compileExpression('record.tags.all(a, record.tags.all(b, a != b || a == b))', deal, 'boolean', where);
  const tags = (n: number) => Array.from({ length: n }, (_, i) => `t${i}`);
  t.equal(pairs.evaluate({ tags: tags(30) }), true, '30 x 30 runs');
  // 2,000 x 2,000 goes past the steps in a few ms; on a machine busy enough the deadline may come first.
  t.throws(() => pairs.evaluate({ tags: tags(2000) }), { code: 'VALIDATION_ERROR', details: { limit: /^cel(Steps|TimeoutMs)$/, reason: /and was stopped$/ } }, '2,000 x 2,000 is stopped');
  t.throws(() => evaluateConstantExpression(doubling(20)), {
    code: 'QUERY_TOO_COSTLY', details: { limit: 'celSteps', max: CEL_LIMITS.maxSteps, reason: /its evaluation went past 100,000 steps and was stopped$/ },
  }, 'a string doubled 20 times counts its characters');
  t.equal(evaluateConstantExpression(doubling(8)), true, 'doubled 8 times (16 KB) it runs');
  t.throws(() => evaluateConstantExpression(`${doubling(20)} || true`), { code: 'QUERY_TOO_COSTLY', details: { limit: 'celSteps' } }, '|| does not absorb it');
  t.throws(() => evaluateConstantExpression(`[1, 2].exists(x, x == 2 || ${doubling(20)})`), { code: 'QUERY_TOO_COSTLY', details: { limit: 'celSteps' } }, 'nor exists');
});

t.test('errors caught inside an expression count', async (t) => {
  // 10,000 division errors, each caught by exists: 100 steps each, past the bound after 1,000 of them, long before the deadline.
  t.throws(() => evaluateConstantExpression(`${nested(4, 'a / 0 == 1', 'exists')} || true`), { code: 'QUERY_TOO_COSTLY', details: { limit: 'celSteps' } });
});

t.test('an evaluation past the deadline stops', async (t) => {
  const rule = compileExpression(nested(3, 'true'), deal, 'boolean', where);
  t.equal(rule.evaluate({}), true);
  t.throws(() => metered(() => {
    const until = performance.now() + CEL_LIMITS.timeoutMs + 20;
    while (performance.now() < until);
    return rule.evaluate({});
  }), { code: 'VALIDATION_ERROR', details: { limit: 'celTimeoutMs', max: CEL_LIMITS.timeoutMs, reason: `its evaluation ran longer than ${CEL_LIMITS.timeoutMs} ms and was stopped` } },
  'an evaluation inside a metered block shares its deadline');
});

t.test('an expression too long to parse cheaply is refused', async (t) => {
  t.throws(() => compileExpression(Array(3400).fill('1').join(' + '), deal, 'integer', { file: 'objects/deal.json', path: 'fields.n.expression' }), {
    code: 'METADATA_INVALID', details: { path: 'fields.n.expression', reason: /^too costly: it holds 13,597 characters and at most 10,000 are allowed/ },
  });
});

t.test('admin expressions over the estimate fail their load naming file and path', async (t) => {
  t.throws(() => compileExpression(EIGHT_NESTED, deal, 'boolean', where), {
    code: 'METADATA_INVALID',
    details: { file: 'objects/deal.json', path: 'validationRules[0].expression', reason: /^too costly: its estimated cost is [0-9,]+ steps and at most 100,000 are allowed/ },
  });
  t.throws(() => compileExpression('record.items.all(a, record.items.all(b, record.items.all(c, a == b)))', deal, 'boolean', where), {
    code: 'METADATA_INVALID', details: { reason: /too costly: .*a list of unknown size counts as 50 elements/ },
  }, 'three levels over lists of unknown size');
  t.throws(() => compileExpression(`record.title.matches('(x+x+)+y')`, deal, 'boolean', where), {
    code: 'METADATA_INVALID', details: { reason: /^too costly: its matches\(\) pattern '\(x\+x\+\)\+y' can take exponential time/ },
  });
  const flowScope = { input: {}, steps: new Map() };
  t.throws(() => compileFlowExpression(EIGHT_NESTED, flowScope, flowEnvironment(flowScope), { kind: 'bool' }, { file: 'flows/f.json', path: 'steps[0].when' }), {
    code: 'METADATA_INVALID', details: { file: 'flows/f.json', path: 'steps[0].when', reason: /^too costly/ },
  });
  t.throws(() => compileActionExpression(`${EIGHT_NESTED} ? 'a' : 'b'`, { input: {} }, { type: 'text' }, { file: 'actions/a.json', path: 'run.set.title' }), {
    code: 'METADATA_INVALID', details: { file: 'actions/a.json', path: 'run.set.title', reason: /^too costly/ },
  });
});

t.test('patterns that backtrack, and patterns that do not', async (t) => {
  for (const pattern of ['^(a|a)+$', '(a+)+', '(a*)*', '(\\w+\\s?)*$', '(\\d|\\w)*', '(a|ab)*', '((a|a))+', '(?:a+){2,}', '(x+x+)+y', '(?i)(a|A)+', '(a|)+', '(.*a){2,10}']) {
    t.ok(ambiguousRepetition(pattern), `refused: ${pattern}`);
  }
  for (const pattern of ['^[\\w.+-]+@([\\w-]+\\.)+[a-z]{2,}$', '^(\\d{3}-)?\\d{4}$', '(\\s*,\\s*)*', '^[a-z0-9]+(-[a-z0-9]+)*$', '(a|b)+', '(?i)(a|b)+',
    '^(https?|ftp)://', '(\\.[a-z]+|/[a-z]*)*', 'a+b+', '[(]+', '\\(a+\\)+', '(ab)+', '\\Qa+\\E+', '(?P<x>a|b)+', '([^,]*,)*', '(\\D+\\d)+']) {
    t.equal(ambiguousRepetition(pattern), null, `accepted: ${pattern}`);
  }
});
