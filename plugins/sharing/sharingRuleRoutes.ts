import type { FastifyRequest } from 'fastify';
import type { AccessGrants, SharingRuleInput } from '../../capabilities/accessGrants.ts';
import type { DataContext, DataEngine, DataRecord } from '../../capabilities/dataEngine.ts';
import type { HttpRoutes } from '../../capabilities/httpRoutes.ts';
import { codedError } from '../../kernel/errors.ts';
import { checkRecipient } from './checkRecipient.ts';
import { SHARING_RULE, adminOnly, body, callerOf, engineContext } from './sharingContext.ts';

const PERMISSION = 'sharing:manage';
/** Rules named by one collection DELETE, per parameter. */
const MAX_BATCH = 100;
const KEYS = ['name', 'object', 'kind', 'criteria', 'owner_position', 'recipient_type', 'recipient_id', 'access'];
const RECIPIENT_TYPES = ['user', 'position', 'unit_and_subordinates'];
/** The rule as sent; the handler checks what depends on kind (owner_position, criteria against the object). */
const ruleBody = {
  type: 'object',
  required: ['name', 'object', 'kind', 'recipient_type', 'recipient_id'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 100 },
    object: { type: 'string', minLength: 1, maxLength: 100 },
    kind: { type: 'string', enum: ['owner', 'criteria'] },
    criteria: { type: 'object', description: 'criteria rules: a where condition on the object' },
    owner_position: { type: 'string', description: 'owner rules: the id of the position whose members\' records are shared' },
    recipient_type: { type: 'string', enum: RECIPIENT_TYPES },
    recipient_id: { type: 'string', minLength: 1, maxLength: 64 },
    access: { type: 'string', enum: ['read', 'edit'], default: 'read' },
  },
};
const evaluateBody = {
  type: 'object', required: ['userId'], additionalProperties: false,
  properties: { userId: { type: 'string', minLength: 1, maxLength: 64, description: 'The user to evaluate the rule for' } },
};
/** Any of the rule's keys; what kind requires is checked on the rule they make. */
const rulePatchBody = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    ...ruleBody.properties,
    criteria: { type: ['object', 'null'], description: 'criteria rules: a where condition on the object' },
    owner_position: { type: ['string', 'null'], description: 'owner rules: the id of the position whose members\' records are shared' },
    access: { type: 'string', enum: ['read', 'edit'] },
    expectedVersion: { type: 'integer', minimum: 1, description: 'the version the editor read: another change since is 409 CONCURRENT_UPDATE' },
  },
};
const ruleParams = { type: 'object', properties: { idOrName: { type: 'string', minLength: 1, maxLength: 100 } }, required: ['idOrName'] };

/** The rule a change makes: the stored one with the new values; a kind's other key is cleared. */
function mergeRule(rule: DataRecord, patch: Record<string, unknown>): DataRecord {
  const merged: DataRecord = { ...rule, ...patch };
  if (merged.kind === 'owner') merged.criteria = null;
  if (merged.kind === 'criteria') merged.owner_position = null;
  return merged;
}

/**
 * A rule as it will be stored, checked: what its kind requires (a criteria that
 * fits the object, refused now rather than silently ignored later; an owner position), and a
 * recipient position that exists.
 */
async function checkRule(engine: DataEngine, input: Record<string, unknown>, ctx: DataContext): Promise<void> {
  if (input.kind === 'criteria') {
    if (typeof input.object !== 'string') throw codedError('VALIDATION_ERROR', { summary: 'object is required', errors: [{ path: 'object', message: 'is required' }] });
    if (!input.criteria || typeof input.criteria !== 'object' || Object.keys(input.criteria).length === 0) {
      throw codedError('VALIDATION_ERROR', { summary: 'criteria is required for a criteria rule: a where condition', errors: [{ path: 'criteria', message: 'is required' }] });
    }
    await engine.query(input.object, { where: input.criteria as Record<string, unknown>, limit: 1, select: ['id'] }, ctx, { total: false });
  } else if (input.kind === 'owner' && !input.owner_position) {
    throw codedError('VALIDATION_ERROR', { summary: 'owner_position is required for an owner rule', errors: [{ path: 'owner_position', message: 'is required' }] });
  }
  await checkRecipient(engine, input, ctx);
}

/** Sharing rules: tenant admins manage them; a rule opens records to its recipients on every read path. */
export function addSharingRuleRoutes(routes: HttpRoutes, engine: DataEngine, grants: AccessGrants): void {
  async function find(request: FastifyRequest): Promise<DataRecord> {
    const { idOrName } = request.params as { idOrName: string };
    const found = await engine.query(SHARING_RULE, { where: { $or: [{ id: idOrName }, { name: idOrName }] }, limit: 1 }, engineContext(request), { total: false });
    const rule = found.items[0];
    if (!rule) throw codedError('NOT_FOUND', { what: `Sharing rule '${idOrName.slice(0, 64)}'` });
    return rule;
  }

  routes.add({
    method: 'GET', path: '/sharing/rules', tags: ['sharing'], summary: 'List sharing rules', permission: PERMISSION,
    handler: (request) => {
      adminOnly(callerOf(request), PERMISSION);
      return engine.query(SHARING_RULE, { orderBy: 'name', limit: 200 }, engineContext(request));
    },
  });
  routes.add({
    method: 'POST', path: '/sharing/rules', tags: ['sharing'], summary: 'Create a sharing rule (owner-based or criteria-based)', permission: PERMISSION,
    successStatus: 201, errorStatuses: [404], schema: { body: ruleBody },
    handler: async (request, reply) => {
      const principal = callerOf(request);
      adminOnly(principal, PERMISSION);
      const input = body(request);
      const unknown = Object.keys(input).filter((k) => !KEYS.includes(k));
      if (unknown.length > 0) throw codedError('VALIDATION_ERROR', { summary: `unknown key(s) ${unknown.join(', ')}`, errors: unknown.map((path) => ({ path, message: 'unknown key' })) });
      await checkRule(engine, input, engineContext(request));
      const rule = await engine.create(SHARING_RULE, { access: 'read', ...input }, engineContext(request));
      reply.code(201);
      return rule;
    },
  });
  routes.add({
    method: 'PATCH', path: '/sharing/rules/:idOrName', tags: ['sharing'], permission: PERMISSION, errorStatuses: [404, 409],
    summary: 'Change a sharing rule: any of its keys, checked as a new rule would be; expectedVersion refuses a stale edit (409)',
    schema: { params: ruleParams, body: rulePatchBody },
    handler: async (request) => {
      const caller = callerOf(request);
      adminOnly(caller, PERMISSION);
      const rule = await find(request);
      const { expectedVersion, ...patch } = body(request);
      const merged = mergeRule(rule, patch);
      await checkRule(engine, merged, engineContext(request));
      const changes = Object.fromEntries(KEYS.filter((k) => merged[k] !== rule[k]).map((k) => [k, merged[k]]));
      return engine.update(SHARING_RULE, String(rule.id), changes, typeof expectedVersion === 'number' ? { expectedVersion } : {}, engineContext(request));
    },
  });
  routes.add({
    method: 'DELETE', path: '/sharing/rules/:idOrName', tags: ['sharing'], summary: 'Delete a sharing rule', permission: PERMISSION, successStatus: 204,
    schema: { params: ruleParams },
    handler: async (request, reply) => {
      adminOnly(callerOf(request), PERMISSION);
      const rule = await find(request);
      await engine.delete(SHARING_RULE, String(rule.id), {}, engineContext(request));
      reply.code(204);
      return null;
    },
  });
  routes.add({
    method: 'DELETE', path: '/sharing/rules', tags: ['sharing'], permission: PERMISSION, errorStatuses: [404],
    summary: 'Delete several sharing rules, named by ?name= and ?id= (repeated): all of them or, when one is not found, none',
    schema: {
      querystring: {
        type: 'object',
        properties: {
          name: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 100 }, maxItems: MAX_BATCH },
          id: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 64 }, maxItems: MAX_BATCH },
        },
        additionalProperties: false,
      },
    },
    handler: async (request) => {
      adminOnly(callerOf(request), PERMISSION);
      const q = request.query as { name?: string[]; id?: string[] };
      const names = [...new Set(q.name ?? [])];
      const ids = [...new Set(q.id ?? [])];
      if (names.length + ids.length === 0) {
        throw codedError('VALIDATION_ERROR', { summary: 'name the rules to delete with ?name= or ?id= (repeat it for several); nothing is deleted without', errors: [{ path: 'querystring/name', message: 'is required (or id)' }] });
      }
      const ctx = engineContext(request);
      // One transaction: every named rule is deleted, or, when one is missing, none is.
      const deleted = await engine.transaction(ctx, async (tx) => {
        const named = [...(names.length > 0 ? [{ name: { $in: names } }] : []), ...(ids.length > 0 ? [{ id: { $in: ids } }] : [])];
        const found = await tx.query(SHARING_RULE, { where: { $or: named }, select: ['id', 'name'], limit: 2 * MAX_BATCH }, ctx, { total: false });
        const missing = [...names.filter((n) => !found.items.some((r) => r.name === n)), ...ids.filter((i) => !found.items.some((r) => r.id === i))];
        if (missing.length > 0) {
          throw codedError('NOT_FOUND', { what: `Sharing rule(s) ${missing.map((m) => `'${m.slice(0, 64)}'`).join(', ')}`, missing, deleted: 0 });
        }
        for (const rule of found.items) await tx.delete(SHARING_RULE, String(rule.id), {}, ctx);
        return found.items.map((rule) => ({ id: rule.id, name: rule.name }));
      });
      return { deleted };
    },
  });
  routes.add({
    method: 'POST', path: '/sharing/rules/:idOrName/evaluate', tags: ['sharing'], scope: 'data:read', summary: 'Dry run: which records a user would gain through the rule', permission: PERMISSION,
    schema: { params: ruleParams, body: evaluateBody },
    handler: async (request) => {
      adminOnly(callerOf(request), PERMISSION);
      const rule = await find(request);
      const { userId } = body(request);
      if (typeof userId !== 'string' || userId === '') throw codedError('VALIDATION_ERROR', { summary: 'userId is required: the user to evaluate the rule for', errors: [{ path: 'userId', message: 'is required' }] });
      const evaluation = await grants.evaluateRule(request.environmentId, rule as unknown as SharingRuleInput, userId);
      return { rule: rule.name, userId, ...evaluation };
    },
  });
}
