import type { FastifyReply, FastifyRequest } from 'fastify';
import { auditSourceOf } from '../../capabilities/auditRecord.ts';
import { dataContextOf } from '../../capabilities/dataEngine.ts';
import type { HttpRoutes } from '../../capabilities/httpRoutes.ts';
import type { MetadataRegistry } from '../../capabilities/metadataRegistry.ts';
import { codedError, isCodedError } from '../../kernel/errors.ts';
import type { WindowRateLimiter, WindowRule } from '../../kernel/windowRateLimiter.ts';
import { apiObject } from '../../metadata/apiObject.ts';
import type { ShareLinks, SharedRecord } from './createShareLinks.ts';
import { messagePage, SHARE_PAGE_CSP, sharedPage } from './shareLinkPage.ts';

const NAME = { type: 'string', pattern: '^[a-z][a-z0-9_]{0,62}$' };
const ID = { type: 'string', minLength: 1, maxLength: 64 };
const TOKEN = { type: 'string', minLength: 1, maxLength: 200 };
const createBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    fields: { type: 'array', maxItems: 200, items: { type: 'string', minLength: 1, maxLength: 100 }, description: 'The fields shown; leave out for every field the creator may read' },
    expiresAt: { type: 'string', maxLength: 40, description: 'ISO 8601 date-time; default: plugins.share-links.defaultDays from now' },
  },
};

/**
 * Every answer for a link that cannot be read takes at least this long: a random token, a revoked
 * or expired link and a record its creator lost do different work, and must not be told apart by time.
 */
export const NOT_FOUND_FLOOR_MS = 50;

export interface ShareLinkRouteDeps {
  links: ShareLinks;
  metadata: MetadataRegistry;
  limiter: WindowRateLimiter;
  rule: WindowRule;
  defaultEnvironment: string;
  publicOrigin: string | undefined;
}

function caller(request: FastifyRequest) {
  if (!request.principal) throw codedError('UNAUTHENTICATED');
  return request.principal;
}

/** Where a link is read: the environment's API prefix, so a link of one environment never reads another's. */
function linkPath(environmentId: string, defaultEnvironment: string, token: string): string {
  const prefix = environmentId === defaultEnvironment ? '/api/v1' : `/api/v1/environments/${encodeURIComponent(environmentId)}`;
  return `${prefix}/share-links/${token}`;
}

/**
 * Where a link is read: `url` is `GET /share-links/:token` (JSON), as the contract names it;
 * `pageUrl` the HTML page; `apiUrl`, the same as `url`, is kept for clients written against it.
 */
export function linkUrls(json: string): { url: string; apiUrl: string; pageUrl: string } {
  return { url: json, apiUrl: json, pageUrl: `${json}/page` };
}

function noStore(reply: FastifyReply): FastifyReply {
  // The token is in the URL: never cached, never sent on as a Referer.
  return reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').header('x-robots-tag', 'noindex').header('x-content-type-options', 'nosniff');
}

/** POST /data/:object/:id/share-links, GET /share-links (own; ?all=true for admins), DELETE /share-links/:id, and the anonymous reads. */
export function addShareLinkRoutes(routes: HttpRoutes, deps: ShareLinkRouteDeps): void {
  const { links } = deps;

  /** The shared record for an anonymous reader: rate-limited per IP; who the caller is (or claims to be) changes nothing. */
  async function readShared(request: FastifyRequest): Promise<SharedRecord> {
    const started = Date.now();
    await deps.limiter.hit(`share-link|${request.environmentId}|${request.ip}`, deps.rule);
    try {
      return await links.read(request.environmentId, (request.params as { token: string }).token);
    } catch (error) {
      if (isCodedError(error) && error.code === 'NOT_FOUND') {
        const wait = started + NOT_FOUND_FLOOR_MS - Date.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      }
      throw error;
    }
  }

  routes.add({
    method: 'POST', path: '/data/:object/:id/share-links', tags: ['share-links'], successStatus: 201, errorStatuses: [405],
    summary: 'Make an anonymous read-only link to a record the caller may read: { id, url, token } (url: the JSON read; pageUrl: the HTML page), the token shown once',
    schema: { params: { type: 'object', properties: { object: NAME, id: ID }, required: ['object', 'id'] }, body: createBody },
    handler: async (request, reply) => {
      const principal = caller(request);
      const { object, id } = request.params as { object: string; id: string };
      const target = apiObject(deps.metadata, object, 'get');
      if (target.system) throw codedError('NOT_FOUND', { what: `Object '${object}'`, object });
      const created = await links.create(target, id, (request.body ?? {}) as { fields?: string[]; expiresAt?: string }, { ...dataContextOf(request), principal }, auditSourceOf(request));
      const path = linkPath(request.environmentId, deps.defaultEnvironment, created.token);
      reply.code(201);
      noStore(reply);
      const { token, ...view } = created;
      return { ...view, id: created.id, token, ...linkUrls(`${deps.publicOrigin ?? ''}${path}`) };
    },
  });
  routes.add({
    method: 'GET', path: '/share-links', tags: ['share-links'],
    summary: "The caller's share links, newest first (never a token); ?all=true lists every link (admins)",
    schema: {
      querystring: {
        type: 'object', additionalProperties: false,
        properties: { all: { type: 'boolean', default: false }, limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 }, offset: { type: 'integer', minimum: 0, maximum: 100_000, default: 0 } },
      },
    },
    handler: (request) => {
      const { all, limit, offset } = request.query as { all: boolean; limit: number; offset: number };
      return links.list(request.environmentId, caller(request), all, { limit, offset });
    },
  });
  routes.add({
    method: 'DELETE', path: '/share-links/:id', tags: ['share-links'], successStatus: 204,
    summary: 'Revoke one of the caller\'s share links (admins: any); it answers 404 from then on',
    schema: { params: { type: 'object', properties: { id: ID }, required: ['id'] } },
    handler: async (request, reply) => {
      await links.revoke(request.environmentId, caller(request), (request.params as { id: string }).id, auditSourceOf(request));
      return reply.code(204).send();
    },
  });
  routes.add({
    method: 'GET', path: '/share-links/:token', public: true, tags: ['share-links'], errorStatuses: [404, 429],
    summary: 'The shared record as JSON, anonymously: the fields chosen at creation that its creator may read now; 404 alike for every link that cannot be read',
    schema: { params: { type: 'object', properties: { token: TOKEN }, required: ['token'] } },
    handler: async (request, reply) => {
      noStore(reply);
      return readShared(request);
    },
  });
  routes.add({
    method: 'GET', path: '/share-links/:token/page', public: true, tags: ['share-links'], errorStatuses: [404, 429], contentType: 'text/html',
    summary: 'The shared record as a small read-only HTML page (no script; strict Content-Security-Policy)',
    schema: { params: { type: 'object', properties: { token: TOKEN }, required: ['token'] } },
    handler: async (request, reply) => {
      noStore(reply).type('text/html; charset=utf-8').header('content-security-policy', SHARE_PAGE_CSP).header('x-frame-options', 'DENY');
      try {
        return reply.send(sharedPage(await readShared(request)));
      } catch (error) {
        if (!isCodedError(error) || error.status >= 500) throw error;
        if (error.code === 'RATE_LIMITED') {
          reply.header('retry-after', String(error.details.retryAfter ?? 60));
          return reply.code(429).send(messagePage('Too many requests', 'Wait a minute, then reload this page.'));
        }
        return reply.code(404).send(messagePage('Link not found', 'This link does not exist, has expired or was revoked.'));
      }
    },
  });
}
