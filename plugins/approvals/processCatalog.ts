import type { DataContext, DataEngine } from '../../capabilities/dataEngine.ts';
import { approvalProcessSchema, type ParsedApprovalProcess } from '../../metadata/approvalSchema.ts';
import type { ResolvedApprovalProcess } from '../../metadata/approvalTypes.ts';
import { describeIssues } from '../../metadata/describeIssues.ts';
import { resolveApprovalProcess, type ApprovalResolveContext } from '../../metadata/resolveApprovalProcess.ts';
import { codedError } from '../../kernel/errors.ts';
import { checkApproverUsers, unknownDeclaredUsers, type KnownUsers } from './approverUsers.ts';
import type { LockedObjects } from './lockedObjects.ts';
import { PROCESS_OBJECT } from './names.ts';

/** What a request keeps of its process: everything but the compiled condition. */
export type ProcessSnapshot = Omit<ResolvedApprovalProcess, 'compiledWhen'>;

export function snapshotOf(process: ResolvedApprovalProcess): ProcessSnapshot {
  const { compiledWhen: _compiled, ...rest } = process;
  return rest;
}

/** Where the catalog reports a declared process naming unknown users (the plugin's logger). */
export type Warn = (fields: Record<string, unknown>, message: string) => void;

const system = (environmentId: string): DataContext => ({ environmentId, principal: null, system: true });

/**
 * Declared processes (approvals/<name>.json, fixed at boot) and processes created through the API
 * (sys_approval_process rows of each environment, checked by the same rules when created and again
 * when read, so a process whose object changed since fails loudly rather than running half-checked).
 */
export function createProcessCatalog(declared: () => ReadonlyMap<string, ResolvedApprovalProcess>, resolveCtx: () => ApprovalResolveContext, engine: DataEngine, knownUsers?: KnownUsers, warn?: Warn, locked?: LockedObjects, onCreated?: (environmentId: string) => void) {
  const cache = new Map<string, { version: number; process: ResolvedApprovalProcess }>();
  const reported = new Set<string>();

  /**
   * On the first use of the catalog in an environment: a warning for each declared process naming
   * user ids that are no user of that environment (per path). Never a failure: ids are per environment.
   */
  async function reportDeclared(environmentId: string): Promise<void> {
    if (!knownUsers || !warn || reported.has(environmentId)) return;
    reported.add(environmentId);
    for (const process of declared().values()) {
      try {
        const unknown = await unknownDeclaredUsers(knownUsers, environmentId, process);
        if (unknown.length === 0) continue;
        warn({ process: process.name, source: process.source, environmentId, unknown },
          `approvals: process ${process.name} (${process.source}) names no user of environment ${environmentId} at ${unknown.map((u) => `${u.path} '${u.id}'`).join(', ')}: a request there counts them as approvers and waits on them until an admin reassigns their place`);
      } catch (error) {
        warn({ err: error, process: process.name, source: process.source, environmentId }, `approvals: the users named by process ${process.name} could not be checked in environment ${environmentId}`);
      }
    }
  }

  /** Parse and check a body of POST /approvals/processes: VALIDATION_ERROR listing every problem with its path. */
  function check(body: unknown): ResolvedApprovalProcess {
    const parsed = approvalProcessSchema.safeParse(body);
    if (!parsed.success) {
      const errors = describeIssues(approvalProcessSchema, body, parsed.error.issues).map((p) => ({ path: p.path, message: p.reason }));
      throw codedError('VALIDATION_ERROR', { summary: errors.map((e) => `${e.path} ${e.message}`).join('; '), errors });
    }
    const resolved = resolveApprovalProcess('api', null, parsed.data, resolveCtx());
    const errors = [
      ...resolved.problems.map((p) => ({ path: p.path, message: p.reason })),
      ...resolved.errors.map((e) => ({ path: String(e.details.path ?? '(root)'), message: String(e.details.reason ?? e.message) })),
    ];
    if (!resolved.process) throw codedError('VALIDATION_ERROR', { summary: errors.map((e) => `${e.path} ${e.message}`).join('; '), errors });
    return resolved.process;
  }

  async function stored(environmentId: string, name: string): Promise<ResolvedApprovalProcess | undefined> {
    const rows = await engine.query(PROCESS_OBJECT, { where: { name }, limit: 1 }, system(environmentId), { total: false });
    const row = rows.items[0];
    if (!row) return undefined;
    // A process read here (to submit a request, say) locks its object's records here at once.
    locked?.add(environmentId, String(row.object));
    const key = `${environmentId}\u0000${name}`;
    const hit = cache.get(key);
    if (hit && hit.version === Number(row.version)) return hit.process;
    const process = check(row.definition);
    cache.set(key, { version: Number(row.version), process });
    return process;
  }

  return {
    check,
    async get(environmentId: string, name: string): Promise<ResolvedApprovalProcess | undefined> {
      await reportDeclared(environmentId);
      return declared().get(name) ?? stored(environmentId, name);
    },
    async list(environmentId: string): Promise<Array<{ process: ResolvedApprovalProcess; id: string | null }>> {
      await reportDeclared(environmentId);
      const out: Array<{ process: ResolvedApprovalProcess; id: string | null }> = [...declared().values()].map((process) => ({ process, id: null }));
      const rows = await engine.query(PROCESS_OBJECT, { orderBy: [{ field: 'name', order: 'asc' }], limit: 200 }, system(environmentId), { total: false });
      for (const row of rows.items) {
        try {
          out.push({ process: check(row.definition), id: String(row.id) });
        } catch {
          // A stored process that no longer passes its checks is left out of the list; get() names its problems.
        }
      }
      return out;
    },
    async create(environmentId: string, body: unknown, userId: string): Promise<ResolvedApprovalProcess> {
      const process = check(body);
      // Approvers named by id must be users of this environment (unchecked without auth.identity).
      if (knownUsers) await checkApproverUsers(knownUsers, environmentId, body as ParsedApprovalProcess);
      if (declared().has(process.name) || (await stored(environmentId, process.name))) {
        throw codedError('VALIDATION_ERROR', { summary: `name: process '${process.name}' already exists`, errors: [{ path: 'name', message: `process '${process.name}' already exists` }] });
      }
      // Known to the lock before the row exists and again after (a load in between may miss it).
      locked?.add(environmentId, process.object);
      await engine.create(PROCESS_OBJECT, { name: process.name, object: process.object, definition: body as object }, { ...system(environmentId), user: { id: userId, organizationId: null, positions: [] } });
      locked?.add(environmentId, process.object);
      onCreated?.(environmentId);
      return process;
    },
  };
}

export type ProcessCatalog = ReturnType<typeof createProcessCatalog>;
