import type { BetterAuthPlugin } from 'better-auth';
import { deviceAuthorization, magicLink, twoFactor } from 'better-auth/plugins';
import type { EmailSend } from '../../capabilities/emailSend.ts';
import type { AuthOptions } from './authOptions.ts';
import { environmentAuthUrl } from './environmentAuthUrl.ts';
import { provisionedMagicLink } from './provisionedAccounts.ts';

export const TWO_FACTOR_TABLE = 'sys_two_factor';
export const DEVICE_CODE_TABLE = 'sys_device_code';

/** Second factor (TOTP, backup codes), magic links, the device authorization grant and passkeys (made by passkeyPlugin.ts, when on), as configured. */
export function signInMethods(options: AuthOptions, email: EmailSend | undefined, environmentId: string, passkeys: BetterAuthPlugin | null = null): BetterAuthPlugin[] {
  const plugins: BetterAuthPlugin[] = [];
  if (options.twoFactor.enabled) {
    plugins.push(twoFactor({
      issuer: options.twoFactor.issuer,
      schema: { twoFactor: { modelName: TWO_FACTOR_TABLE } },
      // Ten wrong codes lock the second factor for 15 minutes: six digits are guessable otherwise.
      accountLockout: { enabled: true, maxFailedAttempts: 10, durationSeconds: 900 },
    }) as unknown as BetterAuthPlugin);
  }
  if (options.magicLink.enabled && email) {
    const minutes = Math.max(1, Math.round(options.magicLink.expiresIn / 60));
    plugins.push(magicLink({
      expiresIn: options.magicLink.expiresIn,
      disableSignUp: !options.signUp,
      // Only a hash is stored: a database read does not yield usable links.
      storeToken: 'hashed',
      async sendMagicLink({ email: to, url }) {
        await email.send({
          to,
          environmentId,
          subject: 'Your sign-in link',
          text: `Sign in as ${to}: ${environmentAuthUrl(url, environmentId)}\n\nThe link works once, within ${minutes} minute(s). If you did not ask for it, ignore this message.`,
        });
      },
    }) as unknown as BetterAuthPlugin);
    plugins.push(provisionedMagicLink());
  }
  const device = options.deviceAuthorization;
  if (device.enabled) {
    const clients = new Set(device.clientIds);
    plugins.push(deviceAuthorization({
      expiresIn: `${device.expiresIn}s`,
      interval: `${device.interval}s`,
      validateClient: (clientId: string) => clients.has(clientId),
      verificationUri: device.verificationUri,
      schema: { deviceCode: { modelName: DEVICE_CODE_TABLE } },
    }) as unknown as BetterAuthPlugin);
  }
  if (passkeys) plugins.push(passkeys);
  return plugins;
}
