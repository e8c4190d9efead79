import type { Test } from 'tap';
import type { CodedError } from '../../kernel/errors.ts';

export const crmDir = new URL('../../metadata/apps/crm', import.meta.url).pathname;
export const tsAppDir = new URL('./fixtures/ts-app', import.meta.url).pathname;

export const manifest = { name: 'demo', version: '1.0.0', protocol: '^16.0.0' };

interface Fixture {
  [entry: string]: string | Fixture;
}

/** The fixture of one app directory: app.json and objects/<file> (objects serialized as JSON). */
export function appFixture(objects: Record<string, unknown>, app: unknown = manifest): Fixture {
  const files: Record<string, string> = {};
  for (const [file, content] of Object.entries(objects)) files[file] = typeof content === 'string' ? content : JSON.stringify(content, null, 2);
  return { 'app.json': typeof app === 'string' ? app : JSON.stringify(app), objects: files };
}

/** Writes one app directory for this test and returns its path. */
export function writeApp(t: Test, objects: Record<string, unknown>, app: unknown = manifest): string {
  return t.testdir(appFixture(objects, app));
}

/** Writes several app directories (a test has one testdir) and returns their paths by key. */
export function writeApps(t: Test, apps: Record<string, Fixture>): Record<string, string> {
  const root = t.testdir(apps);
  return Object.fromEntries(Object.keys(apps).map((key) => [key, `${root}/${key}`]));
}

/** Errors as comparable rows: code, file (relative to dir), path, reason. */
export function rows(errors: CodedError[], dir: string): Array<{ code: string; file: string; path: string; reason: string }> {
  return errors.map((e) => ({
    code: e.code,
    file: String(e.details['file'] ?? '').replace(`${dir}/`, ''),
    path: String(e.details['path'] ?? ''),
    reason: String(e.details['reason'] ?? ''),
  }));
}
