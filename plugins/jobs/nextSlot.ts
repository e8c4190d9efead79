import { nextCronTime, parseCron } from './cronPattern.ts';

/**
 * The next slot of a repeatable job strictly after `after`: every process computes the same time,
 * so the slot's idempotency key lets only one occurrence in.
 */
export function nextSlot(repeat: { every?: number | null; pattern?: string | null }, after: Date): Date {
  if (repeat.pattern) return nextCronTime(parseCron(repeat.pattern), after);
  const every = repeat.every!;
  return new Date((Math.floor(after.getTime() / every) + 1) * every);
}
