import { join } from 'node:path';
import type { CodedError } from '../kernel/errors.ts';
import { approvalProcessSchema } from './approvalSchema.ts';
import type { ResolvedApprovalProcess } from './approvalTypes.ts';
import { describeIssues } from './describeIssues.ts';
import { metadataError } from './metadataError.ts';
import { readDeclarationDir } from './readDeclarationDir.ts';
import { resolveApprovalProcess, type ApprovalResolveContext } from './resolveApprovalProcess.ts';
import { PARSE_ONCE } from '../kernel/parseOnce.ts';

/**
 * Reads approvals/<name>.{json,ts} of every app: schema (unknown keys refused with their path),
 * names unique across apps and equal to the file name, then the semantic checks of
 * resolveApprovalProcess. Returns the valid processes and every problem.
 */
export async function loadApprovals(sources: Array<{ dir: string; app: string }>, ctx: ApprovalResolveContext): Promise<{ processes: ResolvedApprovalProcess[]; errors: CodedError[] }> {
  const errors: CodedError[] = [];
  const processes: ResolvedApprovalProcess[] = [];
  const declaredIn = new Map<string, string>();
  for (const { dir, app } of sources) {
    const read = await readDeclarationDir(join(dir, 'approvals'), 'approval processes');
    errors.push(...read.errors);
    for (const { file, stem, ext, value } of read.declarations) {
      const parsed = approvalProcessSchema.safeParse(value, PARSE_ONCE);
      const problems = parsed.success ? [] : describeIssues(approvalProcessSchema, value, parsed.error.issues);
      const name = (value as { name?: unknown } | null)?.name;
      if (typeof name === 'string') {
        if (name !== stem) problems.push({ path: 'name', reason: `process '${name}' must be declared in a file named ${name}${ext}` });
        const other = declaredIn.get(name);
        if (other) problems.push({ path: 'name', reason: `process '${name}' is already declared in ${other}` });
        else declaredIn.set(name, file);
      }
      if (!parsed.success || problems.length > 0) {
        errors.push(...problems.map((p) => metadataError(file, p.path, p.reason)));
        continue;
      }
      const resolved = resolveApprovalProcess(file, app, parsed.data, ctx);
      errors.push(...resolved.problems.map((p) => metadataError(file, p.path, p.reason)), ...resolved.errors);
      if (resolved.process) processes.push(resolved.process);
    }
  }
  return { processes, errors };
}
