import { definePlugin } from '../../kernel/definePlugin.ts';
import { keepOrganization, orgScope, scoped, stampOrganization } from './orgScope.ts';

/**
 * Organization scoping (opt-in): objects with an `organization_id` field are split by the session's
 * organization. Reads are filtered through the engine's row scopes (so joins, expands, counts and
 * writes too); inserts are stamped; a forged or changed organization is refused.
 */
export default definePlugin({
  name: 'org-scoping',
  version: '16.0.0',
  kernel: '^16.0.0',
  requires: ['data.scopes', 'metadata.registry'],
  register(ctx) {
    const metadata = ctx.resolve('metadata.registry');
    ctx.resolve('data.scopes').add(orgScope);
    // First among the before-hooks, so other hooks see the stamped value.
    // It stamps or refuses its own record and writes nothing: an import may run it for a batch of rows.
    // An object without the organization field is not scoped: nothing to stamp or keep (appliesTo).
    const appliesTo = (name: string) => { const object = metadata.object(name); return object !== undefined && scoped(object); };
    ctx.hook('data.beforeInsert', (event) => stampOrganization(event, metadata.object(event.object)), { priority: -1000, batched: true, appliesTo });
    ctx.hook('data.beforeUpdate', (event) => keepOrganization(event, metadata.object(event.object)), { priority: -1000, appliesTo });
  },
});
