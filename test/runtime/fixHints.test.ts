/**
 * Every configuration key the runtime's messages name (fix hints, problem paths, warnings) exists
 * in the configuration schema: an operator following a hint never meets CONFIG_INVALID for it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import type { z } from 'zod';
import { AUDIT_ACTIONS } from '../../capabilities/auditRecord.ts';
import { isCapabilityToken } from '../../capabilities/registry.ts';
import { BUILTIN_PLUGINS } from '../../plugins/builtin.ts';
import { configSchema, PLUGIN_ENTRY_KEYS } from '../../runtime/configSchema.ts';

const ROOT = new URL('../..', import.meta.url).pathname;

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    return statSync(join(ROOT, path)).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const LITERAL = /'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`/g;
// `plugins.<name or ${...}>.<key>...` and `<top-level section>.<key>...`, not inside an expression.
// Not a call in embedded code (`redis.call(...)` in a Lua script) nor part of a URL (`https://api.x.com`).
const REFERENCE = /(?<![\w.{(/])(plugins\.(?:\$\{[^}]*\}|[a-z][a-z0-9-]*)(?:\.[A-Za-z]\w*)*|(?:server|api|database|redis|log|auth)\.[A-Za-z]\w*(?:\.[A-Za-z]\w*)*)(?![\w(])/g;

/** Every configuration-like reference in the string literals of the runtime's code. */
function references(): Array<{ where: string; key: string }> {
  const found: Array<{ where: string; key: string }> = [];
  for (const file of ['kernel', 'runtime', 'plugins', 'metadata', 'cli'].flatMap(sources)) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    for (const literal of text.matchAll(LITERAL)) {
      for (const ref of literal[0].matchAll(REFERENCE)) {
        const line = text.slice(0, literal.index + (ref.index ?? 0)).split('\n').length;
        const before = text.slice(Math.max(0, literal.index + (ref.index ?? 0) - 5), literal.index + (ref.index ?? 0));
        if (before.endsWith('docs/')) continue;
        found.push({ where: `${file}:${line}`, key: ref[1]! });
      }
    }
  }
  return found;
}

type Zod = z.ZodType & { _zod: { def: { type: string; innerType?: Zod; shape?: Record<string, Zod> } } };

/** Whether `path` leads somewhere in the schema (records, arrays and unions accept any rest). */
function hasPath(schema: Zod, path: string[]): boolean {
  let node: Zod | undefined = schema;
  for (const key of path) {
    while (node?._zod.def.innerType) node = node._zod.def.innerType;
    if (!node) return false;
    const def = node._zod.def;
    if (def.type !== 'object') return true;
    node = (node as unknown as { shape: Record<string, Zod> }).shape[key];
  }
  return node !== undefined;
}

function exists(key: string): boolean {
  if (isCapabilityToken(key)) return true; // a capability token, not a key
  if ((AUDIT_ACTIONS as readonly string[]).includes(key)) return true; // an audited action's name, not a key
  const plugin = /^plugins\.(\$\{[^}]*\}|[^.]+)((?:\.\w+)*)$/.exec(key);
  if (!plugin) return hasPath(configSchema as unknown as Zod, key.split('.'));
  const name = plugin[1]!;
  const rest = plugin[2]!.split('.').slice(1);
  if (rest.length === 0) return true;
  if ((PLUGIN_ENTRY_KEYS as readonly string[]).includes(rest[0]!)) return rest.length === 1;
  if (name!.startsWith('${')) return false;
  const builtin = BUILTIN_PLUGINS.find((b) => b.manifest.name === name);
  return builtin?.manifest.options !== undefined && hasPath(builtin.manifest.options as Zod, rest);
}

t.test('every configuration key named in a message exists in the schema', async (t) => {
  const refs = references();
  t.ok(refs.some((r) => r.key === 'plugins.data.schemaSync'), 'the scan finds the schema-sync fix hint');
  t.ok(refs.some((r) => r.key.startsWith('plugins.${')), 'and the hints built from a plugin name');
  const unknown = refs.filter((r) => !exists(r.key)).map((r) => `${r.where} ${r.key}`);
  t.same(unknown, [], 'no hint names a key that does not exist');
});

t.test('the check itself refuses keys that do not exist', async (t) => {
  t.equal(exists('plugins.data.destructive'), false);
  t.equal(exists('plugins.${name}.grantz'), false);
  t.equal(exists('server.prot'), false);
  t.equal(exists('plugins.data.schemaSync'), true);
  t.equal(exists('plugins.email.smtp.host'), true);
  t.equal(exists('api.requireAuth'), true);
  t.equal(exists('auth.sign_in_failed'), true, 'an audited action is not taken for a key');
  t.equal(exists('auth.sign_in_failure'), false, 'a name that is neither is still refused');
});
