import type { AccessGrants } from '../../capabilities/accessGrants.ts';
import type { AuditRecord, AuditSource } from '../../capabilities/auditRecord.ts';
import type { AuthIdentity } from '../../capabilities/authIdentity.ts';
import type { Principal } from '../../capabilities/authSession.ts';
import type { DataContext, DataEngine, DataRecord } from '../../capabilities/dataEngine.ts';
import type { MetadataRegistry } from '../../capabilities/metadataRegistry.ts';
import { codedError, isCodedError } from '../../kernel/errors.ts';
import type { ResolvedObject } from '../../metadata/types.ts';
import type { ShareLinkOptions } from './shareLinkOptions.ts';
import { hashToken, isTokenShaped, mintToken } from './shareLinkToken.ts';

/** The engine-owned object links are stored in (system-app/objects/sys_share_link.json). */
export const SHARE_LINK = 'sys_share_link';
const DAY = 86_400_000;

export interface ShareLinkView {
  id: string;
  object: string;
  recordId: string;
  fields: string[] | null;
  creatorId: string;
  createdAt: string | null;
  expiresAt: string;
  revokedAt: string | null;
  status: 'active' | 'expired' | 'revoked';
}

/** What an anonymous reader of a link gets: the record as its creator may read it now, limited to the chosen fields. */
export interface SharedRecord {
  object: string;
  label: string;
  id: string;
  fields: Array<{ name: string; label: string }>;
  record: DataRecord;
  expiresAt: string;
}

export interface ShareLinks {
  create(object: ResolvedObject, recordId: string, input: { fields?: string[]; expiresAt?: string }, caller: DataContext & { principal: Principal }, source: AuditSource): Promise<ShareLinkView & { token: string }>;
  /** The shared record, or the one NOT_FOUND for every reason a link cannot be read. */
  read(environmentId: string, token: string): Promise<SharedRecord>;
  list(environmentId: string, principal: Principal, all: boolean, page: { limit: number; offset: number }): Promise<{ items: ShareLinkView[] }>;
  revoke(environmentId: string, principal: Principal, id: string, source: AuditSource): Promise<void>;
}

export interface ShareLinkDeps {
  engine: DataEngine;
  metadata: MetadataRegistry;
  identity: AuthIdentity;
  grants: AccessGrants;
  audit: AuditRecord | undefined;
  options: ShareLinkOptions;
  now?: () => Date;
}

/** Every link that cannot be read answers this: a missing, expired or revoked link, a hidden or deleted record, a creator gone. */
export function linkNotFound() {
  return codedError('NOT_FOUND', { what: 'Share link' });
}

const asText = (value: unknown): string | null => (value === null || value === undefined ? null : value instanceof Date ? value.toISOString() : String(value));

function fieldsOf(value: unknown): string[] | null {
  const parsed = typeof value === 'string' ? (JSON.parse(value) as unknown) : value;
  return Array.isArray(parsed) ? parsed.map(String) : null;
}

export function viewOf(row: DataRecord, now: Date): ShareLinkView {
  const expiresAt = asText(row.expires_at)!;
  const revokedAt = asText(row.revoked_at);
  return {
    id: String(row.id), object: String(row.object), recordId: String(row.record_id), fields: fieldsOf(row.fields), creatorId: String(row.creator_id),
    createdAt: asText(row.created_at), expiresAt, revokedAt,
    status: revokedAt !== null ? 'revoked' : new Date(expiresAt).getTime() <= now.getTime() ? 'expired' : 'active',
  };
}

/** The expiry a creator asked for, checked against maxDays; the default when none. */
export function expiryOf(expiresAt: string | undefined, options: ShareLinkOptions, now: Date): Date {
  if (expiresAt === undefined) return new Date(now.getTime() + options.defaultDays * DAY);
  const at = new Date(expiresAt);
  if (Number.isNaN(at.getTime())) throw invalid('expiresAt', 'expiresAt is not a date-time', 'send an ISO 8601 date-time, e.g. 2030-01-31T12:00:00Z');
  if (at.getTime() <= now.getTime()) throw invalid('expiresAt', 'expiresAt is in the past', 'send a future date-time');
  if (at.getTime() > now.getTime() + options.maxDays * DAY) {
    throw invalid('expiresAt', `expiresAt is more than ${options.maxDays} days away`, `send a date-time within ${options.maxDays} days (plugins.share-links.maxDays)`);
  }
  return at;
}

function invalid(path: string, reason: string, fix: string) {
  return codedError('SHARE_LINK_INVALID', { reason, fix, errors: [{ path, message: reason }] });
}

/** Fields named at creation: each must be declared; one the creator cannot read is accepted and never shown. */
export function checkFields(object: ResolvedObject, fields: string[] | undefined): string[] | null {
  if (fields === undefined) return null;
  const unknown = fields.map((name, i) => ({ name, i })).filter(({ name }) => name !== 'id' && !Object.hasOwn(object.fields, name));
  if (unknown.length > 0) {
    throw codedError('SHARE_LINK_INVALID', {
      reason: `${unknown.map((u) => `'${u.name.slice(0, 64)}'`).join(', ')} ${unknown.length === 1 ? 'is not a field' : 'are not fields'} of ${object.name}`,
      fix: `name fields declared by ${object.name}, or leave fields out to share every field you may read`,
      errors: unknown.map((u) => ({ path: `fields.${u.i}`, message: `not a field of ${object.name}` })),
    });
  }
  return [...new Set(fields)];
}

/** Share links over the data engine: stored as engine work, read back as their creator, re-checked at every read. */
export function createShareLinks(deps: ShareLinkDeps): ShareLinks {
  const now = deps.now ?? (() => new Date());
  const system = (environmentId: string, principal: Principal | null = null): DataContext => ({ environmentId, principal, system: true });

  async function rowOf(environmentId: string, where: Record<string, unknown>): Promise<DataRecord | null> {
    const found = await deps.engine.query(SHARE_LINK, { where, limit: 1 }, system(environmentId), { total: false });
    return found.items[0] ?? null;
  }

  return {
    async create(object, recordId, input, caller, source) {
      const at = now();
      const fields = checkFields(object, input.fields);
      const expiresAt = expiryOf(input.expiresAt, deps.options, at);
      // The caller must read the record now; hidden and missing answer the same 404.
      const record = await deps.engine.get(object.name, recordId, {}, caller);
      const token = mintToken();
      const row = await deps.engine.create(SHARE_LINK, {
        object: object.name, record_id: String(record.id), fields, token_hash: hashToken(token), creator_id: caller.principal.userId, expires_at: expiresAt.toISOString(),
      }, system(caller.environmentId, caller.principal));
      const view = viewOf(row, at);
      await deps.audit?.record(source, {
        action: 'share_link.created', target: { type: 'share_link', id: view.id, label: `${object.name}/${view.recordId}` },
        after: { object: object.name, recordId: view.recordId, fields, expiresAt: view.expiresAt },
      });
      return { ...view, token };
    },

    async read(environmentId, token) {
      if (!isTokenShaped(token)) throw linkNotFound();
      const row = await rowOf(environmentId, { token_hash: hashToken(token) });
      if (!row) throw linkNotFound();
      const view = viewOf(row, now());
      if (view.status !== 'active') throw linkNotFound();
      const object = deps.metadata.object(view.object);
      if (!object || !object.apiEnabled || object.system || (object.apiMethods && !object.apiMethods.includes('get'))) throw linkNotFound();
      // The creator as the access layer sees them now: a banned or removed user, lost positions or permission sets show less or nothing.
      const known = await deps.identity.principalOf(environmentId, view.creatorId);
      if (!known) throw linkNotFound();
      const creator = await deps.grants.resolve(known);
      let record: DataRecord;
      try {
        record = await deps.engine.get(object.name, view.recordId, {}, { environmentId, principal: creator });
      } catch (error) {
        if (isCodedError(error) && error.status < 500) throw linkNotFound();
        throw error;
      }
      const chosen = view.fields ?? Object.keys(object.fields);
      // Only what the engine answered the creator: a chosen field the creator cannot read is absent from `record`.
      const shown = chosen.filter((name) => name !== 'id' && Object.hasOwn(record, name) && Object.hasOwn(object.fields, name));
      const out: DataRecord = { id: record.id };
      for (const name of shown) out[name] = record[name];
      return {
        object: object.name, label: object.label, id: String(record.id), expiresAt: view.expiresAt, record: out,
        fields: shown.map((name) => ({ name, label: object.fields[name]!.label })),
      };
    },

    async list(environmentId, principal, all, page) {
      if (all && !principal.isAdmin) throw codedError('PERMISSION_DENIED', { permission: 'share-links:all', subjectId: principal.userId });
      const where = all ? {} : { creator_id: principal.userId };
      const found = await deps.engine.query(SHARE_LINK, { where, orderBy: '-created_at', limit: page.limit, offset: page.offset }, system(environmentId), { total: false });
      const at = now();
      return { items: found.items.map((row) => viewOf(row, at)) };
    },

    async revoke(environmentId, principal, id, source) {
      const row = await rowOf(environmentId, { id });
      // Another user's link answers like a missing one (admins revoke any).
      if (!row || (String(row.creator_id) !== principal.userId && !principal.isAdmin)) throw codedError('NOT_FOUND', { what: `Share link '${id.slice(0, 64)}'` });
      const at = now();
      const view = viewOf(row, at);
      if (view.revokedAt !== null) return;
      // Revoked now, and aged as expired now: the lifecycle contract removes it with the expired ones.
      const expires = new Date(view.expiresAt).getTime() < at.getTime() ? view.expiresAt : at.toISOString();
      await deps.engine.update(SHARE_LINK, view.id, { revoked_at: at.toISOString(), expires_at: expires }, {}, system(environmentId, principal));
      await deps.audit?.record(source, {
        action: 'share_link.revoked', target: { type: 'share_link', id: view.id, label: `${view.object}/${view.recordId}` },
        before: { status: view.status, expiresAt: view.expiresAt }, after: { creatorId: view.creatorId },
      });
    },
  };
}
