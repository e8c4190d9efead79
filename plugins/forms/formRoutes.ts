import type { FastifyReply, FastifyRequest } from 'fastify';
import type { HttpRoutes } from '../../capabilities/httpRoutes.ts';
import { isCodedError } from '../../kernel/errors.ts';
import { DEFAULT_FORM_BODY_BYTES } from '../../metadata/formTypes.ts';
import type { FormsService } from './createFormsService.ts';
import { FORM_CSP, FORM_ICON_PATH, FORM_SCRIPT_PATH, FORM_STYLE_PATH, formPage, messagePage } from './formPage.ts';

const params = {
  type: 'object',
  properties: { slug: { type: 'string', pattern: '^[a-z0-9]+(-[a-z0-9]+)*$', maxLength: 63 } },
  required: ['slug'],
};

const fieldSchema = {
  type: 'object',
  properties: {
    name: { type: 'string' }, type: { type: 'string' }, label: { type: 'string' },
    help: { type: 'string', nullable: true }, placeholder: { type: 'string', nullable: true }, required: { type: 'boolean' },
    maxLength: { type: 'integer', nullable: true }, min: { type: 'number', nullable: true }, max: { type: 'number', nullable: true },
    options: { type: 'array', nullable: true, items: { type: 'object', properties: { value: { type: 'string' }, label: { type: 'string' } }, required: ['value', 'label'] } },
    reference: { type: 'string', nullable: true },
  },
  required: ['name', 'type', 'label', 'required'],
};

const formSchema = {
  type: 'object',
  properties: {
    slug: { type: 'string' }, object: { type: 'string' }, title: { type: 'string' }, description: { type: 'string', nullable: true },
    allowAnonymous: { type: 'boolean' }, submitLabel: { type: 'string' }, honeypot: { type: 'string' }, maxBodyBytes: { type: 'integer' },
    fields: { type: 'array', items: fieldSchema },
  },
  required: ['slug', 'object', 'title', 'allowAnonymous', 'fields'],
};

function secure(reply: FastifyReply, type: string): FastifyReply {
  return reply.type(type).header('content-security-policy', FORM_CSP).header('x-content-type-options', 'nosniff')
    .header('x-frame-options', 'DENY').header('referrer-policy', 'no-referrer');
}

/** The submit URL of the environment the page was served for. */
function submitUrl(request: FastifyRequest, slug: string, defaultEnvironment: string): string {
  const prefix = request.environmentId === defaultEnvironment ? '/api/v1' : `/api/v1/environments/${encodeURIComponent(request.environmentId)}`;
  return `${prefix}/forms/${slug}/submit`;
}

export interface FormAssets {
  script: string;
  style: string;
  icon: string;
}

/** GET /forms/:slug, POST /forms/:slug/submit, the page at /f/:slug and its two files. */
export function addFormRoutes(routes: HttpRoutes, service: FormsService, assets: FormAssets, defaultEnvironment: string): void {
  const bodyLimit = Math.max(DEFAULT_FORM_BODY_BYTES, ...service.list().map((f) => f.maxBodyBytes));
  routes.add({
    method: 'GET', path: '/forms/:slug', public: true, tags: ['forms'], errorStatuses: [404],
    summary: 'The schema of a form: its fields with type, label, help, required, maxLength, bounds and options. Anonymous callers only for forms with sharing.allowAnonymous',
    schema: { params, response: { 200: formSchema } },
    handler: (request) => service.schema(service.open((request.params as { slug: string }).slug, request.principal)),
  });
  routes.add({
    method: 'POST', path: '/forms/:slug/submit', public: true, scope: 'data:write', tags: ['forms'], successStatus: 201, bodyLimit,
    errorStatuses: [403, 404, 409, 429, 503],
    summary: "Submit a form: exactly the form's fields (any other key, the owner and system fields among them, is refused by name); creates one record and answers its id and the success message. Rate limited per IP",
    schema: {
      params,
      body: { type: 'object', additionalProperties: true, maxProperties: 200 },
      response: { 201: { type: 'object', properties: { id: { type: 'string' }, message: { type: 'string' } }, required: ['id', 'message'] } },
    },
    handler: async (request, reply) => {
      const form = service.open((request.params as { slug: string }).slug, request.principal);
      const length = Number(request.headers['content-length']);
      const body = request.body as Record<string, unknown>;
      const result = await service.submit(form, {
        environmentId: request.environmentId, principal: request.principal, ip: request.ip, requestId: request.id,
        bodyBytes: Number.isFinite(length) ? length : Buffer.byteLength(JSON.stringify(body)), body,
      });
      reply.code(201).header('cache-control', 'no-store');
      return result;
    },
  });
  routes.add({
    method: 'GET', path: '/f/:slug', root: true, public: true, tags: ['forms'], errorStatuses: [401, 403, 404], contentType: 'text/html',
    summary: 'The form as an HTML page with its strict Content-Security-Policy; a form without allowAnonymous answers 401 and a sign-in hint to anonymous callers',
    schema: { params },
    handler: (request, reply) => {
      const slug = (request.params as { slug: string }).slug;
      secure(reply, 'text/html; charset=utf-8').header('cache-control', 'no-store');
      try {
        const form = service.open(slug, request.principal);
        return reply.send(formPage(form, submitUrl(request, form.slug, defaultEnvironment)));
      } catch (error) {
        if (!isCodedError(error)) throw error;
        if (error.code === 'UNAUTHENTICATED') {
          return reply.code(401).send(messagePage('Sign-in required', 'This form is for signed-in users. Sign in to this site in this browser, then reload this page.'));
        }
        if (error.code === 'PASSWORD_EXPIRED') {
          return reply.code(403).send(messagePage('Password change required', 'Change the password of your account, then reload this page.'));
        }
        return reply.code(error.status).send(messagePage('Form not found', 'There is no form at this address.'));
      }
    },
  });
  routes.add({
    method: 'GET', path: FORM_SCRIPT_PATH, root: true, public: true, tags: ['forms'], contentType: 'text/javascript', summary: 'The script of the form pages (client-side checks and submission)',
    handler: (_request, reply) => secure(reply, 'text/javascript; charset=utf-8').header('cache-control', 'public, max-age=300').send(assets.script),
  });
  routes.add({
    method: 'GET', path: FORM_STYLE_PATH, root: true, public: true, tags: ['forms'], contentType: 'text/css', summary: 'The style sheet of the form pages',
    handler: (_request, reply) => secure(reply, 'text/css; charset=utf-8').header('cache-control', 'public, max-age=300').send(assets.style),
  });
  routes.add({
    method: 'GET', path: FORM_ICON_PATH, root: true, public: true, tags: ['forms'], contentType: 'image/svg+xml', summary: 'The icon of the form pages',
    handler: (_request, reply) => secure(reply, 'image/svg+xml').header('cache-control', 'public, max-age=300').send(assets.icon),
  });
}
