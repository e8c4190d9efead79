import type { Principal } from '../../../capabilities/authSession.ts';
import { humanize } from '../../../metadata/names.ts';
import type { BookAudience, BookNode } from '../../../metadata/types.ts';

export interface TreeNode {
  name: string;
  kind: 'section' | 'page';
  label: string;
  /** Names from the root, joined by `/`: a stable address of the node. */
  path: string;
  description?: string;
  object?: string;
  view?: string;
  audience?: BookAudience;
  children?: TreeNode[];
}

/** Admins satisfy every audience; anyone else must hold the permission set. */
export function satisfies(principal: Principal | null, audience: BookAudience | undefined): boolean {
  if (!audience) return true;
  if (!principal) return false;
  return principal.isAdmin || principal.permissionSets.includes(audience.permissionSet);
}

/**
 * The nodes the caller may see: a node whose audience the caller does not satisfy is removed with
 * everything below it, and a section left without children is removed too (so a hidden area does
 * not show as an empty heading).
 */
export function gateNodes(nodes: readonly BookNode[], principal: Principal | null): BookNode[] {
  const out: BookNode[] = [];
  for (const node of nodes) {
    if (!satisfies(principal, node.audience)) continue;
    if (node.kind === 'section') {
      const children = gateNodes(node.children ?? [], principal);
      if (children.length > 0) out.push({ ...node, children });
    } else out.push(node);
  }
  return out;
}

/** The tree as served: labels filled (a page defaults to its object's plural label), paths added. */
export function toTree(nodes: readonly BookNode[], labelOf: (object: string) => string | undefined, parent = ''): TreeNode[] {
  return nodes.map((node) => {
    const path = parent ? `${parent}/${node.name}` : node.name;
    const label = node.label ?? (node.object ? labelOf(node.object) : undefined) ?? humanize(node.name);
    const out: TreeNode = { name: node.name, kind: node.kind, label, path };
    if (node.description !== undefined) out.description = node.description;
    if (node.object !== undefined) out.object = node.object;
    if (node.view !== undefined) out.view = node.view;
    if (node.audience) out.audience = node.audience;
    if (node.children) out.children = toTree(node.children, labelOf, path);
    return out;
  });
}
