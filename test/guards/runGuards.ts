/**
 * `npm run audit:guards`: the guard audit. Applies each mutation of the guard list
 * (test/guards/guardList.ts) on its own, runs the guard's test files, restores the file, and
 * prints killed/survived per guard and a total. Exits 1 when a guard survives or its mutation
 * no longer applies (its original line is not found exactly once), 2 on bad arguments.
 *
 *   npm run audit:guards                          # every guard
 *   npm run audit:guards -- --only rowScope.viewAllNotModifyAll,bans.temporary
 *   npm run audit:guards -- --area bans           # the guards of one area
 *   npm run audit:guards -- --list                # the list, nothing run
 *   npm run audit:guards -- --check               # every mutation applies (found once, parses), nothing run
 *   npm run audit:guards -- --baseline            # first the selected tests without any mutation (must pass)
 *   npm run audit:guards -- --last a.b,c.d        # every guard, these at the end
 *   npm run audit:guards -- --jobs 2              # two guards at a time, each in its own copy of the tree
 *
 * Tests run with --bail: a mutant is killed at the first failing assertion, so its run is short.
 * The file under mutation is restored from a saved copy whatever happens: the copy is written to
 * test/guards/.mutated.json before the change, restored on exit, Ctrl-C, SIGTERM and crashes,
 * and restored at the start of the next run if the process was killed outright.
 *
 * With --jobs N (N > 1) the checkout itself is never changed: each job mutates its own copy of the
 * tree (under the system's temporary folder, node_modules linked), and two guards whose test files
 * overlap never run at once (a test file is not written to run beside itself: fixed environment
 * ids, ports).
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GUARDS, type Guard } from './guardList.ts';
import { problemOf } from './problemOf.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SAVED = join(ROOT, 'test/guards/.mutated.json');
/** Each guard's tap output, for reading why it was killed (or not). */
const LOGS = join(tmpdir(), 'osr-guard-audit');

interface Saved { file: string; content: string; pid: number }

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Another audit running in this worktree (its mutated file must be left alone), or null. */
function otherRun(): number | null {
  if (!existsSync(SAVED)) return null;
  const { pid } = JSON.parse(readFileSync(SAVED, 'utf8')) as Saved;
  return pid !== process.pid && alive(pid) ? pid : null;
}

/** Puts back the file this run, or a previous one that died (a kill -9, a power cut), left mutated. */
function restoreSaved(): string | null {
  if (!existsSync(SAVED)) return null;
  const saved = JSON.parse(readFileSync(SAVED, 'utf8')) as Saved;
  if (saved.pid !== process.pid && alive(saved.pid)) return null;
  writeFileSync(join(ROOT, saved.file), saved.content);
  rmSync(SAVED);
  return saved.file;
}

const children = new Set<ReturnType<typeof spawn>>();

/** Ends the running taps and the test processes they started (each its own process group). */
function stopChild(): void {
  for (const child of children) {
    if (!child.pid) continue;
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      // Already gone.
    }
  }
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    stopChild();
    const file = restoreSaved();
    process.stderr.write(`\n${signal}: ${file ? `${file} restored` : 'nothing to restore'}; audit stopped.\n`);
    process.exit(130);
  });
}
process.on('exit', () => { restoreSaved(); });
process.on('uncaughtException', (error) => {
  stopChild();
  restoreSaved();
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});

interface TapRun { code: number; failures: string[]; ms: number; output: string }

/** `bail`: stop at the first failing assertion (a mutant is killed as soon as one test notices). */
function runTests(tests: string[], bail: boolean, cwd = ROOT): Promise<TapRun> {
  const started = Date.now();
  return new Promise((done) => {
    const out: string[] = [];
    const child = spawn('npx', ['tap', '--disable-coverage', '-j1', '--timeout=300', ...(bail ? ['--bail'] : []), ...tests], {
      cwd, env: { ...process.env, CI: 'true' }, stdio: ['ignore', 'pipe', 'pipe'], detached: true,
    });
    children.add(child);
    child.stdout!.on('data', (b: Buffer) => out.push(b.toString()));
    child.stderr!.on('data', (b: Buffer) => out.push(b.toString()));
    child.on('close', (code) => {
      children.delete(child);
      const lines = out.join('').split('\n');
      // The deepest failing assertions, as tap names them (their parents repeat them).
      const failures = lines.map((l) => l.trim()).filter((l) => /^not ok \d+ - /.test(l) || l.startsWith('Bail out!')).map((l) => l.replace(/^not ok \d+ - /, '').replace(/^Bail out! /, '').replace(/ # time=.*$/, '').slice(0, 160));
      done({ code: code ?? 1, failures, ms: Date.now() - started, output: out.join('') });
    });
  });
}

function parseArgs(argv: string[]) {
  const opts = { only: null as string[] | null, last: [] as string[], area: null as string | null, list: false, check: false, baseline: false, jobs: 1 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--only') opts.only = (argv[++i] ?? '').split(',').filter(Boolean);
    else if (a === '--area') opts.area = argv[++i] ?? '';
    else if (a === '--last') opts.last = (argv[++i] ?? '').split(',').filter(Boolean);
    else if (a === '--list') opts.list = true;
    else if (a === '--check') opts.check = true;
    else if (a === '--baseline') opts.baseline = true;
    else if (a === '--jobs') {
      opts.jobs = Number(argv[++i]);
      if (!Number.isInteger(opts.jobs) || opts.jobs < 1 || opts.jobs > 8) {
        process.stderr.write('--jobs takes a whole number from 1 to 8\n');
        process.exit(2);
      }
    }
    else {
      process.stderr.write(`unknown argument ${a}; see the head of test/guards/runGuards.ts\n`);
      process.exit(2);
    }
  }
  return opts;
}

/** A full run's output, kept in the repository (test/guards/LAST_RUN.md) as bench/README.md keeps results. */
/** The commit the run started at (the tree its copies were made of). */
const COMMIT = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim();

function writeLastRun(said: string[], started: number, minutes: string, progress: string | null, jobs: number): void {
  const commit = COMMIT;
  const text = [
    '# Guard audit: last full run',
    '',
    'Written by `npm run audit:guards` at the end of a run over the whole list (test/guards/guardList.ts);',
    'see docs/access.md, "How the guards are tested".',
    '',
    progress
      ? `- Started ${new Date(started).toISOString()} at commit ${commit || 'unknown'}; NOT FINISHED: ${progress} after ${minutes} min (stopped or still running).`
      : `- Started ${new Date(started).toISOString()}, took ${minutes} min, at commit ${commit || 'unknown'}.`,
    `- ${jobs} guard${jobs === 1 ? '' : 's'} at a time (--jobs ${jobs}); machine: ${cpus().length} cores, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} at the end (shared with other work).`,
    '',
    '```',
    ...said,
    '```',
    '',
  ].join('\n');
  writeFileSync(join(ROOT, 'test/guards/LAST_RUN.md'), text);
}

/**
 * `n` copies of the tree (without .git and node_modules, which is linked), one per job, so that
 * jobs mutate files apart and the checkout itself stays as it is.
 */
function copiesOfTree(n: number): string[] {
  const base = join(tmpdir(), `osr-guard-copies-${process.pid}`);
  rmSync(base, { recursive: true, force: true });
  const skipped = new Set(['node_modules', '.git', '.tap', 'test/guards/.mutated.json']);
  return Array.from({ length: n }, (_, i) => {
    const root = join(base, String(i + 1));
    cpSync(ROOT, root, { recursive: true, filter: (source) => !skipped.has(relative(ROOT, source)) });
    symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'));
    return root;
  });
}

/** Runs the guard's tests with its mutation applied in the tree at `root`, then restores the file. */
async function mutated(g: Guard, root: string): Promise<TapRun> {
  const path = join(root, g.file);
  const content = readFileSync(path, 'utf8');
  // Only the checkout needs a saved copy: a copy of the tree is thrown away at the end.
  if (root === ROOT) writeFileSync(SAVED, JSON.stringify({ file: g.file, content, pid: process.pid } satisfies Saved));
  writeFileSync(path, content.replace(g.original, g.mutation));
  try {
    return await runTests(g.tests, true, root);
  } finally {
    writeFileSync(path, content);
    if (root === ROOT) rmSync(SAVED, { force: true });
  }
}

/**
 * Runs `work` for each guard, one per free root, in list order except that a guard waits while
 * another guard using one of its test files runs.
 */
function inTurn(guards: Guard[], roots: string[], work: (g: Guard, root: string) => Promise<void>): Promise<void> {
  const queue = [...guards];
  const running = new Set<Guard>();
  const free = [...roots];
  return new Promise((done, fail) => {
    const next = () => {
      if (queue.length === 0 && running.size === 0) return done();
      while (free.length > 0) {
        const busy = new Set([...running].flatMap((g) => g.tests));
        const i = queue.findIndex((g) => !g.tests.some((t) => busy.has(t)));
        if (i < 0) return;
        const g = queue.splice(i, 1)[0]!;
        const root = free.pop()!;
        running.add(g);
        work(g, root).then(() => {
          running.delete(g);
          free.push(root);
          next();
        }, fail);
      }
    };
    next();
  });
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(0)}s`;

async function main(): Promise<number> {
  const opts = parseArgs(process.argv.slice(2));
  const other = otherRun();
  if (other !== null) {
    process.stderr.write(`another guard audit (pid ${other}) is running in this worktree with a file mutated: wait for it, or stop it (Ctrl-C restores the file)\n`);
    return 2;
  }
  const left = restoreSaved();
  if (left) console.log(`${left} was left mutated by an interrupted run: restored from its saved copy.`);
  const ids = new Set<string>();
  for (const g of GUARDS) {
    if (ids.has(g.id)) throw new Error(`guard id ${g.id} is listed twice`);
    ids.add(g.id);
  }
  const unknown = [...opts.only ?? [], ...opts.last].filter((id) => !ids.has(id));
  if (unknown.length > 0) {
    process.stderr.write(`unknown guard ids: ${unknown.join(', ')}\n`);
    return 2;
  }
  const chosen = GUARDS.filter((g) => (!opts.only || opts.only.includes(g.id)) && (!opts.area || g.area === opts.area));
  // --last: guards checked recently go to the end, so an interrupted run has checked the others.
  const selected = [...chosen.filter((g) => !opts.last.includes(g.id)), ...chosen.filter((g) => opts.last.includes(g.id))];
  if (opts.list) {
    for (const g of selected) console.log(`${g.id}\t${g.area}\t${g.file}\t${g.tests.join(' ')}\n\t- ${g.original}\n\t+ ${g.mutation}`);
    console.log(`${selected.length} guards in ${new Set(selected.map((g) => g.area)).size} areas`);
    return 0;
  }
  const started = Date.now();
  const full = !opts.only && !opts.area && !opts.check;
  const said: string[] = [];
  const say = (line: string) => {
    said.push(line);
    console.log(line);
  };
  const read = (file: string) => (existsSync(join(ROOT, file)) ? readFileSync(join(ROOT, file), 'utf8') : null);
  const stale = selected.map((g) => ({ g, problem: problemOf(g, read(g.file)) })).filter((s) => s.problem !== null);
  for (const s of stale) say(`STALE     ${s.g.id}: ${s.problem}`);
  if (opts.check) {
    console.log(`${selected.length - stale.length} of ${selected.length} mutations apply`);
    return stale.length > 0 ? 1 : 0;
  }
  say(`Guard audit: ${selected.length} guards in ${new Set(selected.map((g) => g.area)).size} areas, ${new Set(selected.flatMap((g) => g.tests)).size} test files (tap --disable-coverage -j1, CI=true, SQLite and PostgreSQL), ${opts.jobs} at a time`);
  mkdirSync(LOGS, { recursive: true });
  say(`tap output of each guard: ${LOGS}/<id>.tap`);
  if (opts.baseline) {
    const tests = [...new Set(selected.flatMap((g) => g.tests))];
    const base = await runTests(tests, false);
    say(`baseline: ${tests.length} test files unmutated ${base.code === 0 ? 'pass' : `FAIL (${base.failures.slice(0, 3).join('; ')})`} in ${seconds(base.ms)}`);
    if (base.code !== 0) return 1;
  }
  const results: Array<{ g: Guard; verdict: 'killed' | 'survived' | 'stale' }> = stale.map((s) => ({ g: s.g, verdict: 'stale' as const }));
  const pending = selected.filter((g) => !stale.some((s) => s.g === g));
  const roots = opts.jobs > 1 ? copiesOfTree(Math.min(opts.jobs, pending.length)) : [ROOT];
  const record = (g: Guard, run: TapRun) => {
    writeFileSync(join(LOGS, `${g.id}.tap`), run.output);
    const killed = run.code !== 0;
    results.push({ g, verdict: killed ? 'killed' : 'survived' });
    const by = killed ? ` by ${run.failures[0] ?? `exit ${run.code}`}` : '';
    say(`${killed ? 'KILLED  ' : 'SURVIVED'}  ${g.id} (${g.area}) ${seconds(run.ms)}${by}`);
    if (full) writeLastRun(said, started, ((Date.now() - started) / 60000).toFixed(1), `${results.length - stale.length} of ${pending.length} guards run`, opts.jobs);
  };
  await inTurn(pending, roots, async (g, root) => record(g, await mutated(g, root)));
  if (roots[0] !== ROOT) rmSync(dirname(roots[0]!), { recursive: true, force: true });
  const killed = results.filter((r) => r.verdict === 'killed').length;
  const survived = results.filter((r) => r.verdict === 'survived');
  const minutes = ((Date.now() - started) / 60000).toFixed(1);
  say(`\nTotal: ${killed} killed, ${survived.length} survived, ${stale.length} stale, of ${selected.length} guards in ${minutes} min`);
  for (const r of survived) say(`  survived: ${r.g.id} (${r.g.file}): ${r.g.mutation}`);
  if (full) writeLastRun(said, started, minutes, null, opts.jobs);
  return survived.length > 0 || stale.length > 0 ? 1 : 0;
}

main().then((code) => process.exit(code), (error) => {
  restoreSaved();
  process.stderr.write(`${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
