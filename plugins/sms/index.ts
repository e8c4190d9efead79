import { definePlugin } from '../../kernel/definePlugin.ts';
import { environmentSenders, senderOf, settingsOptions } from './environmentSenders.ts';
import { resolveSmsSettings } from './resolveSmsSettings.ts';
import { smsOptionsSchema } from './smsOptions.ts';

/**
 * Outgoing text messages: provides `sms.send` (phone sign-in codes, invitations, notifications)
 * through Twilio or Vonage, or a log-only provider in development. Runs when config has an `sms`
 * section or phone authentication is on. An environment whose admin set `sms` settings
 * (docs/settings.md) sends through its own provider.
 */
export default definePlugin({
  name: 'sms',
  version: '16.0.0',
  kernel: '^16.0.0',
  requires: ['runtime.info'],
  optional: ['dev.outbox', 'settings.store'],
  provides: ['sms.send'],
  options: smsOptionsSchema,
  register(ctx) {
    const info = ctx.resolve('runtime.info');
    const log = ctx.log;
    const outbox = () => ctx.resolve('dev.outbox');
    // Checked here, not at first use: a production server without SMS fails its boot, not a sign-in.
    const fallback = senderOf(ctx.options, process.env, info.production, log, outbox);
    if (fallback.provider === 'log' && info.production) {
      log.warn('sms.provider is log: text messages are not delivered, only their recipient is logged.');
    }
    const chooser = environmentSenders({ options: ctx.options, fallback: fallback.sender, production: info.production, log, store: () => ctx.resolve('settings.store'), outbox });
    // A settings write is checked by the resolver that reads it: what is stored, texts can use.
    ctx.resolve('settings.store')?.resolveWith('sms', (values) => {
      resolveSmsSettings(settingsOptions(ctx.options, values), process.env, info.production);
    });
    ctx.provide('sms.send', { send: (message) => chooser.senderFor(message).then((sender) => sender.send(message)) });
  },
});
