import type { EmailSend } from '../../../capabilities/emailSend.ts';
import type { HttpRoutes } from '../../../capabilities/httpRoutes.ts';

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
  },
};

export function addEmailRoutes(routes: HttpRoutes, email: EmailSend): void {
  routes.add({
    method: 'POST', path: '/email/send', permission: EMAIL_SEND_PERMISSION, tags: ['email'],
    summary: 'Send one email through the configured provider',
    bodyLimit: 2_500_000,
    schema: { body: sendBody, response: { 200: { type: 'object', properties: { sent: { type: 'boolean' } } } } },
    handler: async (request) => {
      const body = request.body as { to: string; subject: string; text: string; html?: string };
      await email.send({ to: body.to, subject: body.subject, text: body.text, ...(body.html !== undefined ? { html: body.html } : {}) });
      return { sent: true };
    },
  });
}
