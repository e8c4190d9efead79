import { nameProblem, SNAKE_CASE } from './names.ts';
import type { MetadataProblem } from './metadataError.ts';

type Raw = Record<string, unknown>;
const isObject = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Deepest nesting of sections; deeper trees are menus nobody can use. */
export const MAX_BOOK_DEPTH = 6;

export interface BookReference {
  path: string;
  object: string;
}

/**
 * Rules of a book beyond its schema: names, which keys suit which kind of node, sibling names
 * unique, depth. Reads the raw input defensively; also returns the objects its pages point to,
 * checked across apps by the loader.
 */
export function checkBookSemantics(input: unknown): { problems: MetadataProblem[]; references: BookReference[] } {
  const problems: MetadataProblem[] = [];
  const references: BookReference[] = [];
  if (!isObject(input)) return { problems, references };
  const add = (path: string, reason: string): void => void problems.push({ path, reason });
  if (typeof input['name'] === 'string') {
    const problem = nameProblem(input['name']);
    if (problem) add('name', problem);
  }
  const walk = (nodes: unknown, path: string, depth: number): void => {
    if (!Array.isArray(nodes)) return;
    const seen = new Set<string>();
    nodes.forEach((node, i) => {
      const at = `${path}[${i}]`;
      if (!isObject(node)) return;
      const name = node['name'];
      if (typeof name === 'string') {
        const problem = nameProblem(name);
        if (problem) add(`${at}.name`, problem);
        if (seen.has(name)) add(`${at}.name`, `node '${name}' is declared twice at this level`);
        seen.add(name);
      }
      if (node['kind'] === 'section') {
        for (const key of ['object', 'view'] as const) {
          if (key in node) add(`${at}.${key}`, `a section has no ${key}: put a page with this ${key} in its children`);
        }
        if (!Array.isArray(node['children']) || node['children'].length === 0) add(`${at}.children`, 'a section needs at least one child node');
        else if (depth >= MAX_BOOK_DEPTH) add(`${at}.children`, `sections nest at most ${MAX_BOOK_DEPTH} levels deep`);
        else walk(node['children'], `${at}.children`, depth + 1);
      } else if (node['kind'] === 'page') {
        if ('children' in node) add(`${at}.children`, 'a page has no children: make it a section to group nodes');
        const object = node['object'];
        if (object === undefined) add(`${at}.object`, 'is required: the object the page shows');
        else if (typeof object === 'string' && SNAKE_CASE.test(object)) references.push({ path: `${at}.object`, object });
        else if (typeof object === 'string') add(`${at}.object`, `'${object}' is not an object name`);
        const view = node['view'];
        if (typeof view === 'string') {
          const problem = nameProblem(view);
          if (problem) add(`${at}.view`, problem);
        }
      }
    });
  };
  walk(input['nodes'], 'nodes', 1);
  return { problems, references };
}
