import type { DataContext } from '../../../capabilities/dataEngine.ts';
import type { HooksRegistry } from '../../../capabilities/hooksRegistry.ts';
import type { MetadataRegistry } from '../../../capabilities/metadataRegistry.ts';
import { codedError } from '../../../kernel/errors.ts';
import type { ExpressionContext, ResolvedObject } from '../../../metadata/types.ts';
import type { ScopeFilter } from '../query/types.ts';
import type { Database } from '../sql/openDatabase.ts';
import type { FieldError } from './coerceInput.ts';

/** What the engine needs from the plugin that hosts it. */
export interface EngineDeps {
  metadata: MetadataRegistry;
  hooks: HooksRegistry;
  /** The open database of an environment. */
  database(environmentId: string): Database;
  /** HMAC key for cursors of an environment. */
  cursorKey(environmentId: string): Buffer;
  /** Row-level security: the condition a caller's reads are limited to (none: every row). */
  scopeFilter?(ctx: DataContext): ScopeFilter | undefined;
}

export function objectOrNotFound(deps: EngineDeps, name: string): ResolvedObject {
  const object = deps.metadata.object(name);
  if (!object) throw codedError('NOT_FOUND', { what: `Object '${name.slice(0, 64)}'`, object: name.slice(0, 64) });
  return object;
}

export function celContext(ctx: DataContext): ExpressionContext {
  const p = ctx.principal;
  return { now: new Date(), user: p ? { id: p.userId, positions: p.positions, organizationId: p.organizationId ?? null } : null };
}

export function validationError(errors: FieldError[]) {
  return codedError('VALIDATION_ERROR', { summary: errors.map((e) => `${e.path} ${e.message}`).join('; '), errors });
}
