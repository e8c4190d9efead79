import { dataContextOf, type DataEngine } from '../../../capabilities/dataEngine.ts';
import type { EmailMessage, EmailSend } from '../../../capabilities/emailSend.ts';
import type { HttpRoutes } from '../../../capabilities/httpRoutes.ts';
import type { MetadataRegistry } from '../../../capabilities/metadataRegistry.ts';
import { codedError } from '../../../kernel/errors.ts';
import { apiObject } from '../../../metadata/apiObject.ts';

/** Permission key of `POST /email/send` (admins hold every permission). */
export const EMAIL_SEND_PERMISSION = 'email:send';

const sendBody = {
  type: 'object',
  required: ['to', 'subject', 'text'],
  additionalProperties: false,
  properties: {
    to: { type: 'string', format: 'email', maxLength: 320 },
    // Header injection is impossible through nodemailer, but a subject is one line anyway.
    subject: { type: 'string', minLength: 1, maxLength: 998, pattern: '^[^\\r\\n]*$' },
    text: { type: 'string', minLength: 1, maxLength: 1_000_000 },
    html: { type: 'string', maxLength: 1_000_000 },
    // The record the mail is about: kept in the email log (never the body) and shown on its timeline.
    about: {
      type: 'object', required: ['object', 'recordId'], additionalProperties: false,
      properties: { object: { type: 'string', pattern: '^[a-z][a-z0-9_]{0,62}$' }, recordId: { type: 'string', minLength: 1, maxLength: 64 } },
    },
  },
};

/** What `about` needs: the record is checked as the caller before anything is sent. */
export interface AboutDeps {
  engine: DataEngine | undefined;
  metadata: MetadataRegistry | undefined;
}

export function addEmailRoutes(routes: HttpRoutes, email: EmailSend, deps: AboutDeps = { engine: undefined, metadata: undefined }): void {
  routes.add({
    method: 'POST', path: '/email/send', permission: EMAIL_SEND_PERMISSION, tags: ['email'],
    errorStatuses: [404, 405, 503],
    summary: 'Send one email through the configured provider; with `about`, about a record the caller can read (kept in the email log, shown on its timeline)',
    bodyLimit: 2_500_000,
    schema: { body: sendBody, response: { 200: { type: 'object', properties: { sent: { type: 'boolean' } } } } },
    handler: async (request) => {
      const body = request.body as { to: string; subject: string; text: string; html?: string; about?: { object: string; recordId: string } };
      const message: EmailMessage = { to: body.to, environmentId: request.environmentId, subject: body.subject, text: body.text, ...(body.html !== undefined ? { html: body.html } : {}) };
      if (body.about) {
        if (!deps.engine || !deps.metadata) throw codedError('SERVICE_OFF', { service: 'Email about a record', reason: 'the data engine is not running', fix: 'enable the data plugin' });
        // Only about a record the caller can read: a hidden or missing one is 404 alike, and nothing is sent.
        const object = apiObject(deps.metadata, body.about.object, 'get');
        await deps.engine.get(object.name, body.about.recordId, { select: ['id'] }, dataContextOf(request));
        const principal = request.principal;
        message.about = { environmentId: request.environmentId, object: object.name, recordId: body.about.recordId, sentBy: principal && principal.kind !== 'system' ? principal.userId : null };
      }
      await email.send(message);
      return { sent: true };
    },
  });
}
