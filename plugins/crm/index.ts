import { z } from 'zod';
import { dataContextOf } from '../../capabilities/dataEngine.ts';
import { definePlugin } from '../../kernel/definePlugin.ts';
import { apiObject } from '../../metadata/apiObject.ts';
import { codedError } from '../../kernel/errors.ts';
import { convertLead, type ConvertInput } from './convertLead.ts';

const convertBody = z.strictObject({
  accountId: z.string().min(1).max(64).optional(),
  contactId: z.string().min(1).max(64).optional(),
  createOpportunity: z.union([z.boolean(), z.record(z.string(), z.unknown())]).optional(),
});

/** Logic of the CRM template app: lead conversion. Needs the crm app's objects. */
export default definePlugin({
  name: 'crm',
  version: '16.0.0',
  kernel: '^16.0.0',
  requires: ['http.routes', 'data.engine', 'metadata.registry'],
  register(ctx) {
    const engine = ctx.resolve('data.engine');
    const metadata = ctx.resolve('metadata.registry');
    ctx.resolve('http.routes').add({
      method: 'POST', path: '/data/lead/:id/convert', tags: ['data', 'crm'], errorStatuses: [409],
      summary: 'Convert a lead into an account, a contact and optionally an opportunity (all or nothing)',
      schema: { params: { type: 'object', properties: { id: { type: 'string', minLength: 1, maxLength: 64 } }, required: ['id'] } },
      handler: (request) => {
        apiObject(metadata, 'lead', 'update');
        const parsed = convertBody.safeParse(request.body ?? {});
        if (!parsed.success) {
          const errors = parsed.error.issues.map((i) => ({ path: i.path.join('.') || 'body', message: i.message }));
          throw codedError('VALIDATION_ERROR', { summary: errors.map((e) => `${e.path} ${e.message}`).join('; '), errors });
        }
        return convertLead(engine, (request.params as { id: string }).id, parsed.data as ConvertInput, dataContextOf(request));
      },
    });
  },
  start(ctx) {
    const metadata = ctx.resolve('metadata.registry');
    const missing = ['lead', 'account', 'contact', 'opportunity'].filter((name) => !metadata.object(name));
    if (missing.length > 0) {
      throw codedError('CONFIG_INVALID', { path: 'plugins.crm', reason: `the crm plugin needs the crm app's objects (missing: ${missing.join(', ')}); add metadata/apps/crm to apps or disable the plugin` });
    }
  },
});
