import { outboxOutsideProduction } from '../../capabilities/devOutbox.ts';
import type { SmsSend } from '../../capabilities/smsSend.ts';
import { definePlugin } from '../../kernel/definePlugin.ts';
import { logProvider } from './logProvider.ts';
import { resolveSmsSettings } from './resolveSmsSettings.ts';
import { smsOptionsSchema } from './smsOptions.ts';
import { twilioProvider } from './twilioProvider.ts';
import { vonageProvider } from './vonageProvider.ts';

/**
 * Outgoing text messages: provides `sms.send` (phone sign-in codes, invitations) through Twilio
 * or Vonage, or a log-only provider in development. Runs when config has an `sms` section or
 * phone authentication is on.
 */
export default definePlugin({
  name: 'sms',
  version: '16.0.0',
  kernel: '^16.0.0',
  requires: ['runtime.info'],
  optional: ['dev.outbox'],
  provides: ['sms.send'],
  options: smsOptionsSchema,
  register(ctx) {
    const info = ctx.resolve('runtime.info');
    // Checked here, not at first use: a production server without SMS fails its boot, not a sign-in.
    const settings = resolveSmsSettings(ctx.options, process.env, info.production);
    const log = ctx.log;
    const provider: SmsSend = settings.provider === 'twilio' ? twilioProvider(settings.twilio, log)
      : settings.provider === 'vonage' ? vonageProvider(settings.vonage, log)
        : logProvider(log, () => outboxOutsideProduction(info.production, ctx.resolve('dev.outbox')));
    if (settings.provider === 'log' && info.production) {
      log.warn('sms.provider is log: text messages are not delivered, only their recipient is logged.');
    }
    ctx.provide('sms.send', { send: (message) => provider.send(message) });
  },
});
