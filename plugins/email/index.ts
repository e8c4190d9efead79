import type { EmailSend } from '../../capabilities/emailSend.ts';
import { definePlugin } from '../../kernel/definePlugin.ts';
import { emailOptionsSchema } from './emailOptions.ts';
import { logProvider } from './logProvider.ts';
import { resolveEmailSettings } from './resolveEmailSettings.ts';
import { smtpProvider } from './smtpProvider.ts';

type Provider = EmailSend & { close(): Promise<void> };

const providers = new WeakMap<object, Provider>();

/**
 * Outgoing mail: provides `email.send` (password reset, verification, invitations, magic links)
 * through SMTP, or a log-only provider in development. `email-routes` serves `POST /api/v1/email/send`.
 */
export default definePlugin({
  name: 'email',
  version: '16.0.0',
  kernel: '^16.0.0',
  requires: ['runtime.info'],
  provides: ['email.send'],
  options: emailOptionsSchema,
  register(ctx) {
    const info = ctx.resolve('runtime.info');
    // Checked here, not at first use: a production server without mail fails its boot, not a reset.
    const settings = resolveEmailSettings(ctx.options, process.env, info.production);
    const provider = settings.provider === 'smtp' ? smtpProvider(settings.smtp, ctx.log) : logProvider(ctx.log);
    if (settings.provider === 'log' && info.production) {
      ctx.log.warn('plugins.email.provider is log: mails are not delivered, only their recipient and subject are logged.');
    }
    providers.set(ctx, provider);
    ctx.provide('email.send', { send: (message) => provider.send(message) });
  },
  async stop(ctx) {
    await providers.get(ctx)?.close();
  },
});
