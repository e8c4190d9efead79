import { codedError } from '../../kernel/errors.ts';
import { SYSTEM_FIELDS, type ResolvedObject } from '../../metadata/types.ts';

/** Column name -> target field; null skips the column. */
export type Mapping = Record<string, string | null>;

interface Issue {
  path: string;
  message: string;
}

const SYSTEM = new Set<string>(SYSTEM_FIELDS);

/** Why `name` cannot receive imported values, or null when it can. */
function targetProblem(object: ResolvedObject, name: string): string | null {
  if (SYSTEM.has(name)) return `'${name}' is set by the server and cannot be imported`;
  const field = object.fields[name];
  if (!field) return `'${name}' is not a field of ${object.name}`;
  if (field.type === 'formula' || field.type === 'autonumber') return `'${name}' is computed and cannot be imported`;
  if (field.readonly) return `'${name}' is read-only`;
  return null;
}

/** A column name compared without case, spaces, dashes or underscores (as user import compares its columns). */
const loose = (name: string) => name.toLowerCase().replace(/[\s_-]+/g, '');

/**
 * The field a header column names: the field of exactly that name, else the one field (or system
 * field) whose name matches it loosely ('Due Date' -> due_date); several loose matches are listed;
 * no match gives the name back, for targetProblem to refuse.
 */
function fieldNamed(object: ResolvedObject, column: string): string | string[] {
  if (SYSTEM.has(column) || Object.hasOwn(object.fields, column)) return column;
  const key = loose(column);
  const matches = [...SYSTEM, ...Object.keys(object.fields)].filter((name) => loose(name) === key);
  return matches.length === 1 ? matches[0]! : matches.length > 1 ? matches : column;
}

function fail(issues: Issue[]): never {
  throw codedError('VALIDATION_ERROR', { summary: issues.map((i) => `${i.path}: ${i.message}`).join('; '), errors: issues });
}

/** Each mapping target is a writable field of the object, and no two columns share one. */
function mappingIssues(object: ResolvedObject, mapping: Mapping): Issue[] {
  const issues: Issue[] = [];
  const seen = new Map<string, string>();
  for (const [column, target] of Object.entries(mapping)) {
    if (target === null) continue;
    const problem = targetProblem(object, target);
    if (problem) issues.push({ path: `mapping.${column}`, message: `${problem}; map the column to a field of ${object.name}, or to null to skip it` });
    const other = seen.get(target);
    if (other !== undefined) issues.push({ path: `mapping.${column}`, message: `columns '${other}' and '${column}' both map to '${target}'` });
    seen.set(target, column);
  }
  return issues;
}

/** JSON rows: the mapping is checked before any row; keys it does not name go to the engine as field names. */
export function checkJsonMapping(object: ResolvedObject, mapping: Mapping): void {
  const issues = mappingIssues(object, mapping);
  if (issues.length > 0) fail(issues);
}

/**
 * CSV: the target of every header column, by position. A column is mapped explicitly, or named
 * after a writable field (without regard to case, spaces, dashes or underscores); any other column is a 400 before any row is read, so data is never
 * dropped silently (map it to null to skip it on purpose). Every problem is reported at once.
 */
export function planCsvColumns(object: ResolvedObject, header: readonly string[], mapping: Mapping): Array<string | null> {
  const issues = mappingIssues(object, mapping);
  const columns = new Set<string>();
  header.forEach((name, i) => {
    if (name === '') issues.push({ path: `csv.header.${i + 1}`, message: `column ${i + 1} has no name; every column of the header line needs one` });
    else if (columns.has(name)) issues.push({ path: `csv.header.${name}`, message: `column '${name}' appears twice in the header` });
    columns.add(name);
  });
  for (const column of Object.keys(mapping)) {
    if (!columns.has(column)) issues.push({ path: `mapping.${column}`, message: `'${column}' is not a column of the CSV header (${header.join(', ')})` });
  }
  const mapped = new Set(Object.values(mapping).filter((v): v is string => v !== null));
  const taken = new Map<string, string>();
  const targets = header.map((name) => {
    if (Object.hasOwn(mapping, name)) return mapping[name] ?? null;
    if (name === '') return null;
    const field = fieldNamed(object, name);
    if (Array.isArray(field)) {
      issues.push({ path: `csv.header.${name}`, message: `'${name}' matches the fields ${field.join(', ')}; map the column to one of them in mapping` });
      return null;
    }
    const problem = targetProblem(object, field);
    if (problem) {
      issues.push({ path: `csv.header.${name}`, message: `${problem}; map the column to a field in mapping, or to null to skip it` });
      return null;
    }
    if (mapped.has(field)) issues.push({ path: `csv.header.${name}`, message: `column '${name}' and a mapped column both go to '${field}'; map one of them to null` });
    const other = taken.get(field);
    if (other !== undefined && other !== name) issues.push({ path: `csv.header.${name}`, message: `columns '${other}' and '${name}' both go to '${field}'; map one of them to null` });
    taken.set(field, name);
    return field;
  });
  if (issues.length > 0) fail(issues);
  return targets;
}
