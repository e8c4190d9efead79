import { readFile } from 'node:fs/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { definePlugin } from '../../kernel/definePlugin.ts';
import { buildDocument } from './buildDocument.ts';
import { versionDocument } from './versionDocument.ts';
import { EXPLORER_CSP, explorerBase, explorerPage } from './explorer/explorerPage.ts';

interface Asset {
  path: string;
  file: string;
  type: string;
}

const ASSETS: Asset[] = [
  { path: '/docs/explorer.js', file: 'explorer.js', type: 'text/javascript; charset=utf-8' },
  { path: '/docs/explorer.css', file: 'explorer.css', type: 'text/css; charset=utf-8' },
];

interface OpenApiState {
  assets: Map<string, string>;
  /** The last document built per API version, as JSON, with the metadata version it was built for. */
  cached: Map<string, { version: string; json: string }>;
}

const states = new WeakMap<object, OpenApiState>();

function secure(reply: FastifyReply, type: string): void {
  reply.type(type).header('content-security-policy', EXPLORER_CSP).header('x-content-type-options', 'nosniff').header('referrer-policy', 'no-referrer');
}

/**
 * The live API description: GET /api/v1/openapi.json, built at request time from the mounted
 * routes and the metadata (rebuilt when the metadata version changes), and the API explorer
 * page at /api/v1/docs that renders it. The document is authenticated like any route (it lists
 * the whole surface, permission keys included); the explorer page itself is public.
 */
export default definePlugin({
  name: 'openapi',
  version: '16.0.0',
  kernel: '^16.0.0',
  requires: ['http.routes', 'metadata.registry', 'runtime.info'],
  register(ctx) {
    const state: OpenApiState = { assets: new Map(), cached: new Map() };
    states.set(ctx, state);
    const routes = ctx.resolve('http.routes');
    const metadata = ctx.resolve('metadata.registry');
    const info = ctx.resolve('runtime.info');
    const contentTypes: Record<string, string> = { 'GET /api/v1/docs': 'text/html' };
    for (const asset of ASSETS) contentTypes[`GET /api/v1${asset.path}`] = asset.type.split(';')[0]!;

    routes.add({
      method: 'GET', path: '/openapi.json', tags: ['discovery'],
      summary: 'OpenAPI 3.0 description of every route this runtime serves, with per-object data paths and schemas',
      schema: { querystring: { type: 'object', additionalProperties: false } },
      handler: (request: FastifyRequest, reply: FastifyReply) => {
        const version = metadata.version();
        let cached = state.cached.get(request.apiVersion);
        if (cached?.version !== version) {
          const document = versionDocument(buildDocument({
            routes: routes.list(), objects: metadata.objects(), version: info.version, metadataVersion: version,
            environments: info.environments.map((e) => e.id), defaultEnvironment: info.defaultEnvironment, requireAuth: info.requireAuth, production: info.production,
            contentTypes,
          }), request.apiVersion);
          cached = { version, json: JSON.stringify(document) };
          state.cached.set(request.apiVersion, cached);
        }
        const etag = request.apiVersion === 'v1' ? `"${version}"` : `"${request.apiVersion}-${version}"`;
        reply.header('etag', etag).header('cache-control', 'no-cache');
        if (request.headers['if-none-match'] === etag) return reply.code(304).send();
        return reply.type('application/json; charset=utf-8').send(cached.json);
      },
    });
    routes.add({
      method: 'GET', path: '/docs', public: true, tags: ['discovery'], summary: 'API explorer: a page rendering the live OpenAPI document',
      schema: { querystring: { type: 'object', additionalProperties: false } },
      handler: (request: FastifyRequest, reply: FastifyReply) => {
        secure(reply, 'text/html; charset=utf-8');
        reply.header('cache-control', 'no-cache');
        return reply.send(explorerPage(explorerBase(request.url)));
      },
    });
    for (const asset of ASSETS) {
      routes.add({
        method: 'GET', path: asset.path, public: true, tags: ['discovery'], summary: `API explorer asset: ${asset.file}`,
        handler: (_request: FastifyRequest, reply: FastifyReply) => {
          secure(reply, asset.type);
          reply.header('cache-control', 'public, max-age=300');
          return reply.send(state.assets.get(asset.file));
        },
      });
    }
  },
  async start(ctx) {
    const state = states.get(ctx)!;
    for (const asset of ASSETS) state.assets.set(asset.file, await readFile(new URL(`./explorer/${asset.file}`, import.meta.url), 'utf8'));
  },
});
