import type { Knex } from 'knex';
import type { DataContext, DataRecord, GetOptions, ListResult, PageQuery, QueryOptions } from '../../../capabilities/dataEngine.ts';
import { codedError } from '../../../kernel/errors.ts';
import type { ResolvedObject } from '../../../metadata/types.ts';
import { toIsoDateTime } from '../sql/codec.ts';
import { accessFor, objectOrNotFound, type EngineDeps } from './engineDeps.ts';
import { RECORD_HISTORY, visibleHistory } from './recordHistory.ts';
import { DELETED_AT, DELETED_BY, hasTrash } from './trash.ts';

/** The engine's pipeline read, as the listings use it (createDataEngine.ts). */
export type FindRecords = (
  object: ResolvedObject, input: Record<string, unknown>, ctx: DataContext, options: QueryOptions, hooks: boolean, knex?: Knex, planId?: string,
  trash?: { deletedBy: string | null },
) => Promise<ListResult>;
export type ReadById = (object: ResolvedObject, id: string, options: GetOptions, ctx: DataContext, hooks: boolean) => Promise<DataRecord>;

/** Paging of the history and trash listings: limit, offset or cursor, nothing else. */
const pageOf = (page: PageQuery) => ({
  ...(page.limit !== undefined ? { limit: page.limit } : {}),
  ...(page.offset !== undefined ? { offset: page.offset } : {}),
  ...(page.cursor !== undefined ? { cursor: page.cursor } : {}),
});

/** A record's history and an object's trash, read through the engine's pipeline. */
export function createListings(deps: EngineDeps, find: FindRecords, byId: ReadById, knexFor: (ctx: DataContext) => Knex) {
  /**
   * A record's history, newest first: the caller must be able to read the record (else 404, as for
   * a get); the entries are read as engine work, then stripped of the fields the caller may not read.
   */
  async function readHistory(object: ResolvedObject, id: string, page: PageQuery, ctx: DataContext): Promise<ListResult> {
    if (object.enable?.trackHistory !== true) throw codedError('METHOD_NOT_ALLOWED', { operation: 'history', object: object.name, allowed: object.apiMethods ?? [], reason: 'the object does not track history (enable.trackHistory)' });
    await byId(object, id, { select: ['id'] }, ctx, false);
    const history = objectOrNotFound(deps, RECORD_HISTORY);
    const query = { ...pageOf(page), where: { object: { $eq: object.name }, record_id: { $eq: String(id) } }, orderBy: '-record_version' };
    const result = await find(history, query, { ...ctx, system: true }, {}, false);
    const pending = accessFor(deps, knexFor(ctx), ctx);
    const access = pending && (await pending);
    return { ...result, items: visibleHistory(result.items, object, access?.profile) };
  }

  /**
   * The object's trash: what the caller deleted (admins and modifyAll holders: everything), inside its
   * read scope, each with `deleted_at` and `deleted_by`.
   */
  async function listTrash(object: ResolvedObject, page: PageQuery, ctx: DataContext): Promise<ListResult> {
    if (!hasTrash(object)) throw codedError('METHOD_NOT_ALLOWED', { operation: 'restore', object: object.name, allowed: object.apiMethods ?? [], reason: 'the object has no trash (enable.trash)' });
    const knex = knexFor(ctx);
    const pending = accessFor(deps, knex, ctx);
    const access = pending && (await pending);
    const everyone = !access || access.profile.perms(object).modifyAll;
    const deletedBy = everyone ? null : access.principal.userId;
    const result = await find(object, pageOf(page), ctx, {}, false, knex, undefined, { deletedBy });
    const ids = result.items.map((r) => String(r.id));
    const stamps = ids.length === 0 ? [] : ((await knex(object.name).whereIn('id', ids).select('id', DELETED_AT, DELETED_BY)) as Array<Record<string, unknown>>);
    const byIdRow = new Map(stamps.map((row) => [String(row.id), row]));
    const items = result.items.map((record) => {
      const stamp = byIdRow.get(String(record.id));
      return { ...record, [DELETED_AT]: stamp?.[DELETED_AT] == null ? null : toIsoDateTime(stamp[DELETED_AT]), [DELETED_BY]: stamp?.[DELETED_BY] ?? null };
    });
    return { ...result, items };
  }

  return { readHistory, listTrash };
}
