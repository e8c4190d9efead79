import { z } from 'zod';

/** Options of the settings plugin (`plugins.settings` in config; docs/settings.md). */
export const settingsOptionsSchema = z.strictObject({
  /**
   * Whether a host chosen in settings (an SMTP server, an SMS or AI provider's URL, a sign-in
   * provider's discovery URL) may be a loopback, private, link-local or unspecified address.
   * Default: `deny` in production, `allow` elsewhere (a local mail catcher in development).
   */
  privateHosts: z.enum(['deny', 'allow']).optional(),
});

export type SettingsOptions = z.output<typeof settingsOptionsSchema>;
