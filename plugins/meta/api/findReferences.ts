import type { BookNode, LoadedApp, ResolvedObject } from '../../../metadata/types.ts';

export interface Reference {
  type: string;
  name: string;
  /** Where in that item the reference sits. */
  path: string;
  package: string;
}

function pagesTo(nodes: readonly BookNode[], object: string, at: string, out: string[]): void {
  nodes.forEach((node, i) => {
    const path = `${at}[${i}]`;
    if (node.object === object) out.push(`${path}.object`);
    if (node.children) pagesTo(node.children, object, `${path}.children`, out);
  });
}

/**
 * Items that reference an object: lookups of objects (its own self-lookups included), book pages
 * showing it, actions running on or creating it, and package overrides changing it. Other types are not referenced by anything yet.
 */
export function findReferences(type: string, name: string, apps: readonly LoadedApp[], objects: readonly ResolvedObject[]): Reference[] {
  if (type !== 'object') return [];
  const out: Reference[] = [];
  for (const other of objects) {
    for (const [field, declaration] of Object.entries(other.fields)) {
      if (declaration.type === 'lookup' && declaration.reference === name) out.push({ type: 'object', name: other.name, path: `fields.${field}.reference`, package: other.app });
    }
  }
  for (const app of apps) {
    for (const book of app.books) {
      const paths: string[] = [];
      pagesTo(book.nodes, name, 'nodes', paths);
      for (const path of paths) out.push({ type: 'book', name: book.name, path, package: app.manifest.name });
    }
    for (const action of app.actions) {
      const paths = [
        ...(action.object === name ? ['object'] : []),
        ...(action.run.type === 'create' && action.run.object === name ? ['run.object'] : []),
        ...Object.entries(action.input).filter(([, f]) => f.reference === name).map(([input]) => `input.${input}.reference`),
      ];
      for (const path of paths) out.push({ type: 'action', name: action.name, path, package: app.manifest.name });
    }
    for (const form of app.forms ?? []) {
      const paths = [...(form.object === name ? ['object'] : []), ...form.fields.filter((f) => f.reference === name).map((f) => `fields.${f.field}.reference`)];
      for (const path of paths) out.push({ type: 'form', name: form.slug, path, package: app.manifest.name });
    }
    for (const override of app.overrides) {
      if (override.object === name) out.push({ type: 'app', name: app.manifest.name, path: `overrides/objects/${name}`, package: app.manifest.name });
    }
  }
  return out;
}
