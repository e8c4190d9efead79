import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../kernel/definePlugin.ts';
import { KernelBootError } from '../../kernel/errors.ts';
import type { ResolvedApprovalProcess } from '../../metadata/approvalTypes.ts';
import { loadApprovals } from '../../metadata/loadApprovals.ts';
import { addApprovalRoutes } from './approvalRoutes.ts';
import { checkRecordLock, type WriteEvent } from './checkRecordLock.ts';
import { createApprovalService } from './createApprovalService.ts';
import { createLockedObjects } from './lockedObjects.ts';
import { ESCALATE_JOB, PROCESS_OBJECT } from './names.ts';
import { createProcessCatalog } from './processCatalog.ts';

const declared = new WeakMap<object, Map<string, ResolvedApprovalProcess>>();
const declaredObjectSets = new WeakMap<object, Set<string>>();
/** Contexts whose declared processes are loaded: until then every object's writes are checked. */
const declaredLoaded = new WeakSet<object>();

/**
 * Approvals: processes declared in approvals/<name>.json or created through /approvals/processes,
 * requests with quorum (clamped), per-group sign-off, revisions and SLA escalation on jobs.queue.
 * Requests live in engine-owned objects of this plugin's system app, read-only through /data; a
 * record with a pending request is locked for all but the current step's approvers (RECORD_LOCKED).
 */
export default definePlugin({
  name: 'approvals',
  version: '16.0.0',
  kernel: '^16.0.0',
  requires: ['data.engine', 'access.grants', 'metadata.registry', 'http.routes', 'jobs.queue', 'notifications.send'],
  optional: ['actions.registry', 'auth.identity', 'flows.runner', 'events.bus', 'audit.record'],
  register(ctx) {
    const metadata = ctx.resolve('metadata.registry');
    metadata.contributeApp(fileURLToPath(new URL('./system-app', import.meta.url)));
    const processes = new Map<string, ResolvedApprovalProcess>();
    declared.set(ctx, processes);
    const actions = ctx.resolve('actions.registry');
    const engine = ctx.resolve('data.engine');
    const flows = ctx.resolve('flows.runner');
    const resolveCtx = () => ({
      objects: new Map(metadata.objects().map((o) => [o.name, o])),
      ...(actions ? { actions: (name: string) => actions.get(name) } : {}),
      ...(flows ? { flows: (name: string) => flows.get(name) } : {}),
    });
    const identity = ctx.resolve('auth.identity');
    const knownUsers = identity ? async (env: string, ids: readonly string[]) => (await identity.contactsOf(env, ids)).map((c) => c.id) : undefined;
    const userNames = identity ? async (env: string, ids: readonly string[]) => new Map((await identity.contactsOf(env, ids)).map((c) => [c.id, c.name])) : undefined;
    const declaredObjects = new Set<string>();
    declaredObjectSets.set(ctx, declaredObjects);
    const bus = ctx.resolve('events.bus');
    const locked = createLockedObjects({
      ...(bus ? { bus } : {}),
      declared: () => (declaredLoaded.has(ctx) ? declaredObjects : undefined),
      stored: async (env, limit) => (await engine.query(PROCESS_OBJECT, { select: ['object'], limit }, { environmentId: env, principal: null, system: true }, { total: false, findHooks: false })).items.map((r) => String(r.object)),
    });
    // Processes created in another process: dropped at once on its message, else after the TTL.
    bus?.subscribe('approvals.changed', ({ environmentId }) => locked.invalidate(environmentId));
    const catalog = createProcessCatalog(() => processes, resolveCtx, engine, knownUsers, (fields, message) => ctx.log.warn(fields, message), locked, (environmentId) => bus?.publish('approvals.changed', { environmentId }));
    const jobs = ctx.resolve('jobs.queue');
    const service = createApprovalService({
      ...(knownUsers ? { knownUsers } : {}),
      ...(userNames ? { userNames } : {}),
      engine, metadata, access: ctx.resolve('access.grants'), catalog, jobs, notify: ctx.resolve('notifications.send'), actions, flows, log: ctx.log,
    });
    jobs.handle<{ requestId: string; cycle: number; step: number }>(ESCALATE_JOB, (job) => service.escalate(job.environmentId, job.data));
    addApprovalRoutes(ctx.resolve('http.routes'), service, catalog, ctx.resolve('audit.record'));
    // Before the other plugins' before-hooks: a locked record is refused before any work on it.
    // An object without any process cannot have a request: its writes skip the query.
    const appliesTo = (object: string, environmentId: string) => !object.startsWith('sys_') && locked.mayLock(environmentId, object);
    const lock = async (event: WriteEvent) => {
      if (event.ctx.system || !appliesTo(event.object, event.ctx.environmentId)) return;
      await checkRecordLock(event);
    };
    ctx.hook('data.beforeUpdate', lock, { priority: 10, appliesTo });
    ctx.hook('data.beforeDelete', lock, { priority: 10, appliesTo });
  },
  async start(ctx) {
    const metadata = ctx.resolve('metadata.registry');
    const actions = ctx.resolve('actions.registry');
    const flows = ctx.resolve('flows.runner');
    const sources = metadata.apps().map((app) => ({ dir: app.dir, app: app.manifest.name }));
    const { processes, errors } = await loadApprovals(sources, {
      objects: new Map(metadata.objects().map((o) => [o.name, o])),
      ...(actions ? { actions: (name: string) => actions.get(name) } : {}),
      ...(flows ? { flows: (name: string) => flows.get(name) } : {}),
    });
    if (errors.length > 0) throw new KernelBootError(errors);
    const map = declared.get(ctx)!;
    for (const process of processes) {
      map.set(process.name, process);
      declaredObjectSets.get(ctx)!.add(process.object);
      for (const clamp of process.clamps) ctx.log.warn({ process: process.name, ...clamp }, `approvals: ${process.name} ${clamp.path}: ${clamp.reason}`);
    }
    declaredLoaded.add(ctx);
  },
});
