import type { DataContext } from '../../../capabilities/dataEngine.ts';
import type { DataScopes, RowScope } from '../../../capabilities/dataScopes.ts';
import type { ResolvedObject } from '../../../metadata/types.ts';
import { parseScopeFilter } from '../query/parseQuery.ts';
import type { Condition, ScopeFilter } from '../query/types.ts';

export interface ContributedScopes extends DataScopes {
  /** The scope filter of a call: the AND of every contributed scope that applies; undefined when none do. */
  filter(ctx: DataContext): ScopeFilter | undefined;
}

/** Row scopes other plugins add (org scoping, say), compiled like a where condition. */
export function contributedScopes(): ContributedScopes {
  const scopes: RowScope[] = [];
  let frozen = false;
  return {
    add(scope) {
      if (frozen) throw new Error('row scopes can only be added during register');
      scopes.push(scope);
    },
    filter(ctx) {
      frozen = true;
      if (ctx.system || scopes.length === 0) return undefined;
      return (object: ResolvedObject) => {
        const conditions: Condition[] = [];
        for (const scope of scopes) {
          const where = scope(object, ctx);
          const condition = where ? parseScopeFilter(where, object) : null;
          if (condition) conditions.push(condition);
        }
        if (conditions.length === 0) return null;
        return conditions.length === 1 ? conditions[0]! : ({ kind: 'and', items: conditions } satisfies Condition);
      };
    },
  };
}
