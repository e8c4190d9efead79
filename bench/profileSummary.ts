/**
 * Summarizes a V8 .cpuprofile (from `npm run bench -- --profile`): self time by function and by
 * package or source file, so a hot spot is visible without opening DevTools.
 * Usage: node --import tsx bench/profileSummary.ts FILE.cpuprofile [TOP]
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
}

/** node_modules/<package> or the path inside the repository. */
function ownerOf(url: string): string {
  if (!url) return '(native / V8)';
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules) return modules[1]!;
  if (url.startsWith('node:')) return url;
  const repo = /\/(kernel|plugins|runtime|metadata|capabilities|bench|cli)\/(.*)$/.exec(url);
  return repo ? `${repo[1]}/${repo[2]}` : url;
}

export function summarize(profile: Profile, top = 25): string {
  const total = profile.samples.length;
  const perSample = (profile.endTime - profile.startTime) / 1000 / Math.max(1, total);
  const byFunction = new Map<string, number>();
  const byOwner = new Map<string, number>();
  for (const node of profile.nodes) {
    const hits = node.hitCount ?? 0;
    if (hits === 0) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const fn = `${functionName || '(anonymous)'}  ${ownerOf(url)}:${lineNumber + 1}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + hits);
    byOwner.set(ownerOf(url), (byOwner.get(ownerOf(url)) ?? 0) + hits);
  }
  // Inclusive time of the repository's own functions: what a request spends inside each step.
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const inclusive = new Map<string, number>();
  const visit = (node: ProfileNode, open: Set<string>): number => {
    let hits = node.hitCount ?? 0;
    const { functionName, url, lineNumber } = node.callFrame;
    const owner = ownerOf(url);
    const own = /^(kernel|plugins|runtime|metadata|bench)\//.test(owner) ? `${functionName || '(anonymous)'}  ${owner}:${lineNumber + 1}` : null;
    const counted = own !== null && !open.has(own);
    if (counted) open.add(own);
    for (const child of node.children ?? []) hits += visit(byId.get(child)!, open);
    if (counted) {
      open.delete(own);
      inclusive.set(own, (inclusive.get(own) ?? 0) + hits);
    }
    return hits;
  };
  visit(profile.nodes[0]!, new Set());
  const table = (title: string, map: Map<string, number>) => {
    const rows = [...map].sort((a, b) => b[1] - a[1]).slice(0, top);
    return [title, ...rows.map(([name, hits]) => `${((hits / total) * 100).toFixed(1).padStart(5)}%  ${(hits * perSample).toFixed(0).padStart(6)} ms  ${name}`)].join('\n');
  };
  return [
    `${total} samples, ${((profile.endTime - profile.startTime) / 1e6).toFixed(1)} s`,
    '',
    table('Self time by package / file', byOwner),
    '',
    table('Self time by function', byFunction),
    '',
    table('Total time (self and callees) of repository functions', inclusive),
  ].join('\n');
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  const file = process.argv[2];
  if (!file) {
    console.error('Usage: node --import tsx bench/profileSummary.ts FILE.cpuprofile [TOP]');
    process.exitCode = 2;
  } else {
    console.log(summarize(JSON.parse(readFileSync(file, 'utf8')) as Profile, Number(process.argv[3] ?? 25)));
  }
}
