import type { ResolvedField, ResolvedObject } from '../../../metadata/types.ts';
import { suggest } from '../../../kernel/suggest.ts';
import { objectColumns } from '../sql/objectColumns.ts';
import type { FieldRef } from './types.ts';

export type Resolution =
  | { ok: true; ref: FieldRef; key: string }
  | { ok: false; formula?: ResolvedField; message: string };

/**
 * Resolves the field names a query may use: the object's own fields, and `alias.field` for each
 * join. Anything else (a typo, a SQL fragment) is an unknown field with a readable message.
 */
/** Field-level security: throws (PERMISSION_DENIED) when the caller may not read a field it names. */
export type FieldGuard = (object: string, field: string) => void;

export class FieldScope {
  readonly object: ResolvedObject;
  readonly guard: FieldGuard | undefined;
  private readonly aliases = new Map<string, ResolvedObject>();

  constructor(object: ResolvedObject, guard?: FieldGuard) {
    this.object = object;
    this.guard = guard;
  }

  addAlias(alias: string, object: ResolvedObject): void {
    this.aliases.set(alias, object);
  }

  hasAlias(alias: string): boolean {
    return this.aliases.has(alias);
  }

  aliasNames(): string[] {
    return [...this.aliases.keys()];
  }

  resolve(name: unknown): Resolution {
    const resolution = this.resolveName(name);
    // Checked before any use of the field, so naming a hidden field answers the same whatever its values.
    if (this.guard) {
      if (resolution.ok) this.guard(resolution.ref.object, resolution.ref.name);
      else if (resolution.formula && typeof name === 'string') this.guard(this.objectOf(name), resolution.formula.name);
    }
    return resolution;
  }

  private objectOf(name: string): string {
    const dot = name.indexOf('.');
    return dot === -1 ? this.object.name : (this.aliases.get(name.slice(0, dot))?.name ?? this.object.name);
  }

  private resolveName(name: unknown): Resolution {
    if (typeof name !== 'string' || name.length === 0) return { ok: false, message: 'a field name must be a non-empty string' };
    const dot = name.indexOf('.');
    if (dot === -1) return resolveIn(this.object, null, name, name);
    const alias = name.slice(0, dot);
    const target = this.aliases.get(alias);
    if (!target) {
      const hint = suggest(alias, this.aliasNames());
      return { ok: false, message: `unknown field '${name}' on object '${this.object.name}'${this.aliases.size ? ` and no join alias '${alias}'${hint ? ` (did you mean '${hint}'?)` : ''}` : ''}` };
    }
    return resolveIn(target, alias, name.slice(dot + 1), name);
  }
}

/** Resolves a plain field name of one object (alias null means that object itself). */
export function resolveIn(object: ResolvedObject, alias: string | null, field: string, key: string): Resolution {
  const columns = objectColumns(object);
  const info = columns.byName.get(field);
  if (info) {
    return {
      ok: true,
      key,
      ref: { alias, object: object.name, name: info.name, column: info.column, type: info.type, seqColumn: info.seqColumn },
    };
  }
  const formula = columns.formulas.get(field);
  if (formula) return { ok: false, formula, message: `'${key}' is a formula field: it is computed after reading and cannot be used here` };
  const hint = suggest(field, [...columns.byName.keys()]);
  return { ok: false, message: `unknown field '${key}' on object '${object.name}'${hint ? ` (did you mean '${hint}'?)` : ''}` };
}
