import { z } from 'zod';
import { PARSE_ONCE } from '../../kernel/parseOnce.ts';

/** Options of phone-number sign-in (`auth.plugins.phoneNumber` as an object; `true` takes every default). */
export const phoneNumberOptionsSchema = z.strictObject({
  enabled: z.boolean().default(true),
  /** Digits of a code. */
  codeLength: z.number().int().min(6).max(10).default(6),
  /** Lifetime of a code, in seconds. */
  expiresIn: z.number().int().min(60).max(3_600).default(300),
  /** Wrong guesses a code survives; the next one voids it. */
  allowedAttempts: z.number().int().min(1).max(10).default(3),
  /** Seconds between two codes to one number. */
  cooldownSeconds: z.number().int().min(0).max(3_600).default(60),
  /** Codes per number within any rolling hour. */
  hourlyCap: z.number().int().min(1).max(100).default(5),
  /** Code requests per client IP within `perIp.windowSeconds`. */
  perIp: z.strictObject({
    max: z.number().int().positive().default(20),
    windowSeconds: z.number().int().positive().max(86_400).default(3_600),
  }).prefault({}),
  /** Let a verified code create an account for an unknown number (a placeholder email is given). Default: the `signUp` option. */
  signUp: z.boolean().optional(),
});

export type PhoneNumberOptions = z.output<typeof phoneNumberOptionsSchema>;

/** `true`, `false` or an object of options. */
export const phoneNumberSettingSchema = z.union([z.boolean(), phoneNumberOptionsSchema]);

export type PhoneNumberSetting = z.output<typeof phoneNumberSettingSchema>;

export const isPhoneNumberOn = (setting: z.input<typeof phoneNumberSettingSchema> | undefined): boolean =>
  setting === true || (typeof setting === 'object' && setting !== null && setting.enabled !== false);

/** The resolved options, or null when phone sign-in is off. */
export function phoneNumberOptionsOf(setting: PhoneNumberSetting | undefined): PhoneNumberOptions | null {
  if (!setting) return null;
  const options = phoneNumberOptionsSchema.parse(setting === true ? {} : setting, PARSE_ONCE);
  return options.enabled ? options : null;
}
