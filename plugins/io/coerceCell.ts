import type { ResolvedField } from '../../metadata/types.ts';
import { jsonProblem } from '../../kernel/jsonLimits.ts';
import { cellLimitOf, jsonBytesOver, maxBytesOf, maxLengthOf } from '../../metadata/fieldLimits.ts';

/** A cell read as its field's type; `empty` leaves the field out, so its default applies. */
export type CellValue = { kind: 'value'; value: unknown } | { kind: 'empty' } | { kind: 'error'; message: string; limit?: string; max?: number };

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const TRUE = new Set(['true', 'yes', '1']);
const FALSE = new Set(['false', 'no', '0']);
/** `2026-01-31 09:30:00Z` as spreadsheets write it: the space stands for ISO's T. */
const SPACED_DATETIME = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2})/;

const value = (v: unknown): CellValue => ({ kind: 'value', value: v });
const error = (message: string): CellValue => ({ kind: 'error', message });

/**
 * Reads the text of a cell by the type of the field it goes to. Only the conversion is done
 * here; the engine checks the result like any write (options, ranges, formats, references), so
 * a value that converts but is wrong gets the engine's own message. Free text keeps its spaces;
 * everything else is trimmed. An empty cell is no value.
 */
export function coerceCell(field: ResolvedField, text: string): CellValue {
  if (text === '') return { kind: 'empty' };
  const over = oversized(field, text);
  if (over) return over;
  if (field.type === 'text' || field.type === 'textarea') return value(text);
  const t = text.trim();
  if (t === '') return { kind: 'empty' };
  switch (field.type) {
    case 'integer':
    case 'number':
    case 'currency':
    case 'percent': {
      const n = field.type === 'percent' && t.endsWith('%') ? t.slice(0, -1).trim() : t;
      if (!NUMBER.test(n)) return error(field.type === 'integer' ? `must be a whole number, not '${clip(t)}'` : `must be a number such as 1234.5, not '${clip(t)}'`);
      return value(Number(n));
    }
    case 'boolean': {
      const lower = t.toLowerCase();
      if (TRUE.has(lower)) return value(true);
      if (FALSE.has(lower)) return value(false);
      return error(`must be true, false, yes, no, 1 or 0, not '${clip(t)}'`);
    }
    case 'datetime':
      return value(t.replace(SPACED_DATETIME, '$1T$2'));
    case 'multiselect':
      return value([...new Set(t.split(';').map((s) => s.trim()).filter((s) => s !== ''))]);
    case 'json':
      try {
        const parsed = JSON.parse(t) as unknown;
        const problem = jsonProblem(parsed, { root: '', text: t });
        return problem ? error(problem.message) : value(parsed);
      } catch {
        return error('must be valid JSON');
      }
    default:
      return value(t);
  }
}

/**
 * A value of a JSON row: strings are read like cells (a JSON import may carry text from a
 * spreadsheet); other values, and any value of a json field, go to the engine as they are.
 */
export function coerceJsonValue(field: ResolvedField, raw: unknown): CellValue {
  if (typeof raw === 'string' && field.type !== 'json') return coerceCell(field, raw);
  const max = maxBytesOf(field);
  if (max !== undefined && jsonBytesOver(raw, max)) return { kind: 'error', message: `must be at most ${max} bytes as JSON text`, limit: 'maxBytes', max };
  return value(raw);
}

/**
 * A cell longer than its field takes fails here, before it is read or copied into a row: text
 * kinds by `maxLength`, json by `maxBytes` (its text has at most as many characters as bytes;
 * the engine measures the parsed value), anything else by the text default.
 */
function oversized(field: ResolvedField, text: string): CellValue | null {
  const max = cellLimitOf(field) ?? maxLengthOf({ type: 'text' })!;
  if (text.length <= max) return null;
  const unit = field.type === 'json' ? 'bytes as JSON text' : 'characters';
  return { kind: 'error', message: `must be at most ${max} ${unit}`, limit: field.type === 'json' ? 'maxBytes' : 'maxLength', max };
}

function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
