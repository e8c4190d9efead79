import { familyOf } from './operandTypes.ts';
import type { FieldScope } from './fieldScope.ts';
import { resolveIn } from './fieldScope.ts';
import type { QueryIssues } from './queryErrors.ts';
import { isPlainObject, pathJoin, show } from './queryErrors.ts';
import type { JoinNode, JoinType, ObjectRegistry } from './types.ts';

const JOIN_TYPES: readonly JoinType[] = ['inner', 'left', 'right', 'full'];
const ALIAS = /^[a-z_][a-z0-9_]{0,62}$/;
/** `<local_field> = <alias>.<field>`, nothing else. */
const ON = /^\s*([a-z_][a-z0-9_]*)\s*=\s*([a-z_][a-z0-9_]*)\.([a-z_][a-z0-9_]*)\s*$/;
const MAX_JOINS = 8;

/** Parses join nodes and registers their aliases in the scope. */
export function parseJoins(input: unknown, scope: FieldScope, registry: ObjectRegistry, issues: QueryIssues): JoinNode[] {
  if (input === undefined) return [];
  if (!Array.isArray(input)) {
    issues.add('joins', 'joins must be an array of {type, object, as, on}');
    return [];
  }
  if (input.length > MAX_JOINS) issues.add('joins', `at most ${MAX_JOINS} joins are allowed`);
  const joins: JoinNode[] = [];
  input.slice(0, MAX_JOINS).forEach((node, i) => {
    const path = pathJoin('joins', i);
    if (!isPlainObject(node)) {
      issues.add(path, 'a join must be an object {type, object, as, on}');
      return;
    }
    for (const key of Object.keys(node)) {
      if (!['type', 'object', 'as', 'on'].includes(key)) issues.add(pathJoin(path, key), `unknown join key '${key}'`);
    }
    const type = node.type;
    if (typeof type !== 'string' || !(JOIN_TYPES as readonly string[]).includes(type)) {
      issues.add(pathJoin(path, 'type'), `join type must be one of ${JOIN_TYPES.join(', ')}, not ${show(type)}`);
    }
    const target = typeof node.object === 'string' ? registry.get(node.object) : undefined;
    if (!target) issues.add(pathJoin(path, 'object'), `unknown object ${show(node.object)}`);
    const alias = node.as;
    if (typeof alias !== 'string' || !ALIAS.test(alias)) {
      issues.add(pathJoin(path, 'as'), `alias must be a lowercase identifier, not ${show(alias)}`);
    } else if (alias === scope.object.name || scope.hasAlias(alias)) {
      issues.add(pathJoin(path, 'as'), `alias '${alias}' is already used`);
    } else if (Object.hasOwn(scope.object.fields, alias) || alias === 'id') {
      issues.add(pathJoin(path, 'as'), `alias '${alias}' is a field of '${scope.object.name}'; choose another`);
    }
    const on = typeof node.on === 'string' ? ON.exec(node.on) : null;
    if (!on) {
      issues.add(pathJoin(path, 'on'), `on must read '<field> = ${typeof alias === 'string' ? alias : '<alias>'}.<field>', not ${show(node.on)}`);
      return;
    }
    if (!target || typeof alias !== 'string' || !ALIAS.test(alias) || typeof type !== 'string' || !(JOIN_TYPES as readonly string[]).includes(type)) return;
    const [, localName, onAlias, foreignName] = on;
    if (onAlias !== alias) {
      issues.add(pathJoin(path, 'on'), `on must compare with this join's alias '${alias}', not '${onAlias}'`);
      return;
    }
    const local = resolveIn(scope.object, null, localName!, localName!);
    const foreign = resolveIn(target, alias, foreignName!, `${alias}.${foreignName}`);
    if (!local.ok) issues.add(pathJoin(path, 'on'), local.message);
    if (!foreign.ok) issues.add(pathJoin(path, 'on'), foreign.message);
    if (!local.ok || !foreign.ok) return;
    scope.guard?.(scope.object.name, local.ref.name);
    scope.guard?.(target.name, foreign.ref.name);
    if (familyOf(local.ref.type) !== familyOf(foreign.ref.type)) {
      issues.add(pathJoin(path, 'on'), `'${localName}' (${local.ref.type}) cannot be joined to '${alias}.${foreignName}' (${foreign.ref.type})`);
      return;
    }
    scope.addAlias(alias, target);
    joins.push({ type: type as JoinType, object: target, alias, local: local.ref, foreign: foreign.ref });
  });
  return joins;
}

/** A join keeps one row per record when it is inner/left on the target's id (a many-to-one link). */
export function joinKeepsRows(join: JoinNode): boolean {
  return (join.type === 'inner' || join.type === 'left') && join.foreign.name === 'id';
}
