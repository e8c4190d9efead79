import { READS_ONLY, type DataDatabase, type SideTableAccess, type WithDatabaseOptions } from '../../capabilities/dataDatabase.ts';
import { z } from 'zod';
import { CacheFreshness } from '../../capabilities/cacheFreshness.ts';
import type { EventsBus } from '../../capabilities/eventsBus.ts';
import type { SecretsKeys } from '../../capabilities/secretsKeys.ts';
import type { EffectiveSettings, SettingsNamespace, SettingsResolver } from '../../capabilities/settingsStore.ts';
import { codedError, isCodedError } from '../../kernel/errors.ts';
import type { Logger } from '../../kernel/logger.ts';
import { openSecret, sealSecret, SETTINGS_KEY_PURPOSE } from './sealSecret.ts';
import { joinSecrets, secretSlots, SET_MARKER, splitSecrets } from './secretPaths.ts';
import { checkSettingsHosts, type PrivateHosts, type ResolveAll } from './settingsHosts.ts';
import { NAMESPACES } from './settingsNamespaces.ts';
import { ensureSettingsTable, readSettingsRow, SETTINGS_TABLE, writeSettingsRow, type SettingsRow } from './settingsTable.ts';

const WRITES_SETTINGS: WithDatabaseOptions = Object.freeze({ touches: Object.freeze([SETTINGS_TABLE]) });

/** Without a bus across processes (SQLite processes started apart), a change elsewhere is seen within this long (docs/settings.md). */
export const SETTINGS_CACHE_MS = 30_000;

/** One change of one namespace, as recorded: the keys and secret paths changed, never a value. */
export interface SettingsChange {
  environmentId: string;
  namespace: SettingsNamespace;
  actor: string | null;
  at: string;
  revision: number;
  /** Top-level keys whose value differs from before. */
  changedKeys: string[];
  /** Secret paths set, replaced or cleared (their values are never part of a change). */
  secretsChanged: string[];
}

/** What GET /settings/:namespace answers: the values with `{ set: true }` in each secret's place. */
export interface SettingsView {
  namespace: SettingsNamespace;
  environmentId: string;
  values: Record<string, unknown> | null;
  secrets: Record<string, { set: boolean }>;
  revision: number;
  updatedAt: string | null;
  updatedBy: string | null;
}

export interface SettingsServiceDeps {
  database: DataDatabase;
  keys: SecretsKeys;
  bus: EventsBus | undefined;
  log: Logger;
  /** `plugins.settings.privateHosts`, its default applied: `deny` checks every host a write chooses. */
  privateHosts: PrivateHosts;
  /** The addresses of a host name (tests); default node:dns. */
  resolveHost?: ResolveAll;
}

type Json = Record<string, unknown>;

function invalid(errors: Array<{ path: string; message: string }>) {
  return codedError('VALIDATION_ERROR', { summary: errors.map((e) => `${e.path} ${e.message}`).join('; '), errors });
}

/** A schema's issues as paths and messages (an unknown key named at its own path). */
function issuesOf(error: z.ZodError): Array<{ path: string; message: string }> {
  return error.issues.flatMap((issue) => issue.code === 'unrecognized_keys'
    ? issue.keys.map((k) => ({ path: [...issue.path, k].join('.'), message: `unknown key '${k}'` }))
    : [{ path: issue.path.join('.') || 'body', message: issue.message }]);
}

/** What a consumer's resolver refused, as the write's 400: its path and reason, or the schema's issues. */
function refusedBy(error: unknown): Array<{ path: string; message: string }> {
  if (error instanceof z.ZodError) return issuesOf(error);
  if (isCodedError(error)) {
    const path = typeof error.details.path === 'string' ? error.details.path : 'body';
    return [{ path, message: typeof error.details.reason === 'string' ? error.details.reason : error.message }];
  }
  throw error;
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export function createSettingsService(deps: SettingsServiceDeps) {
  const cache = new Map<string, { at: number; value: EffectiveSettings | null }>();
  /** Loads under way, with the mark they began at: shared only while nothing changed since. */
  const loads = new Map<string, { mark: number; value: Promise<EffectiveSettings | null> }>();
  // Nothing served or kept while the bus cannot vouch for other processes' changes; all dropped after a lapse (cacheFreshness.ts).
  const freshness = new CacheFreshness(deps.bus, () => {
    cache.clear();
    loads.clear();
  });
  const resolvers = new Map<SettingsNamespace, SettingsResolver>();
  const ready = new Set<string>();
  const keyOf = (environmentId: string) => deps.keys.derive(SETTINGS_KEY_PURPOSE, environmentId);

  /** Reads leave every remembered total alone; a write names the one table it writes. */
  const withTable = <T>(environmentId: string, writes: boolean, work: (db: SideTableAccess) => Promise<T>) =>
    deps.database.withDatabase(environmentId, async (db) => {
      if (!ready.has(environmentId)) {
        await ensureSettingsTable(db.knex);
        ready.add(environmentId);
      }
      return work(db);
    }, undefined, writes ? WRITES_SETTINGS : READS_ONLY);

  function forget(environmentId: string): void {
    freshness.changed(environmentId);
    for (const key of cache.keys()) if (key.startsWith(`${environmentId}\u0000`)) cache.delete(key);
    for (const key of loads.keys()) if (key.startsWith(`${environmentId}\u0000`)) loads.delete(key);
  }
  deps.bus?.subscribe('settings.changed', ({ environmentId }) => forget(environmentId));

  function openAll(environmentId: string, row: SettingsRow): Map<string, string> {
    const key = keyOf(environmentId);
    const out = new Map<string, string>();
    for (const [path, sealed] of Object.entries(row.sealed)) {
      const plain = openSecret(key, sealed, row.namespace);
      if (plain === null) deps.log.warn({ environmentId, namespace: row.namespace, path }, 'settings: a secret does not open with the current key (OS_AUTH_SECRET changed?); it is treated as unset');
      else out.set(path, plain);
    }
    return out;
  }

  async function load(environmentId: string, namespace: SettingsNamespace): Promise<EffectiveSettings | null> {
    const row = await withTable(environmentId, false, ({ knex }) => readSettingsRow(knex, namespace));
    if (!row) return null;
    return { values: joinSecrets(row.values, openAll(environmentId, row), NAMESPACES[namespace].secrets), revision: `${row.revision}@${row.updatedAt}` };
  }

  /** The one place a change is announced: caches here and in every process, and the log (the audit trail: the route). */
  async function settingsChanged(change: SettingsChange): Promise<void> {
    forget(change.environmentId);
    deps.bus?.publish('settings.changed', { environmentId: change.environmentId });
    deps.log.info({ environmentId: change.environmentId, namespace: change.namespace, actor: change.actor, revision: change.revision, changedKeys: change.changedKeys, secretsChanged: change.secretsChanged }, 'settings changed');
  }

  function viewOf(environmentId: string, namespace: SettingsNamespace, row: SettingsRow | null): SettingsView {
    if (!row) return { namespace, environmentId, values: null, secrets: {}, revision: 0, updatedAt: null, updatedBy: null };
    const patterns = NAMESPACES[namespace].secrets;
    const secrets: Record<string, { set: boolean }> = {};
    for (const path of secretSlots(row.values, patterns)) secrets[path] = { set: row.sealed[path] !== undefined };
    const markers = new Map(Object.entries(row.sealed).map(([path]) => [path, SET_MARKER] as const));
    return { namespace, environmentId, values: joinSecrets(row.values, markers, patterns), secrets, revision: row.revision, updatedAt: row.updatedAt, updatedBy: row.updatedBy };
  }

  return {
    /**
     * Effective settings for a consumer (secrets decrypted), remembered while they provably hold:
     * a change here or heard from another process drops them, a load that began before a change
     * keeps nothing, and nothing is served while the bus is not trusted.
     */
    read(environmentId: string, namespace: SettingsNamespace): Promise<EffectiveSettings | null> {
      const key = `${environmentId}\u0000${namespace}`;
      if (freshness.usable()) {
        const hit = cache.get(key);
        if (hit && Date.now() - hit.at < SETTINGS_CACHE_MS) return Promise.resolve(hit.value);
        const running = loads.get(key);
        if (running && freshness.holds(environmentId, running.mark)) return running.value;
      }
      const mark = freshness.mark();
      const at = Date.now();
      const value = load(environmentId, namespace).then((settings) => {
        if (freshness.holds(environmentId, mark)) cache.set(key, { at, value: settings });
        return settings;
      }).finally(() => {
        if (loads.get(key)?.value === value) loads.delete(key);
      });
      loads.set(key, { mark, value });
      return value;
    },

    /** The consumer's resolver of a namespace: writes it refuses are refused (SettingsStore.resolveWith). */
    resolveWith(namespace: SettingsNamespace, resolve: SettingsResolver): void {
      resolvers.set(namespace, resolve);
    },

    async view(environmentId: string, namespace: SettingsNamespace): Promise<SettingsView> {
      return viewOf(environmentId, namespace, await withTable(environmentId, false, ({ knex }) => readSettingsRow(knex, namespace)));
    },

    /**
     * Replaces the namespace's settings. A secret left out (or sent back as the read's
     * `{ set: true }`) keeps its stored value; `null` clears it. Validated with the config file's
     * schema, secrets included, before anything is written.
     */
    async write(environmentId: string, namespace: SettingsNamespace, body: unknown, actor: string | null): Promise<SettingsView> {
      const definition = NAMESPACES[namespace];
      // Read by the plugin that registered its resolver: with none running here, a value accepted would change nothing.
      if (!resolvers.has(namespace)) throw codedError('SETTINGS_NOT_APPLIED', { namespace, fix: `enable the plugin that reads it (${definition.configPath} in the config file); docs/settings.md lists the namespaces` });
      if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalid([{ path: 'body', message: `must be an object: the keys of ${definition.configPath}` }]);
      const split = splitSecrets(body as Json, definition.secrets);
      // Before the transaction (a lookup holds no lock), and before anything is stored; hosts are never secrets.
      if (deps.privateHosts === 'deny') await checkSettingsHosts(split.values, definition.hosts, deps.resolveHost);
      const key = keyOf(environmentId);
      const { row, change } = await withTable(environmentId, true, (db) => db.writeTransaction(async (trx) => {
        const previous = await readSettingsRow(trx, namespace);
        const stored = previous ? openAll(environmentId, previous) : new Map<string, string>();
        const secrets = new Map<string, string>();
        for (const path of secretSlots(split.values, definition.secrets)) {
          if (split.given.has(path)) secrets.set(path, split.given.get(path)!);
          else if (!split.cleared.has(path) && stored.has(path)) secrets.set(path, stored.get(path)!);
        }
        const effective = joinSecrets(split.values, secrets, definition.secrets);
        const parsed = definition.schema.safeParse(effective);
        if (!parsed.success) throw invalid(issuesOf(parsed.error));
        // As the consumer will read them (merged over the config file): what it cannot use is not stored.
        const resolve = resolvers.get(namespace);
        if (resolve) {
          try {
            resolve(effective);
          } catch (error) {
            throw invalid(refusedBy(error));
          }
        }
        const sealed: Record<string, string> = {};
        for (const [path, value] of secrets) sealed[path] = sealSecret(key, value, namespace);
        const at = new Date().toISOString();
        const revision = await writeSettingsRow(trx, { namespace, values: split.values, sealed, updatedAt: at, updatedBy: actor }, previous?.revision ?? 0);
        const before = previous?.values ?? {};
        const changedKeys = [...new Set([...Object.keys(before), ...Object.keys(split.values)])].filter((k) => !sameJson(before[k], split.values[k])).sort();
        const secretsChanged = [...new Set([...stored.keys(), ...secrets.keys()])].filter((p) => stored.get(p) !== secrets.get(p)).sort();
        const written: SettingsRow = { namespace, values: split.values, sealed, revision, updatedAt: at, updatedBy: actor };
        return { row: written, change: { environmentId, namespace, actor, at, revision, changedKeys, secretsChanged } satisfies SettingsChange };
      }));
      await settingsChanged(change);
      return viewOf(environmentId, namespace, row);
    },
  };
}

export type SettingsService = ReturnType<typeof createSettingsService>;
