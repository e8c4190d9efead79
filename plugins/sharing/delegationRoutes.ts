import type { FastifyRequest } from 'fastify';
import type { AuthIdentity, UserContact } from '../../capabilities/authIdentity.ts';
import type { Principal } from '../../capabilities/authSession.ts';
import type { DataEngine, DataRecord } from '../../capabilities/dataEngine.ts';
import type { HttpRoutes } from '../../capabilities/httpRoutes.ts';
import { codedError } from '../../kernel/errors.ts';
import { concernsCaller, delegablePositions, type AssignmentRow, type PositionRow } from './delegablePositions.ts';
import { body, engineContext, userContext } from './sharingContext.ts';

const POSITION = 'sys_position';
const USER_POSITION = 'sys_user_position';
/** Rows read per list: positions, assignments, delegations. */
const MAX_ROWS = 200;

const createBody = {
  type: 'object',
  required: ['position', 'valid_from', 'valid_until', 'reason'],
  additionalProperties: false,
  properties: {
    position: { type: 'string', minLength: 1, maxLength: 64, description: 'the id of the position delegated' },
    user_id: { type: 'string', minLength: 1, maxLength: 64, description: 'the delegate (or email)' },
    email: { type: 'string', minLength: 3, maxLength: 254, description: 'the delegate, by email address (or user_id)' },
    delegated_by: { type: 'string', minLength: 1, maxLength: 64, description: 'admins: the holder the delegation is recorded for' },
    valid_from: { type: 'string', maxLength: 64 },
    valid_until: { type: 'string', maxLength: 64 },
    reason: { type: 'string', maxLength: 500 },
  },
};
const listQuery = {
  type: 'object', additionalProperties: false,
  properties: { user: { type: 'string', minLength: 1, maxLength: 64, description: 'admins: the delegations given to or by this user' } },
};
const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 64 } } };

/** The signed-in user; delegations are people's, never anonymous. */
function personOf(request: FastifyRequest): Principal {
  const principal = request.principal;
  if (!principal || principal.kind === 'system') throw codedError('UNAUTHENTICATED');
  return principal;
}

const invalid = (path: string, message: string) => codedError('VALIDATION_ERROR', { summary: `${path}: ${message}`, errors: [{ path, message }] });

/**
 * Delegations for the people who make them: what the caller may delegate, the delegations it gave
 * or received (admins: all of them), recording one with the delegate named by email, and ending one.
 * Every rule of a delegation is the data engine's (30 days at most, a reason, inside the
 * delegator's own assignment, never an admin scope): these routes write through it as the caller.
 */
export function addDelegationRoutes(routes: HttpRoutes, engine: DataEngine, identity: () => AuthIdentity | undefined): void {
  const rows = async <T>(request: FastifyRequest, object: string, where: Record<string, unknown>, orderBy?: string) =>
    (await engine.query(object, { where, limit: MAX_ROWS, ...(orderBy ? { orderBy } : {}) }, engineContext(request), { total: false })).items as unknown as T[];

  /** Who may be delegated what now: the caller's own direct holdings, or every holder's for admins. */
  async function delegable(request: FastifyRequest, caller: Principal) {
    const positions = await rows<PositionRow>(request, POSITION, { delegatable: true }, 'name');
    const ids = positions.filter((p) => p.admin_scope !== true).map((p) => p.id);
    if (ids.length === 0) return { positions, delegable: [] };
    const held = await rows<AssignmentRow>(request, USER_POSITION, { position: { $in: ids }, ...(caller.isAdmin ? {} : { user_id: caller.userId }) });
    return { positions, delegable: delegablePositions(positions, held, new Date(), caller.isAdmin ? undefined : caller.userId) };
  }

  async function people(environmentId: string, ids: Iterable<string>): Promise<Record<string, { name: string; email: string | null }>> {
    const auth = identity();
    const wanted = [...new Set(ids)].slice(0, 500);
    if (!auth || wanted.length === 0) return {};
    const found = await auth.contactsOf(environmentId, wanted);
    return Object.fromEntries(found.map((c) => [c.id, { name: c.name, email: c.email }]));
  }

  routes.add({
    method: 'GET', path: '/access/delegations', tags: ['sharing'],
    summary: 'Delegations the caller gave or received (admins: all) and the positions it may delegate now, with the names of the people and positions they mention',
    schema: { querystring: listQuery },
    handler: async (request) => {
      const caller = personOf(request);
      const { user } = request.query as { user?: string };
      if (user !== undefined && !caller.isAdmin) throw codedError('PERMISSION_DENIED', { permission: 'access:delegations', subjectId: caller.userId });
      const mine = caller.isAdmin ? (user ? [{ user_id: user }, { delegated_by: user }] : null) : [{ user_id: caller.userId }, { delegated_by: caller.userId }];
      const items = (await rows<AssignmentRow & DataRecord>(request, USER_POSITION, { delegated_by: { $null: false }, ...(mine ? { $or: mine } : {}) }, '-created_at'))
        .filter((row) => concernsCaller(row, caller));
      const { positions, delegable: offered } = await delegable(request, caller);
      const named = new Map(positions.map((p) => [p.id, p]));
      const missing = [...new Set(items.map((r) => r.position).filter((id) => !named.has(id)))];
      if (missing.length > 0) for (const p of await rows<PositionRow>(request, POSITION, { id: { $in: missing } })) named.set(p.id, p);
      const ids = [...items.flatMap((r) => [r.user_id, String(r.delegated_by)]), ...offered.map((d) => d.delegator)];
      return {
        items,
        delegable: offered,
        positions: Object.fromEntries([...named.values()].map((p) => [p.id, { name: p.name, label: p.label ?? null }])),
        people: await people(request.environmentId, ids),
      };
    },
  });

  routes.add({
    method: 'POST', path: '/access/delegations', tags: ['sharing'], successStatus: 201, errorStatuses: [403, 404],
    summary: 'Record a delegation: the delegate by user_id or email, at most 30 days, a reason; admins name the holder it is recorded for (delegated_by)',
    schema: { body: createBody },
    handler: async (request, reply) => {
      const caller = personOf(request);
      const input = body(request) as { position: string; user_id?: string; email?: string; delegated_by?: string; valid_from: string; valid_until: string; reason: string };
      if ((input.user_id === undefined) === (input.email === undefined)) throw invalid('email', 'name the delegate by email or by user_id (one of them)');
      const delegator = caller.isAdmin ? input.delegated_by : caller.userId;
      if (caller.isAdmin && !delegator) throw invalid('delegated_by', 'an admin records a delegation for a holder of the position: name it');
      if (!caller.isAdmin && input.delegated_by !== undefined && input.delegated_by !== caller.userId) throw invalid('delegated_by', 'only an admin records a delegation for someone else');
      // Only a direct holder of the position may go on: an address is looked up for delegators alone.
      if (!caller.isAdmin) {
        const { delegable: offered } = await delegable(request, caller);
        if (!offered.some((d) => d.position === input.position)) {
          throw codedError('DELEGATION_NOT_ALLOWED', { position: input.position.slice(0, 64), reason: 'only a direct holder of a delegatable position (without the admin scope) delegates it', subjectId: caller.userId });
        }
      }
      let delegate = input.user_id;
      if (input.email !== undefined) {
        const auth = identity();
        const found: UserContact | null = auth ? await auth.userByEmail(request.environmentId, input.email) : null;
        if (!found) throw invalid('email', 'no user of this environment has this email address');
        delegate = found.id;
      }
      const record = await engine.create(USER_POSITION, {
        // delegated_by always set: the engine then applies the delegation rules, whatever else the caller may do.
        user_id: delegate, position: input.position, valid_from: input.valid_from, valid_until: input.valid_until, reason: input.reason, delegated_by: delegator,
      }, userContext(request));
      reply.code(201);
      return record;
    },
  });

  routes.add({
    method: 'POST', path: '/access/delegations/:id/end', tags: ['sharing'], errorStatuses: [404],
    summary: 'End a delegation now (its delegator, its delegate or an admin): valid_until becomes now',
    schema: { params: idParams },
    handler: async (request) => {
      const caller = personOf(request);
      const { id } = request.params as { id: string };
      const [row] = await rows<AssignmentRow & DataRecord>(request, USER_POSITION, { id, delegated_by: { $null: false } });
      // Someone else's delegation answers as one that does not exist.
      if (!row || !concernsCaller(row, caller)) throw codedError('NOT_FOUND', { what: `Delegation '${id.slice(0, 64)}'` });
      const now = new Date();
      const until = row.valid_until ? Date.parse(String(row.valid_until instanceof Date ? row.valid_until.toISOString() : row.valid_until)) : Number.POSITIVE_INFINITY;
      if (until <= now.getTime()) return row;
      const from = row.valid_from ? Date.parse(String(row.valid_from instanceof Date ? row.valid_from.toISOString() : row.valid_from)) : 0;
      const at = now.toISOString();
      return engine.update(USER_POSITION, id, { valid_until: at, ...(from > now.getTime() ? { valid_from: at } : {}) }, {}, engineContext(request));
    },
  });
}
