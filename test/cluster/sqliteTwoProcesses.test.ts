/**
 * Two runtimes on one SQLite data directory: a write in one is read fresh by the other (list, total,
 * aggregate, by id) within 100 ms, in 200 of 200 trials. Each looks at the file's `data_version`
 * before serving anything remembered (fileChanges.ts), so what the other wrote makes it forget.
 */
import t from 'tap';
import { bearer, signIn, sqliteSite } from '../auth/authHarness.ts';
import { freshReads } from '../harness/freshReads.ts';

const TRIALS = 200;
const BOUND_MS = 100;

t.test('two processes on one SQLite file stay correct together', async (t) => {
  const site = sqliteSite(t, ['shared']);
  const config = { apps: ['test/data/fixtures/nested-app'] };
  const a = await site.boot({ config });
  const b = await site.boot({ config });
  const tokenA = (await signIn(a)).token;
  const tokenB = (await signIn(b)).token;
  for (const [writer, reader, name] of [[a, b, 'A writes, B reads'], [b, a, 'B writes, A reads']] as const) {
    const reads = await freshReads(writer, bearer(writer === a ? tokenA : tokenB), reader, bearer(reader === a ? tokenA : tokenB));
    let fresh = 0;
    const late: string[] = [];
    for (let trial = 0; trial < TRIALS; trial++) {
      const expected = await reads.write(trial);
      const started = Date.now();
      let stale = await reads.stale(expected);
      while (stale.length > 0 && Date.now() - started < BOUND_MS) stale = await reads.stale(expected);
      if (stale.length === 0) fresh++;
      else late.push(`${trial}: ${stale.join(', ')}`);
    }
    t.equal(fresh, TRIALS, `${name}: fresh within ${BOUND_MS} ms in ${TRIALS} trials${late.length ? ` (stale: ${late.slice(0, 5).join('; ')})` : ''}`);
  }
});
