import type { AuthIdentity, CreateUserInput, ImportUsersInput } from '../../../capabilities/authIdentity.ts';
import type { HttpRoutes } from '../../../capabilities/httpRoutes.ts';
import { requestContext } from './fetchBridge.ts';

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

export function addAdminRoutes(routes: HttpRoutes, identity: AuthIdentity): void {
  routes.add({
    method: 'POST', path: '/auth/admin/create-user', permission: USERS_ADMIN, tags: ['auth'], successStatus: 201, errorStatuses: [409],
    summary: 'Create a user, optionally with a one-time password returned once',
    schema: { body: createUserBody },
    handler: async (request, reply) => {
      const created = await identity.createUser(request.body as CreateUserInput, requestContext(request));
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
    handler: async (request) => identity.importUsers(request.body as ImportUsersInput, requestContext(request)),
  });
}
