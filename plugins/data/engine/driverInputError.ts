import { codedError, type CodedError } from '../../../kernel/errors.ts';

/** Fixed wording per PostgreSQL data exception: the driver's own message quotes SQL. */
const REASONS: Record<string, string> = {
  '22P02': 'a value has the wrong form for the field it is compared with or written to',
  '22003': 'a number is out of range for its field',
  '22007': 'a date or time is not valid',
  '22008': 'a date or time is out of range',
  '22021': 'a text holds a character that cannot be stored, such as U+0000',
  '22P05': 'a text holds a character that cannot be stored, such as U+0000',
  '22001': 'a text is too long for its field',
};

/**
 * A PostgreSQL data exception (SQLSTATE class 22) is caused by a value the client sent that
 * slipped past the metadata checks: a 400 naming the kind of problem, never a 500. Null otherwise.
 */
export function driverInputError(error: unknown): CodedError | null {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !/^22[0-9A-Z]{3}$/.test(code)) return null;
  const reason = REASONS[code] ?? 'a value does not fit its field';
  return codedError('VALIDATION_ERROR', { summary: reason, errors: [{ path: '(value)', message: reason }] });
}
