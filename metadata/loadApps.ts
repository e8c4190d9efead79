import { basename, join } from 'node:path';
import type { CodedError } from '../kernel/errors.ts';
import { suggest } from '../kernel/suggest.ts';
import type { LoadedApp, ResolvedObject } from './types.ts';
import { loadActions } from './loadActions.ts';
import { loadAgents } from './loadAgents.ts';
import { loadBooks } from './loadBooks.ts';
import { loadForms } from './loadForms.ts';
import { loadViews } from './loadViews.ts';
import { checkFlowActions } from './checkFlowActions.ts';
import { loadFlows } from './loadFlows.ts';
import { loadDashboards } from './loadDashboards.ts';
import { loadDatasets } from './loadDatasets.ts';
import { loadOverrides } from './loadOverrides.ts';
import { metadataError } from './metadataError.ts';
import { readApp, type AppRead } from './readApp.ts';
import { resolveObject } from './resolveObject.ts';

export interface LoadAppsOptions {
  /** Objects declared elsewhere (engine-owned system objects) that lookups may reference. */
  knownObjects?: Iterable<string>;
}

export interface LoadAppsResult {
  apps: LoadedApp[];
  objects: Map<string, ResolvedObject>;
  /** Every problem found, METADATA_INVALID (or KERNEL_PROTOCOL_INCOMPATIBLE for app.json); boot fails when not empty. */
  errors: CodedError[];
}

/**
 * Loads app directories: reads and validates every declaration, checks names and lookups across
 * apps, then resolves defaults and compiles expressions; then the apps' books, overrides and actions.
 * Reports all problems, never the first only.
 */
export async function loadApps(dirs: string[], options: LoadAppsOptions = {}): Promise<LoadAppsResult> {
  const reads: AppRead[] = [];
  for (const dir of dirs) reads.push(await readApp(dir));
  const errors: CodedError[] = reads.flatMap((r) => r.errors);

  const appNames = new Map<string, string>();
  for (const read of reads) {
    if (!read.manifest) continue;
    const other = appNames.get(read.manifest.name);
    if (other) errors.push(metadataError(join(read.dir, 'app.json'), 'name', `app '${read.manifest.name}' is already loaded from ${other}`));
    else appNames.set(read.manifest.name, read.dir);
  }

  const declaredIn = new Map<string, string>();
  for (const read of reads) {
    for (const object of read.objects) {
      if (object.name === null) continue;
      const other = declaredIn.get(object.name);
      if (other) errors.push(metadataError(object.file, 'name', `object '${object.name}' is already declared in ${other}`));
      else declaredIn.set(object.name, object.file);
    }
  }
  const known = new Set([...declaredIn.keys(), ...(options.knownObjects ?? [])]);

  const apps: LoadedApp[] = [];
  const objects = new Map<string, ResolvedObject>();
  for (const read of reads) {
    if (!read.compatible) continue;
    const appName = read.manifest?.name ?? basename(read.dir);
    const loaded: ResolvedObject[] = [];
    for (const { file, definition, references } of read.objects) {
      const referenceErrors = checkReferences(file, references, known);
      errors.push(...referenceErrors);
      if (!definition || declaredIn.get(definition.name) !== file) continue;
      const resolved = resolveObject({ definition, source: file, app: appName });
      errors.push(...resolved.errors);
      if (resolved.object && referenceErrors.length === 0) {
        loaded.push(resolved.object);
        objects.set(resolved.object.name, resolved.object);
      }
    }
    if (read.manifest) apps.push({ manifest: read.manifest, dir: read.dir, objects: loaded, books: [], overrides: [], actions: [], flows: [], datasets: [], dashboards: [], agents: [] });
  }

  // Books and overrides point to objects, so they load once every object is known.
  const sources = apps.map((app) => ({ dir: app.dir, app: app.manifest.name }));
  const books = await loadBooks(sources, known);
  const overrides = await loadOverrides(sources, objects, new Set(declaredIn.keys()));
  // Actions read the resolved objects: their expressions are type-checked against the fields.
  const actions = await loadActions(sources, objects);
  // Flows read the actions their action steps run; actions of run.type flow name a flow.
  const flows = await loadFlows(sources, objects, [...actions.actions.values()].flat());
  errors.push(...books.errors, ...overrides.errors, ...actions.errors, ...flows.errors);
  const refused = checkFlowActions([...actions.actions.values()].flat(), [...flows.flows.values()].flat());
  errors.push(...refused.errors);
  // Datasets' queries are type-checked against the resolved objects; dashboards use datasets.
  const datasets = await loadDatasets(sources, objects);
  errors.push(...datasets.errors);
  const datasetsByName = new Map([...datasets.datasets.values()].flat().map((d) => [d.name, d]));
  const dashboards = await loadDashboards(sources, objects, datasetsByName);
  errors.push(...dashboards.errors);
  // Agents name actions as tools: they load once every action is known.
  const agents = await loadAgents(sources, new Set([...actions.actions.values()].flat().map((a) => a.name)));
  errors.push(...agents.errors);
  for (const app of apps) {
    app.actions = (actions.actions.get(app.manifest.name) ?? []).filter((a) => !refused.actions.has(a.name));
    app.flows = flows.flows.get(app.manifest.name) ?? [];
    app.books = books.books.get(app.manifest.name) ?? [];
    app.overrides = overrides.overrides.get(app.manifest.name) ?? [];
    app.datasets = datasets.datasets.get(app.manifest.name) ?? [];
    app.dashboards = dashboards.dashboards.get(app.manifest.name) ?? [];
    app.agents = agents.agents.get(app.manifest.name) ?? [];
  }
  const forms = await loadForms(sources, objects);
  errors.push(...forms.errors);
  for (const app of apps) app.forms = forms.forms.get(app.manifest.name) ?? [];
  const views = await loadViews(sources, objects);
  errors.push(...views.errors);
  for (const app of apps) app.views = views.views.get(app.manifest.name) ?? [];
  return { apps, objects, errors };
}

function checkReferences(file: string, references: Array<{ field: string; reference: string }>, known: Set<string>): CodedError[] {
  const errors: CodedError[] = [];
  for (const { field, reference } of references) {
    if (known.has(reference)) continue;
    const near = suggest(reference, [...known]);
    const hint = near ? ` (did you mean '${near}'?)` : `; loaded objects: ${[...known].sort().join(', ') || 'none'}`;
    errors.push(metadataError(file, `fields.${field}.reference`, `unknown object '${reference}'${hint}`));
  }
  return errors;
}
