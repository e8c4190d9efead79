import type { AuthIdentity, CreateUserInput, ImportUsersInput } from '../../../capabilities/authIdentity.ts';
import type { HttpRoutes } from '../../../capabilities/httpRoutes.ts';
import { requestContext } from './fetchBridge.ts';
import { recordAuth, type AuthAudit } from './recordAuthEvents.ts';

/** Route permission key of user administration; admins hold every key. */
export const USERS_ADMIN = 'users:admin';

const createUserBody = {
  type: 'object',
  required: ['email'],
  additionalProperties: false,
  properties: {
    email: { type: 'string', minLength: 3, maxLength: 254 },
    name: { type: 'string', minLength: 1, maxLength: 200 },
    password: { type: 'string', maxLength: 128 },
    generatePassword: { type: 'boolean' },
    mustChangePassword: { type: 'boolean' },
  },
};

const importBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    rows: { type: 'array', items: { type: 'object' } },
    csv: { type: 'string' },
    xlsx: { type: 'string', description: 'base64 of an .xlsx workbook' },
    dryRun: { type: 'boolean' },
    upsertBy: { type: 'string', enum: ['email', 'phone'] },
    passwordPolicy: { type: 'string', enum: ['auto', 'none'] },
  },
};

export function addAdminRoutes(routes: HttpRoutes, identity: AuthIdentity, audit: AuthAudit): void {
  routes.add({
    method: 'POST', path: '/auth/admin/create-user', permission: USERS_ADMIN, tags: ['auth'], successStatus: 201, errorStatuses: [409],
    summary: 'Create a user, optionally with a one-time password returned once',
    schema: { body: createUserBody },
    handler: async (request, reply) => {
      const created = await identity.createUser(request.body as CreateUserInput, requestContext(request));
      await recordAuth(audit, request, {
        action: 'user.created', target: { type: 'user', id: created.user.id, label: created.user.email },
        after: { email: created.user.email, name: created.user.name, mustChangePassword: created.user.mustChangePassword },
      });
      reply.code(201);
      return created;
    },
  });
  routes.add({
    method: 'POST', path: '/auth/admin/import-users', permission: USERS_ADMIN, tags: ['auth'],
    summary: 'Import up to 500 users from rows, CSV or XLSX (dry run, upsert by email or phone)',
    // 500 rows of XLSX in base64 fit easily; the default limit of 1 MB may not.
    bodyLimit: 10 * 1024 * 1024,
    schema: { body: importBody },
    handler: async (request) => {
      const result = await identity.importUsers(request.body as ImportUsersInput, requestContext(request));
      if (!result.dryRun && result.summary.created + result.summary.updated > 0) {
        const { created, updated, skipped, errors } = result.summary;
        await recordAuth(audit, request, {
          action: 'user.imported', target: { type: 'user' },
          after: { created, updated, skipped, errors, emails: result.rows.filter((r) => r.action === 'create' || r.action === 'update').map((r) => r.email) },
        });
      }
      return result;
    },
  });
}
