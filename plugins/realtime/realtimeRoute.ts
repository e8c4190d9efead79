import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AccessGrants } from '../../capabilities/accessGrants.ts';
import type { AuthSession, Principal } from '../../capabilities/authSession.ts';
import { dataContextOf, type DataEngine } from '../../capabilities/dataEngine.ts';
import type { HttpRoutes } from '../../capabilities/httpRoutes.ts';
import type { MetadataRegistry } from '../../capabilities/metadataRegistry.ts';
import { codedError, isCodedError } from '../../kernel/errors.ts';
import type { ChangeFeed } from './changeFeed.ts';
import { EventStream } from './eventStream.ts';
import { parseSubscription, type ObjectSubscription } from './parseSubscription.ts';
import { principalKey } from './principalKey.ts';
import type { RealtimeOptions } from './realtimeOptions.ts';
import type { Member, SubscriptionHub } from './subscriptionHub.ts';

/** Changes learned up to this long before a resumed stream's last event are sent again (another process may have learned of them in another order). */
const RESUME_OVERLAP_MS = 250;

export interface RealtimeDeps {
  engine: DataEngine;
  metadata: MetadataRegistry;
  auth: AuthSession;
  hub: SubscriptionHub;
  feed: ChangeFeed;
  options: RealtimeOptions;
}

/** Open streams per user, and how each is checked again. */
export class StreamCounts {
  private readonly perUser = new Map<string, number>();
  total = 0;
  /** Each open stream's request, whose credential is checked again every round. */
  readonly streams = new Map<Member, FastifyRequest>();
  private checking = false;

  /**
   * One round of credential checks: streams that share a credential are checked once, and a round
   * still running when the next is due is not doubled (while the cache is not trusted, each check
   * goes to the database). The principal is resolved with its grants (positions, permission sets,
   * route keys) as the request that opened the stream was, so only a real change of them counts.
   */
  async recheckAll(auth: AuthSession, grants: AccessGrants | undefined): Promise<void> {
    if (this.checking) return;
    this.checking = true;
    try {
      const byCredential = new Map<string, Member[]>();
      for (const [member, request] of this.streams) {
        const key = credentialOf(request);
        const group = byCredential.get(key);
        if (group) group.push(member);
        else byCredential.set(key, [member]);
      }
      await Promise.all([...byCredential.values()].map(async (members) => {
        const outcome = await authenticateAgain(auth, grants, this.streams.get(members[0]!)!);
        if (outcome !== 'unknown') for (const member of members) endIfChanged(member, outcome);
      }));
    } finally {
      this.checking = false;
    }
  }

  count(userKey: string): number {
    return this.perUser.get(userKey) ?? 0;
  }

  add(userKey: string): () => void {
    this.perUser.set(userKey, this.count(userKey) + 1);
    this.total++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.total--;
      const left = this.count(userKey) - 1;
      if (left <= 0) this.perUser.delete(userKey);
      else this.perUser.set(userKey, left);
    };
  }
}

/** The object a stream may follow: API-enabled (else 404, as on /data) with `list` among its apiMethods (else 405). */
function checkObject(metadata: MetadataRegistry, name: string): void {
  const object = metadata.object(name);
  if (!object || !object.apiEnabled) throw codedError('NOT_FOUND', { what: `Object '${name}'`, object: name });
  if (object.apiMethods !== null && !object.apiMethods.includes('list')) throw codedError('METHOD_NOT_ALLOWED', { operation: 'list', object: name, allowed: object.apiMethods });
}

/**
 * `GET /realtime`: a server-sent-events stream of the changes of the objects named, each record as
 * this caller may read it now (docs/realtime.md).
 */
export function addRealtimeRoute(routes: HttpRoutes, deps: RealtimeDeps, counts: StreamCounts): void {
  routes.add({
    method: 'GET',
    path: '/realtime',
    summary: 'Follow record changes as server-sent events (created, updated, deleted, entered, left), each record as the caller may read it',
    tags: ['realtime'],
    contentType: 'text/event-stream',
    errorStatuses: [404, 405, 429],
    schema: {
      querystring: {
        type: 'object',
        properties: { objects: { type: 'string', minLength: 1, maxLength: 2000 }, lastEventId: { type: 'string', maxLength: 100 } },
        required: ['objects'],
        additionalProperties: { type: 'string', maxLength: 8000 },
      },
    },
    handler: (request, reply) => open(deps, counts, request, reply),
  });
}

async function open(deps: RealtimeDeps, counts: StreamCounts, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const principal = request.principal;
  if (!principal || principal.kind === 'system') throw codedError('UNAUTHENTICATED');
  const subscriptions = parseSubscription(request.query as Record<string, unknown>, deps.options.maxObjects);
  for (const subscription of subscriptions) checkObject(deps.metadata, subscription.object);
  // A caller at its limit costs nothing more: the limits come before the checking reads.
  const userKey = `${request.environmentId}\u0000${principal.userId}`;
  if (counts.count(userKey) >= deps.options.maxConnectionsPerUser || counts.total >= deps.options.maxConnections) {
    reply.header('retry-after', '5');
    throw codedError('RATE_LIMITED', { retryAfter: 5, limit: counts.total >= deps.options.maxConnections ? 'plugins.realtime.maxConnections' : 'plugins.realtime.maxConnectionsPerUser' });
  }
  // The where and fields are checked as on /data (fields the caller may not read, cost, read permission).
  const ctx = dataContextOf(request);
  for (const subscription of subscriptions) await deps.engine.query(subscription.object, probe(subscription), ctx, { total: false });
  const lastId = headerValue(request.headers['last-event-id']) ?? (request.query as { lastEventId?: string }).lastEventId;
  const replay = lastId ? deps.feed.buffer.after(lastId, RESUME_OVERLAP_MS) : undefined;

  const release = counts.add(userKey);
  const headers = { ...reply.getHeaders(), 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no', connection: 'keep-alive' };
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, headers as Record<string, string>);
  res.socket?.setNoDelay(true);
  res.socket?.setTimeout(0);
  const stream = new EventStream(res, deps.options.queueLimit);
  const member: Member = { stream, principal, environmentId: request.environmentId, groups: new Set() };
  stream.onClose(release);
  stream.onClose(() => counts.streams.delete(member));
  counts.streams.set(member, request);
  if (lastId && !replay) stream.send({ event: 'reset', data: { reason: 'replay_window', message: 'The changes after this Last-Event-ID are no longer kept: read again; this stream goes on with new changes.' } });
  await deps.hub.join(member, subscriptions, replay);
  stream.send({ event: 'ready', data: { objects: subscriptions.map((s) => s.object), resumed: replay !== undefined } });
}

/** A read of no rows that runs every check a list with this where and these fields would. */
function probe(subscription: ObjectSubscription): Record<string, unknown> {
  return { ...(subscription.where ? { where: subscription.where } : {}), ...(subscription.fields ? { select: subscription.fields } : {}), limit: 1 };
}

function headerValue(value: string | string[] | undefined): string | undefined {
  const one = Array.isArray(value) ? value[0] : value;
  return one && one.length <= 100 ? one : undefined;
}

/** What identifies a request's credential: the headers the authenticator reads. */
function credentialOf(request: FastifyRequest): string {
  const { authorization, cookie } = request.headers;
  return JSON.stringify([request.environmentId, authorization ?? null, request.headers['x-api-key'] ?? null, cookie ?? null]);
}

/**
 * The credential checked again: the principal with its grants resolved (as the HTTP guard resolves
 * them for every request), null when it is no longer valid, `unknown` when the check itself failed.
 */
async function authenticateAgain(auth: AuthSession, grants: AccessGrants | undefined, request: FastifyRequest): Promise<Principal | null | 'unknown'> {
  try {
    const principal = await auth.authenticate(request);
    return principal && grants ? await grants.resolve(principal) : principal;
  } catch (error) {
    return isCodedError(error) && error.status < 500 ? null : 'unknown';
  }
}

/** No longer valid ends the stream; a principal that reads differently now makes it reconnect. */
function endIfChanged(member: Member, now: Principal | null): void {
  if (member.stream.closed) return;
  if (!now) {
    member.stream.end({ event: 'error', data: { code: 'UNAUTHENTICATED', message: 'The credential of this stream is no longer valid.' } });
    return;
  }
  if (principalKey(now) !== principalKey(member.principal)) {
    member.stream.end({ event: 'reset', data: { reason: 'access_changed', message: 'What this stream may read changed: reconnect.' } });
  }
}
