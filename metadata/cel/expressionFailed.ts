import { codedError, type CodedError } from '../../kernel/errors.ts';
import { isCelCostError } from './celLimits.ts';

/**
 * VALIDATION_ERROR for an expression that failed while it ran: a CEL error (division by zero, a
 * bad `matches()` pattern), or a cost bound it went past (details `limit`, `max`).
 */
export function expressionFailed(source: string, error: unknown): CodedError {
  const reason = (error as { summary?: string }).summary ?? (error as Error).message ?? String(error);
  const bound = isCelCostError(error) ? { limit: error.limit, max: error.max } : {};
  return codedError('VALIDATION_ERROR', { expression: source, reason, summary: `expression '${source}' failed: ${reason}`, ...bound });
}
