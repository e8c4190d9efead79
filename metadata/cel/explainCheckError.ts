import { suggest } from '../../kernel/suggest.ts';
import type { RecordScope } from './celEnvironment.ts';
import { RUNTIME_FUNCTIONS, knownFunctionNames } from './celEnvironment.ts';
import { DURATION, TIMESTAMP } from './celTypes.ts';

/** The parts of a cel-js AST node this module reads. */
export interface Node {
  op: string;
  args: unknown;
  checkedType?: { name: string };
}

export const DATE_ARITHMETIC_HINT =
  'date arithmetic with + and - is not supported: use addDays(date, n) or addMonths(date, n) to shift a date, ' +
  'daysBetween(from, to) for the days between two dates, daysFromNow(date) for the days until a date';

const TIME_TYPES = new Set([TIMESTAMP, DURATION]);

export function isTimeType(node: unknown): boolean {
  const name = (node as Node | undefined)?.checkedType?.name;
  return name !== undefined && TIME_TYPES.has(name);
}

/** Why a parse or type error happened, and what to write instead. */
export function explainCheckError(error: unknown, scope: RecordScope | null): string {
  const e = error as { code?: string; summary?: string; message?: string; node?: Node; name?: string };
  const summary = e.summary ?? e.message?.split('\n')[0] ?? String(error);
  if (e.name === 'ParseError') return `syntax error: ${summary}`;
  const node = e.node;

  if (e.code === 'unknown_variable' && node?.op === 'id' && typeof node.args === 'string') {
    return unknownIdentifier(node.args, scope);
  }
  if (e.code === 'no_such_key' && (node?.op === '.' || node?.op === '.?') && Array.isArray(node.args)) {
    const [left, key] = node.args as [Node, string];
    if (scope && left.op === 'id' && left.args === 'record') {
      const fields = Object.keys(scope.fields);
      const near = suggest(key, fields);
      const on = scope.name ? ` of object '${scope.name}'` : '';
      return `unknown field 'record.${key}'${on}${near ? ` (did you mean 'record.${near}'?)` : `; fields: ${fields.join(', ')}`}`;
    }
  }
  if (e.code === 'no_matching_overload' && (node?.op === 'call' || node?.op === 'rcall') && Array.isArray(node.args)) {
    const name = node.args[0] as string;
    if (!knownFunctionNames().has(name)) {
      // Typos of this runtime's functions are the likely case; short names match too much.
      const near = name.length >= 4 ? suggest(name, RUNTIME_FUNCTIONS.map((f) => f.slice(0, f.indexOf('(')))) : null;
      return `unknown function '${name}()'${near ? ` (did you mean '${near}()'?)` : ''}; ` +
        `available: ${RUNTIME_FUNCTIONS.join(', ')} and the CEL built-ins (size, contains, startsWith, matches, int, double, string, has, ...)`;
    }
    return `wrong arguments: ${summary}`;
  }
  if (e.code === 'no_such_overload' && (node?.op === '+' || node?.op === '-') && Array.isArray(node.args)) {
    if ((node.args as unknown[]).some(isTimeType)) return DATE_ARITHMETIC_HINT;
  }
  if (/\bdouble\b.*\bint\b|\bint\b.*\bdouble\b/.test(summary)) {
    return `type error: ${summary} (CEL does not mix int and double: write 2.0 instead of 2, or convert with double(...) / int(...))`;
  }
  return `type error: ${summary}`;
}

function unknownIdentifier(name: string, scope: RecordScope | null): string {
  if (scope && name in scope.fields) return `bare field reference '${name}': write 'record.${name}'`;
  if (knownFunctionNames().has(name)) return `'${name}' is a function: call it as '${name}()'`;
  if (!scope) return `unknown identifier '${name}': no record is available here; use literals, user and the functions ${RUNTIME_FUNCTIONS.join(', ')}`;
  const near = suggest(name, Object.keys(scope.fields));
  return `unknown identifier '${name}': refer to fields as 'record.<field>'${near ? ` (did you mean 'record.${near}'?)` : ''}`;
}
