import type { FastifyRequest } from 'fastify';
import type { DataDatabase } from '../../capabilities/dataDatabase.ts';
import type { FlowsRunner } from '../../capabilities/flowsRunner.ts';
import type { HttpRoutes } from '../../capabilities/httpRoutes.ts';
import { codedError } from '../../kernel/errors.ts';
import type { Logger } from '../../kernel/logger.ts';
import { claimDelivery, deliveryRun, ensureDeliveryTable, recordDeliveryRun, releaseDelivery, signatureDelivery } from './deliveryStore.ts';
import { checkJson } from '../../kernel/jsonLimits.ts';
import { verifySignature } from './verifySignature.ts';

/** Largest hook body read, bytes. */
export const HOOK_BODY_LIMIT = 1024 * 1024;
const DELIVERY_ID = /^[\x21-\x7e]{1,200}$/;

async function readAll(body: unknown): Promise<Buffer> {
  if (body === undefined || body === null) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  for await (const chunk of body as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/**
 * POST /automation/hooks/:flowName/:hookId: public, verified by signature instead. Every refusal
 * before the signature holds (unknown flow, other hook id, secret unset, bad or stale signature)
 * is the same 401, so the route tells a caller without the secret nothing about the flows.
 */
export function addHookRoute(routes: HttpRoutes, deps: { runner: FlowsRunner; database: DataDatabase; log: Logger }): void {
  const { runner, database, log } = deps;
  const tables = new Map<string, Promise<void>>();
  const withTable = <T>(environmentId: string, work: Parameters<DataDatabase['withDatabase']>[1]) => database.withDatabase(environmentId, async (db) => {
    let ready = tables.get(environmentId);
    if (!ready) tables.set(environmentId, (ready = ensureDeliveryTable(db).catch((error: unknown) => {
      tables.delete(environmentId);
      throw error;
    })));
    await ready;
    return work(db) as Promise<T>;
  });
  const warned = new Set<string>();
  const refuse = (reason: string) => codedError('HOOK_SIGNATURE_INVALID', { reason });

  routes.add({
    method: 'POST', path: '/automation/hooks/:flowName/:hookId', tags: ['automation'], public: true,
    summary: "Inbound hook: starts the api flow's run on the queue; signed with X-OSR-Signature, idempotent on X-OSR-Delivery",
    schema: { params: { type: 'object', required: ['flowName', 'hookId'], properties: { flowName: { type: 'string', maxLength: 63 }, hookId: { type: 'string', maxLength: 63 } } } },
    streamedBody: ['application/json'],
    bodyLimit: HOOK_BODY_LIMIT,
    successStatus: 202,
    errorStatuses: [401, 409],
    handler: async (request: FastifyRequest, reply) => {
      const { flowName, hookId } = request.params as { flowName: string; hookId: string };
      const flow = runner.get(flowName);
      const body = await readAll(request.body);
      if (!flow || flow.type !== 'api' || !flow.hook || flow.hook.id !== hookId) throw refuse('missing');
      const secret = process.env[flow.hook.secretEnv];
      if (!secret) {
        if (!warned.has(flow.name)) {
          warned.add(flow.name);
          log.error({ flow: flow.name, env: flow.hook.secretEnv }, `automation: hook of flow '${flow.name}' refused: the environment variable ${flow.hook.secretEnv} is not set`);
        }
        throw refuse('missing');
      }
      const header = request.headers['x-osr-signature'];
      const check = verifySignature(typeof header === 'string' ? header : undefined, body, secret);
      if (!check.ok) throw refuse(check.reason);

      let input: unknown;
      const text = body.toString('utf8');
      try {
        input = body.length === 0 ? {} : JSON.parse(text);
      } catch {
        throw codedError('VALIDATION_ERROR', { summary: 'the body is not valid JSON', errors: [{ path: 'body', message: 'must be a JSON object' }] });
      }
      checkJson(input, { text });
      const rawDelivery = request.headers['x-osr-delivery'];
      const delivery = typeof rawDelivery === 'string' && rawDelivery !== '' ? rawDelivery : null;
      if (delivery !== null && !DELIVERY_ID.test(delivery)) {
        throw codedError('VALIDATION_ERROR', { summary: 'X-OSR-Delivery must be 1 to 200 visible ASCII characters', errors: [{ path: 'headers/x-osr-delivery', message: 'must be 1 to 200 visible ASCII characters' }] });
      }
      const environmentId = request.environmentId;
      // The signature first: a replay of a signed request is a duplicate whatever delivery id it carries.
      const keys = [signatureDelivery(check.signature), ...(delivery !== null ? [delivery] : [])];
      const claimed: string[] = [];
      const release = () => withTable(environmentId, async (db) => {
        for (const key of claimed) await releaseDelivery(db, flow.name, key);
      });
      for (const key of keys) {
        if (await withTable<boolean>(environmentId, (db) => claimDelivery(db, flow.name, key, new Date()))) {
          claimed.push(key);
          continue;
        }
        if (claimed.length > 0) await release();
        const runId = await withTable<string | null>(environmentId, (db) => deliveryRun(db, flow.name, key));
        return { duplicate: true, ...(runId ? { runId } : {}) };
      }
      let runId: string;
      try {
        ({ runId } = await runner.start(flow.name, input, { environmentId, principal: null, trigger: 'hook', requestId: request.id }));
      } catch (error) {
        await release();
        throw error;
      }
      await withTable(environmentId, async (db) => {
        for (const key of claimed) await recordDeliveryRun(db, flow.name, key, runId);
      });
      reply.code(202);
      return { runId };
    },
  });
}
