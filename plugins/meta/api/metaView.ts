import type { Principal } from '../../../capabilities/authSession.ts';
import type { MetadataRegistry } from '../../../capabilities/metadataRegistry.ts';
import { codedError } from '../../../kernel/errors.ts';
import { isObjectSection, OBJECT_SECTIONS, type ObjectSection } from '../../../metadata/patchSchema.ts';
import type { ResolvedAction } from '../../../metadata/actionTypes.ts';
import type { ResolvedDashboard } from '../../../metadata/dashboardTypes.ts';
import type { ResolvedFlow } from '../../../metadata/flowTypes.ts';
import type { ResolvedForm } from '../../../metadata/formTypes.ts';
import type { ObjectPatch, ResolvedBook, ResolvedObject, ViewDefinition } from '../../../metadata/types.ts';
import { applyObjectPatch, mergePatches } from './applyPatch.ts';
import { describeAction, describeAgent, describeFlow, describeApp, describeBook, describeDashboard, describeDataset, describeObject, type Doc, type ObjectDoc } from './describeItems.ts';
import { describeForm } from './describeForm.ts';
import { findReferences, type Reference } from './findReferences.ts';
import { gateNodes, toTree, type TreeNode } from './gateBook.ts';
import { seesInstructions, seesPolicies } from './policyAudience.ts';
import { entryIn, entryOf, parseEntry, patchOf, SECTION_NAMES, validateEntry } from './objectSections.ts';
import type { Caller, HistoryEntry, OverlayStore } from './overlayStore.ts';
import { readableViews } from './readableView.ts';
import { splitViewName, viewNotFound, type ViewCatalog, type ViewDoc } from './viewCatalog.ts';

export const METADATA_TYPES = ['app', 'object', 'view', 'book', 'action', 'form', 'flow', 'dataset', 'dashboard', 'agent'] as const;
export type MetadataType = (typeof METADATA_TYPES)[number];

const SECTIONS: Record<MetadataType, readonly string[]> = { app: [], object: Object.keys(OBJECT_SECTIONS), view: [], book: [], action: [], form: [], flow: [], dataset: [], dashboard: [], agent: [] };

export interface Layers {
  base: Doc;
  package: ObjectPatch | null;
  /** Apps whose overrides make up the package layer, in the order applied. */
  packages: string[];
  overlay: ObjectPatch | null;
  effective: Doc;
}

function asType(type: string): MetadataType {
  if ((METADATA_TYPES as readonly string[]).includes(type)) return type as MetadataType;
  throw codedError('NOT_FOUND', { what: `Metadata type '${type.slice(0, 64)}'`, type: type.slice(0, 64), types: METADATA_TYPES });
}

const notFound = (type: string, name: string) => codedError('NOT_FOUND', { what: `${type[0]!.toUpperCase()}${type.slice(1)} '${name.slice(0, 200)}'`, type, name: name.slice(0, 200) });

/**
 * The metadata as the API serves it: declared items, the package layer (overrides shipped by other
 * apps), the overlay layer (runtime customizations of this environment) and their merge. Books
 * are gated by audience wherever they are shown.
 */
export function createMetaView(registry: MetadataRegistry, store: OverlayStore, catalog: ViewCatalog) {
  const dirs = () => new Map(registry.apps().map((a) => [a.manifest.name, a.dir]));
  const books = (): ResolvedBook[] => registry.apps().flatMap((a) => a.books);
  const actions = (): ResolvedAction[] => registry.apps().flatMap((a) => a.actions);
  const forms = (): ResolvedForm[] => registry.apps().flatMap((a) => a.forms ?? []);
  const flows = (): ResolvedFlow[] => registry.apps().flatMap((a) => a.flows);
  const dashboards = (): ResolvedDashboard[] => registry.apps().flatMap((a) => a.dashboards);
  const datasets = () => registry.apps().flatMap((a) => a.datasets ?? []);
  const agents = () => registry.apps().flatMap((a) => a.agents);
  /** views/*.json of one object, by their key: the base layer of its `views` section. */
  const declaredViews = (object: string): Record<string, unknown> => Object.fromEntries(registry.apps().flatMap((a) => a.views ?? [])
    .filter((v) => v.object === object)
    .map(({ name, object: _object, source: _source, app: _app, ...definition }) => [name.slice(object.length + 1), definition]));

  function packageLayer(object: string): { patch: ObjectPatch | null; apps: string[] } {
    const overrides = registry.apps().flatMap((a) => a.overrides.filter((o) => o.object === object));
    return { patch: mergePatches(overrides.map((o) => o.patch)), apps: overrides.map((o) => o.app) };
  }

  /** Overlay patches by object, for one object or all of them. */
  async function overlays(caller: Caller, object: string | null): Promise<Map<string, ObjectPatch>> {
    const byItem = new Map<string, ObjectPatch[]>();
    for (const row of await store.list('object', object, caller)) {
      if (!isObjectSection(row.section)) continue;
      const address = parseEntry(row.section, row.entry);
      if (!address) continue;
      byItem.set(row.item, [...(byItem.get(row.item) ?? []), patchOf(row.section, address.key, row.value)]);
    }
    const out = new Map<string, ObjectPatch>();
    for (const [item, patches] of byItem) {
      const merged = mergePatches(patches);
      if (merged) out.set(item, merged);
    }
    return out;
  }

  function objectLayers(object: ResolvedObject, overlay: ObjectPatch | null, caller: Caller): Layers & { effective: ObjectDoc } {
    const base = describeObject(object, dirs(), { policies: seesPolicies(caller.principal) }, declaredViews(object.name));
    const pkg = packageLayer(object.name);
    return { base, package: pkg.patch, packages: pkg.apps, overlay, effective: applyObjectPatch(applyObjectPatch(base, pkg.patch), overlay) };
  }

  /**
   * The layers as the caller may see them: in each, the views it may not use are left out and the
   * others lose the fields it may not read (readableView.ts); authors see them as declared. A
   * package or overlay layer left with nothing is null, as when there is none.
   */
  async function layersFor(object: ResolvedObject, overlay: ObjectPatch | null, caller: Caller): Promise<Layers & { effective: ObjectDoc }> {
    const layers = objectLayers(object, overlay, caller);
    const keep = await catalog.viewFilter(object, caller.environmentId, caller.principal);
    if (!keep) return layers;
    const doc = (d: ObjectDoc): ObjectDoc => ({ ...d, views: readableViews(d.views, keep) });
    const patch = (p: ObjectPatch | null): ObjectPatch | null => {
      if (!p?.views) return p;
      const { views, ...rest } = p;
      const seen = readableViews(views, keep);
      const out: ObjectPatch = Object.keys(seen).length > 0 ? { ...rest, views: seen } : rest;
      return Object.keys(out).length > 0 ? out : null;
    };
    return { ...layers, base: doc(layers.base as ObjectDoc), package: patch(layers.package), overlay: patch(layers.overlay), effective: doc(layers.effective) };
  }

  function bookDoc(book: ResolvedBook, principal: Principal | null): Doc {
    const doc = describeBook(book, dirs());
    return principal?.isAdmin ? doc : { ...doc, nodes: gateNodes(book.nodes, principal) };
  }

  function object(name: string): ResolvedObject {
    const found = registry.object(name);
    if (!found) throw notFound('object', name);
    return found;
  }

  /** What a sectioned entry is made of, in every layer. */
  async function sectionView(section: ObjectSection, name: string, caller: Caller) {
    const address = parseEntry(section, name);
    if (!address) throw codedError('VALIDATION_ERROR', { summary: `name must be ${SECTION_NAMES[section]}`, errors: [{ path: 'name', message: `must be ${SECTION_NAMES[section]}` }] });
    const target = object(address.object);
    const layers = await layersFor(target, (await overlays(caller, target.name)).get(target.name) ?? null, caller);
    return { address, target, layers };
  }

  /** The views the caller may use, of one object or of all. */
  async function viewDocs(caller: Caller, only: string | null): Promise<ViewDoc[]> {
    const patches = await overlays(caller, only);
    const out: ViewDoc[] = [];
    for (const o of only ? [object(only)] : registry.objects()) {
      const effective = objectLayers(o, patches.get(o.name) ?? null, caller).effective;
      out.push(...await catalog.viewsOf(o, effective.views, caller.environmentId, caller.principal));
    }
    return out;
  }

  /** One view as the caller may use it, with the fields it may read; a view it may not use is not found. */
  async function viewItem(name: string, caller: Caller): Promise<Doc> {
    const address = splitViewName(name);
    const target = address && registry.object(address.object);
    if (!target) throw viewNotFound(name);
    const view = (await viewDocs(caller, target.name)).find((v) => v.name === name);
    if (!view) throw viewNotFound(name);
    return { ...await catalog.detail(target, view, caller.environmentId, caller.principal) };
  }

  return {
    types: METADATA_TYPES,

    /** Counts as the caller would list the items (views: those it may use). */
    async summary(caller: Caller) {
      const views = (await viewDocs(caller, null)).length;
      const counts: Record<MetadataType, number> = { app: registry.apps().length, object: registry.objects().length, view: views, book: books().length, action: actions().length, form: forms().length, flow: flows().length, dataset: datasets().length, dashboard: dashboards().length, agent: agents().length };
      return { version: registry.version(), types: METADATA_TYPES.map((type) => ({ type, count: counts[type], sections: SECTIONS[type] })) };
    },

    async list(rawType: string, pkg: string | undefined, caller: Caller): Promise<Doc[]> {
      const type = asType(rawType);
      let items: Doc[];
      if (type === 'app') items = registry.apps().map(describeApp);
      else if (type === 'book') items = books().map((b) => bookDoc(b, caller.principal));
      else if (type === 'action') items = actions().map((a) => describeAction(a, dirs()));
      else if (type === 'form') items = forms().map((f) => describeForm(f, dirs(), caller.principal));
      else if (type === 'flow') items = flows().map((f) => describeFlow(f, dirs()));
      else if (type === 'dataset') items = datasets().map((d) => describeDataset(d, dirs()));
      else if (type === 'dashboard') items = dashboards().map((d) => describeDashboard(d, dirs()));
      else if (type === 'agent') items = agents().map((a) => describeAgent(a, dirs(), { instructions: seesInstructions(caller.principal) }));
      else if (type === 'view') items = (await viewDocs(caller, null)).map((v) => ({ ...v }));
      else {
        const patches = await overlays(caller, null);
        items = await Promise.all(registry.objects().map(async (o) => (await layersFor(o, patches.get(o.name) ?? null, caller)).effective));
      }
      return pkg === undefined ? items : items.filter((i) => (type === 'app' ? i.name : i.package) === pkg);
    },

    async item(rawType: string, name: string, caller: Caller): Promise<Layers> {
      const type = asType(rawType);
      if (type === 'object') {
        const target = object(name);
        return layersFor(target, (await overlays(caller, name)).get(name) ?? null, caller);
      }
      let doc: Doc | undefined;
      if (type === 'view') {
        doc = await viewItem(name, caller);
      } else if (type === 'app') {
        const app = registry.apps().find((a) => a.manifest.name === name);
        doc = app && describeApp(app);
      } else if (type === 'action') {
        const action = actions().find((a) => a.name === name);
        doc = action && describeAction(action, dirs());
      } else if (type === 'form') {
        const form = forms().find((f) => f.slug === name);
        doc = form && describeForm(form, dirs(), caller.principal);
      } else if (type === 'flow') {
        const flow = flows().find((f) => f.name === name);
        doc = flow && describeFlow(flow, dirs());
      } else if (type === 'dataset') {
        const dataset = datasets().find((d) => d.name === name);
        doc = dataset && describeDataset(dataset, dirs());
      } else if (type === 'dashboard') {
        const dashboard = dashboards().find((d) => d.name === name);
        doc = dashboard && describeDashboard(dashboard, dirs());
      } else if (type === 'agent') {
        const agent = agents().find((a) => a.name === name);
        doc = agent && describeAgent(agent, dirs(), { instructions: seesInstructions(caller.principal) });
      } else {
        const book = books().find((b) => b.name === name);
        doc = book && bookDoc(book, caller.principal);
      }
      if (!doc) throw notFound(type, name);
      return { base: doc, package: null, packages: [], overlay: null, effective: doc };
    },

    async references(rawType: string, name: string, caller: Caller): Promise<Reference[]> {
      await this.item(rawType, name, caller);
      return findReferences(rawType, name, registry.apps(), registry.objects());
    },

    async history(rawType: string, name: string, page: { limit: number; cursor?: string }, caller: Caller): Promise<{ items: HistoryEntry[]; nextCursor: string | null }> {
      const type = asType(rawType);
      if (type !== 'object') {
        await this.item(type, name, caller);
        return store.history(type, name, page, caller);
      }
      const keep = await catalog.viewFilter(object(name), caller.environmentId, caller.principal);
      const history = await store.history(type, name, page, caller);
      if (!keep) return history;
      // A view's change shows it before and after as the caller may see it; one it can see neither way is left out.
      const seen = (value: unknown) => (value === null ? null : keep(value as ViewDefinition));
      const items = history.items.flatMap((entry) => {
        if (entry.section !== 'views') return [entry];
        const before = seen(entry.before);
        const after = seen(entry.after);
        return before === null && after === null ? [] : [{ ...entry, before, after }];
      });
      return { ...history, items };
    },

    tree(name: string, principal: Principal | null): { name: string; label: string; description?: string; nodes: TreeNode[] } {
      const book = books().find((b) => b.name === name);
      if (!book) throw notFound('book', name);
      const labelOf = (o: string) => registry.object(o)?.pluralLabel;
      return { name: book.name, label: book.label, ...(book.description ? { description: book.description } : {}), nodes: toTree(gateNodes(book.nodes, principal), labelOf) };
    },

    /** Resolve `/meta/:type/:section`: the section must exist for the type. */
    section(rawType: string, section: string): ObjectSection {
      const type = asType(rawType);
      if (type === 'object' && isObjectSection(section)) return section;
      throw codedError('NOT_FOUND', { what: `Section '${section.slice(0, 64)}' of metadata type '${type}'`, section: section.slice(0, 64), sections: SECTIONS[type] });
    },

    async getEntry(section: ObjectSection, name: string, caller: Caller) {
      const { address, target, layers } = await sectionView(section, name, caller);
      const base = entryIn(layers.base as ObjectDoc, section, address.key);
      const effective = entryIn(layers.effective, section, address.key);
      if (!effective) throw notFound(section === 'fields' ? 'field' : 'view', name);
      return {
        type: 'object', section, name, object: target.name, base,
        package: entryOf(layers.package, section, address.key), overlay: entryOf(layers.overlay, section, address.key), effective,
      };
    },

    async upsertEntry(section: ObjectSection, name: string, body: unknown, caller: Caller) {
      const { address, target } = await sectionView(section, name, caller);
      if (target.system) {
        throw codedError('VALIDATION_ERROR', { summary: `'${target.name}' is engine-owned; its metadata is not customizable`, errors: [{ path: 'name', message: 'names an engine-owned object' }] });
      }
      const checked = validateEntry(target, section, address.key, body, new Map(registry.objects().map((o) => [o.name, o])));
      if ('problems' in checked) {
        const errors = checked.problems.map((p) => ({ path: p.path, message: p.reason }));
        throw codedError('VALIDATION_ERROR', { summary: errors.map((e) => `${e.path} ${e.message}`).join('; '), errors });
      }
      await store.upsert({ type: 'object', item: target.name, section, entry: name }, checked.value, caller);
      return this.getEntry(section, name, caller);
    },

    async removeEntry(section: ObjectSection, name: string, caller: Caller): Promise<void> {
      const { target } = await sectionView(section, name, caller);
      const removed = await store.remove({ type: 'object', item: target.name, section, entry: name }, caller);
      if (!removed) throw codedError('NOT_FOUND', { what: `Overlay '${section}/${name}'`, section, name });
    },
  };
}

export type MetaView = ReturnType<typeof createMetaView>;
