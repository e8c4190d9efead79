/**
 * The guard list of `npm run audit:guards` stays current with the code: every mutation still
 * applies (its original text found exactly once, the mutated file parses, its test files exist).
 * The audit itself is too slow for CI; this check is not.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { GUARDS } from './guardList.ts';
import { problemOf } from './problemOf.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

t.test('every guard mutation of the audit applies', async (t) => {
  t.ok(GUARDS.length >= 100, `the list holds ${GUARDS.length} guards`);
  t.equal(new Set(GUARDS.map((g) => g.id)).size, GUARDS.length, 'ids are unique');
  const problems = GUARDS.map((g) => {
    const path = join(ROOT, g.file);
    const problem = problemOf(g, existsSync(path) ? readFileSync(path, 'utf8') : null);
    return problem === null ? null : `${g.id}: ${problem}`;
  }).filter((p) => p !== null);
  t.same(problems, [], 'no stale guard (update test/guards/guardList.ts with the code it names)');
});
