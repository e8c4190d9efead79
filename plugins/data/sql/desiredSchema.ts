import { createHash } from 'node:crypto';
import type { ResolvedObject } from '../../../metadata/types.ts';
import { SYSTEM_FIELDS } from '../../../metadata/types.ts';
import { codedError } from '../../../kernel/errors.ts';
import type { CodedError } from '../../../kernel/errors.ts';
import type { Dialect } from './dialect.ts';
import { columnType, sequenceColumnType } from './columnTypes.ts';
import { objectColumns } from './objectColumns.ts';
import { DELETED_AT, DELETED_BY, hasTrash } from '../engine/trash.ts';
import type { DeclaredIndexes } from './declaredQueryIndexes.ts';

export interface DesiredColumn {
  name: string;
  type: string;
  primary: boolean;
  notNull: boolean;
  /** SQL literal default, or null. */
  defaultSql: string | null;
}

export interface DesiredIndex {
  name: string;
  unique: boolean;
  columns: string[];
  /** Per column: descending (a declared sort's `desc`); absent when every column is ascending. */
  descending?: boolean[];
}

export interface DesiredTable {
  name: string;
  columns: DesiredColumn[];
  indexes: DesiredIndex[];
}

const IDENTIFIER = /^[a-z][a-z0-9_]{0,62}$/;
const MAX_IDENTIFIER = 63;

/**
 * The tables the metadata asks for, with the composite indexes its declared views and datasets
 * need (`declared`, declaredIndexesOf.ts). Every naming problem is collected and thrown at once.
 */
export function desiredSchema(objects: readonly ResolvedObject[], dialect: Dialect, declared?: ReadonlyMap<string, DeclaredIndexes>): DesiredTable[] {
  const problems: CodedError[] = [];
  const problem = (object: ResolvedObject, path: string, reason: string) =>
    problems.push(codedError('METADATA_INVALID', { file: object.source, path, reason }));
  const tables: DesiredTable[] = [];
  const seenTables = new Set<string>();
  for (const object of objects) {
    if (!IDENTIFIER.test(object.name)) problem(object, 'name', `'${object.name}' is not a valid table name (snake_case, at most 63 characters)`);
    if (seenTables.has(object.name)) problem(object, 'name', `object '${object.name}' is declared twice`);
    seenTables.add(object.name);
    const { columns: infos } = objectColumns(object);
    const columns: DesiredColumn[] = [];
    const taken = new Set<string>();
    for (const name of Object.keys(object.fields)) {
      if ((SYSTEM_FIELDS as readonly string[]).includes(name)) problem(object, `fields.${name}`, `'${name}' is a system column`);
      else if (!IDENTIFIER.test(name)) problem(object, `fields.${name}`, `'${name}' is not a valid column name (snake_case, at most 63 characters)`);
    }
    for (const info of infos) {
      taken.add(info.column);
      columns.push({
        name: info.column,
        type: columnType(info.type, dialect),
        primary: info.name === 'id',
        notNull: info.name === 'id' || info.name === 'version',
        defaultSql: info.name === 'version' ? '1' : null,
      });
    }
    // The trash's stamp (engine/trash.ts): columns, never fields.
    for (const name of hasTrash(object) ? [DELETED_AT, DELETED_BY] : []) {
      if (taken.has(name)) problem(object, `fields.${name}`, `'${name}' is the trash's column: rename the field or turn the trash off`);
      taken.add(name);
      columns.push({ name, type: columnType(name === DELETED_AT ? 'datetime' : 'text', dialect), primary: false, notNull: false, defaultSql: null });
    }
    for (const info of infos) {
      if (info.system || !info.field || !info.seqColumn) continue;
      if (taken.has(info.seqColumn)) problem(object, `fields.${info.name}`, `autonumber needs column '${info.seqColumn}', which another field uses`);
      taken.add(info.seqColumn);
      columns.push({ name: info.seqColumn, type: sequenceColumnType(dialect), primary: false, notNull: false, defaultSql: null });
    }
    object.indexes.forEach((index, i) => {
      for (const field of index.fields) {
        if (!objectColumns(object).byName.has(field)) problem(object, `indexes[${i}].fields`, `'${field}' is not a stored field of '${object.name}'`);
      }
    });
    const indexes: DesiredIndex[] = [];
    const wanted: Array<{ columns: string[]; unique: boolean; descending?: boolean[] }> = [...objectIndexes(object), ...(declared?.get(object.name)?.indexes ?? []).map((d) => ({ ...d, unique: false }))];
    for (const { columns: cols, unique, descending } of wanted) {
      const name = indexName(object.name, cols, unique, descending);
      if (!indexes.some((i) => i.name === name)) indexes.push({ name, unique, columns: cols, ...(descending ? { descending } : {}) });
    }
    tables.push({ name: object.name, columns, indexes });
  }
  if (problems.length === 1) throw problems[0]!;
  if (problems.length > 1) throw codedError('METADATA_INVALID', {
    file: objects[0]?.source ?? 'metadata',
    path: 'objects',
    reason: problems.map((p) => p.message).join('; '),
    problems: problems.map((p) => p.toJSON()),
  });
  return tables;
}

/**
 * The indexes the engine keeps on an object's table, in creation order: the owner, each
 * autonumber's sequence (unique), unique, indexed and lookup fields, then the declared indexes
 * (one naming a field the object does not store is left out; desiredSchema reports it).
 */
export function objectIndexes(object: ResolvedObject): Array<{ columns: string[]; unique: boolean }> {
  const { columns: infos, byName } = objectColumns(object);
  const indexes: Array<{ columns: string[]; unique: boolean }> = [];
  if (object.owner) indexes.push({ columns: ['owner_id'], unique: false });
  for (const info of infos) {
    if (info.system || !info.field) continue;
    if (info.seqColumn) indexes.push({ columns: [info.seqColumn], unique: true });
    if (info.field.unique) indexes.push({ columns: [info.column], unique: true });
    else if (info.field.indexed || info.type === 'lookup') indexes.push({ columns: [info.column], unique: false });
  }
  for (const index of object.indexes) {
    const cols = index.fields.flatMap((field) => byName.get(field)?.column ?? []);
    if (cols.length === index.fields.length && cols.length > 0) indexes.push({ columns: cols, unique: index.unique === true });
  }
  return indexes;
}

/**
 * Engine-made index names start with ix_ or ux_, so sync only ever drops its own indexes. One with
 * descending columns ends in their pattern (`__0100`: the second descending), which no column
 * name can be (they start with a letter).
 */
export function indexName(table: string, columns: string[], unique: boolean, descending?: readonly boolean[]): string {
  const directions = descending?.some(Boolean) ? `__${descending.map((d) => (d ? '1' : '0')).join('')}` : '';
  const name = `${unique ? 'ux' : 'ix'}_${table}__${columns.join('__')}${directions}`;
  if (name.length <= MAX_IDENTIFIER) return name;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 10);
  return `${name.slice(0, MAX_IDENTIFIER - 11)}_${hash}`;
}

export function isEngineIndex(name: string): boolean {
  return name.startsWith('ix_') || name.startsWith('ux_');
}
