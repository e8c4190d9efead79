import type { Principal } from '../../../capabilities/authSession.ts';
import type { ResolvedForm } from '../../../metadata/formTypes.ts';
import { sourceIn, type Doc } from './describeItems.ts';

/** A form as the metadata API lists it; the user it submits as (runAs) is shown to admins only. */
export function describeForm(form: ResolvedForm, dirs: ReadonlyMap<string, string>, principal: Principal | null): Doc {
  const { source, app, runAs, ...rest } = form;
  return {
    name: form.slug,
    ...rest,
    runsAs: runAs === null ? 'system' : 'user',
    ...(principal?.isAdmin ? { runAs } : {}),
    routes: [`GET /api/v1/forms/${form.slug}`, `POST /api/v1/forms/${form.slug}/submit`, `GET /f/${form.slug}`],
    package: app,
    source: sourceIn(source, dirs.get(app)),
  };
}
