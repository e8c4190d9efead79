import { fileURLToPath } from 'node:url';
import type { DataEngine } from '../../capabilities/dataEngine.ts';
import { definePlugin } from '../../kernel/definePlugin.ts';
import { EMAIL_LOG_OBJECT, EMAIL_LOG_RETENTION_DAYS, withEmailLog } from './emailLog.ts';
import { emailOptionsSchema } from './emailOptions.ts';
import { environmentProviders, providerOf, settingsOptions, type Provider } from './environmentProviders.ts';
import { resolveEmailSettings } from './resolveEmailSettings.ts';

const providers = new WeakMap<object, Provider>();

/**
 * Outgoing mail: provides `email.send` (password reset, verification, invitations, magic links)
 * through SMTP, or a log-only provider in development. `email-routes` serves `POST /api/v1/email/send`.
 * A message sent with `about` (the record it is about) leaves a row in the engine-owned
 * sys_email_log, sent or failed, without its body: the record's timeline shows it; a record deleted
 * for good takes its rows with it. See docs/auth.md (Email, Email log).
 */
export default definePlugin({
  name: 'email',
  version: '16.0.0',
  kernel: '^16.0.0',
  requires: ['runtime.info'],
  optional: ['data.engine', 'data.database', 'metadata.registry', 'settings.store', 'dev.outbox'],
  provides: ['email.send'],
  options: emailOptionsSchema,
  register(ctx) {
    const info = ctx.resolve('runtime.info');
    // Checked here, not at first use: a production server without mail fails its boot, not a reset.
    const outbox = () => ctx.resolve('dev.outbox');
    const fallback = providerOf(ctx.options, info.production, ctx.log, outbox);
    // Production uses the log provider only when told to (resolveEmailSettings).
    if (ctx.options.provider === 'log' && info.production) {
      ctx.log.warn('plugins.email.provider is log: mails are not delivered, only their recipient and subject are logged.');
    }
    // An environment whose admin set `email` settings (docs/settings.md) sends through its own server.
    const chooser = environmentProviders({ options: ctx.options, fallback, production: info.production, log: ctx.log, store: () => ctx.resolve('settings.store'), outbox });
    // A settings write is checked by the resolver that reads it: what is stored, mail can use.
    ctx.resolve('settings.store')?.resolveWith('email', (values) => {
      const { options, env } = settingsOptions(ctx.options, values);
      resolveEmailSettings(options, env, info.production);
    });
    providers.set(ctx, { send: (message) => chooser.providerFor(message).then((p) => p.send(message)), close: async () => { await chooser.close(); await fallback.close(); } });
    const provider = providers.get(ctx)!;
    const metadata = ctx.resolve('metadata.registry');
    // The log lives in each environment's database: without the data engine no row is kept.
    const database = ctx.resolve('data.database');
    if (metadata && ctx.resolve('data.engine') && database) {
      metadata.contributeApp(fileURLToPath(new URL('./system-app', import.meta.url)));
      // A record deleted for good (a delete without trash, or a purge) takes its email log with it, in the same transaction.
      ctx.hook('data.afterDelete', async (event: { object: string; previous: { id: unknown }; trash?: boolean; ctx: { environmentId: string }; engine: DataEngine }) => {
        if (event.trash || metadata.object(event.object)?.system !== false) return;
        await database.withDatabase(event.ctx.environmentId, ({ knex }) =>
          knex(EMAIL_LOG_OBJECT).where({ object: event.object, record_id: String(event.previous.id) }).delete(), event.engine);
      });
      ctx.retention({
        name: 'email.log', object: EMAIL_LOG_OBJECT, keepDays: EMAIL_LOG_RETENTION_DAYS, action: 'delete', ageField: 'sent_at',
        description: 'Emails sent about a record (recipients, subject, sender, status; never the body): deleted once older than the window.',
      });
    }
    const send = withEmailLog((message) => provider.send(message), { engine: () => ctx.resolve('data.engine'), metadata: () => metadata, log: ctx.log });
    ctx.provide('email.send', { send });
  },
  async stop(ctx) {
    await providers.get(ctx)?.close();
  },
});
