/**
 * The instant today() and now() read. Evaluation is synchronous, so a slot set around one
 * evaluation is seen by every call inside it and by nothing else.
 */
let current: Date | null = null;

export function withClock<T>(now: Date | undefined, run: () => T): T {
  const previous = current;
  current = now ?? new Date();
  try {
    return run();
  } finally {
    current = previous;
  }
}

export function clockNow(): Date {
  return current ?? new Date();
}
