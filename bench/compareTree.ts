import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { buildCompiled } from '../bin/buildCompiled.js';
import { REPO_ROOT } from './benchObject.ts';

/** Where compared revisions are extracted: inside the repository, so their imports find its node_modules. */
export const COMPARE_DIR = join(REPO_ROOT, '.bench-compare');

export interface CompareTree {
  commit: string;
  /** The revision's compiled tree (its `dist/`), as bench/servers/runtimeServer.js takes it in OSR_BENCH_TREE. */
  dist: string;
}

/**
 * The compiled runtime of a git revision, to measure the working tree against (`--compare REV`):
 * the revision's files (git archive) under .bench-compare/<commit>/, compiled there by this
 * tree's build. Kept for the next run; delete .bench-compare/ to reclaim the space.
 */
export async function compareTree(rev: string, log: (line: string) => void): Promise<CompareTree> {
  let commit: string;
  try {
    commit = execFileSync('git', ['rev-parse', '--verify', '--quiet', `${rev}^{commit}`], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
  } catch {
    throw new Error(`--compare: '${rev}' is not a git revision of this repository`);
  }
  const dir = join(COMPARE_DIR, commit.slice(0, 12));
  const dist = join(dir, 'dist');
  if (!existsSync(join(dist, '.manifest.json'))) {
    log(`extracting and compiling ${rev} (${commit.slice(0, 12)}) into ${dir}`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    execFileSync('sh', ['-c', 'git archive "$1" | tar -x -C "$2"', 'sh', commit, dir], { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
    const built = await buildCompiled(dir);
    log(`compiled ${built.modules} modules of ${rev} in ${built.ms} ms`);
  }
  return { commit, dist };
}
