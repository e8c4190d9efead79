/** A declaration whose CEL is over the cost bound fails the load with METADATA_INVALID naming its file and path. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { loadApps } from '../../metadata/loadApps.ts';

const TEN = '[0,1,2,3,4,5,6,7,8,9]';
/** Eight comprehensions over ten elements nested: 10^8 steps. */
function eightNested(body: string): string {
  let source = body;
  for (const v of 'hgfedcba') source = `${TEN}.all(${v}, ${source})`;
  return source;
}
const COSTLY = eightNested('a+b+c+d+e+f+g+h < 10000000');
const ESTIMATE = /^too costly: its estimated cost is [0-9,]+ steps and at most 100,000 are allowed/;

/** One app: these objects, actions and flows; answers the load's problems as rows. */
async function load(t: Test, files: { objects?: Record<string, unknown>; actions?: Record<string, unknown>; flows?: Record<string, unknown> }) {
  const dir = mkdtempSync(join(tmpdir(), 'osr-celcost-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'app.json'), JSON.stringify({ name: 'desk', version: '1.0.0', protocol: '^16.0.0' }));
  for (const [sub, entries] of Object.entries(files)) {
    mkdirSync(join(dir, sub));
    for (const [file, body] of Object.entries(entries ?? {})) writeFileSync(join(dir, sub, file), JSON.stringify(body));
  }
  const result = await loadApps([dir]);
  return result.errors.map((e) => ({ code: e.code, file: String(e.details.file).slice(dir.length + 1), path: String(e.details.path), reason: String(e.details.reason) }));
}

const TASK = { name: 'task', fields: { title: { type: 'text' }, done: { type: 'boolean' } } };

t.test('formulas, validation rules, field rules and row policies', async (t) => {
  const problems = await load(t, {
    objects: {
      'task.json': {
        ...TASK,
        fields: {
          ...TASK.fields,
          score: { type: 'formula', returns: 'boolean', expression: COSTLY },
          note: { type: 'text', visibleWhen: `record.title.matches('^(a|a)+$')` },
        },
        validationRules: [{ name: 'costly', expression: COSTLY, message: 'never' }],
        policies: [{ name: 'costly', condition: `record.done || ${COSTLY}`, access: 'read' }],
      },
    },
  });
  t.match(problems, [
    { code: 'METADATA_INVALID', file: 'objects/task.json', path: 'fields.score.expression', reason: ESTIMATE },
    { code: 'METADATA_INVALID', file: 'objects/task.json', path: 'fields.note.visibleWhen', reason: /^too costly: its matches\(\) pattern '\^\(a\|a\)\+\$' can take exponential time in a backtracking engine/ },
    { code: 'METADATA_INVALID', file: 'objects/task.json', path: 'validationRules[0].expression', reason: ESTIMATE },
    { code: 'METADATA_INVALID', file: 'objects/task.json', path: 'policies[0].condition', reason: ESTIMATE },
  ]);
  t.equal(problems.length, 4);
});

t.test('action values and flow conditions', async (t) => {
  const problems = await load(t, {
    objects: { 'task.json': TASK },
    actions: { 'close_task.json': { name: 'close_task', object: 'task', run: { type: 'update', set: { done: COSTLY } } } },
    flows: {
      'follow_up.json': {
        name: 'follow_up', type: 'autolaunched',
        steps: [{ id: 'check', type: 'branch', when: COSTLY, then: [{ id: 'pause', type: 'wait', seconds: 5 }], else: [] }],
      },
    },
  });
  t.match(problems, [
    { code: 'METADATA_INVALID', file: 'actions/close_task.json', path: 'run.set.done', reason: ESTIMATE },
    { code: 'METADATA_INVALID', file: 'flows/follow_up.json', path: 'steps[0].when', reason: ESTIMATE },
  ]);
  t.equal(problems.length, 2);
});

t.test('the same declarations within the bound load', async (t) => {
  const cheap = `${TEN}.all(a, ${TEN}.all(b, a + b < 100))`;
  const problems = await load(t, {
    objects: {
      'task.json': {
        ...TASK,
        fields: { ...TASK.fields, score: { type: 'formula', returns: 'boolean', expression: cheap }, note: { type: 'text', visibleWhen: `record.title.matches('^(a|b)+$')` } },
        validationRules: [{ name: 'cheap', expression: cheap, message: 'never' }],
      },
    },
    actions: { 'close_task.json': { name: 'close_task', object: 'task', run: { type: 'update', set: { done: cheap } } } },
    flows: { 'follow_up.json': { name: 'follow_up', type: 'autolaunched', steps: [{ id: 'check', type: 'branch', when: cheap, then: [{ id: 'pause', type: 'wait', seconds: 5 }], else: [] }] } },
  });
  t.same(problems, []);
});
