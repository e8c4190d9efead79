import semver from 'semver';
import { z } from 'zod';
import type { AppManifest } from './types.ts';

/** `app.json` of an app directory. */
export const appManifestSchema = z.strictObject({
  name: z.string({ error: (i) => (i.input === undefined ? 'is required' : 'must be a string') })
    .regex(/^[a-z][a-z0-9]*([_-][a-z0-9]+)*$/, 'must be lowercase letters and digits, words joined by - or _'),
  label: z.string().min(1).optional(),
  version: z.string({ error: (i) => (i.input === undefined ? 'is required: a semver version such as 1.0.0' : 'must be a string') })
    .refine((v) => semver.valid(v) !== null, 'must be a semver version such as 1.0.0'),
  protocol: z.string({ error: (i) => (i.input === undefined ? "is required: the runtime protocol range the app targets, such as '^16.0.0'" : 'must be a string') })
    .refine((v) => semver.validRange(v) !== null, "must be a semver range such as '^16.0.0'"),
});

export function asAppManifest(parsed: z.infer<typeof appManifestSchema>): AppManifest {
  return parsed;
}
