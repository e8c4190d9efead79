import { codedError } from '../../kernel/errors.ts';
import type { AuthOptions } from './authOptions.ts';

/**
 * In production with email on, mailed links (password reset, verification, invitations, magic
 * links) must carry the configured public origin: without `baseURL` they would follow the Host
 * header of the request that caused the mail, which anyone can set, and a reset link could point
 * at a host of the attacker's choosing. Refuses the configuration otherwise.
 */
export function checkMailOrigin(options: Pick<AuthOptions, 'baseURL'>, production: boolean, emailEnabled: boolean): void {
  if (production && emailEnabled && !options.baseURL) {
    throw codedError('CONFIG_INVALID', {
      path: 'plugins.auth.baseURL',
      reason: 'with email enabled and NODE_ENV=production, links in mails need the public origin of the server: set plugins.auth.baseURL (e.g. https://app.example.com) so they never follow the Host header of a request',
    });
  }
}
