import { useState } from 'preact/hooks';

export interface Submission<A extends unknown[]> {
  /** True while the action runs (its button is disabled meanwhile). */
  busy: boolean;
  /** The last run's failure (an ApiError shows its message and code), null after a success. */
  error: unknown;
  run(...args: A): Promise<void>;
  /** A form's submit handler: no page load, then run(...args). */
  onSubmit(event: Event, ...args: A): void;
}

/** What a form or a button sends: one action, its busy state and its failure, for ErrorNotice to show. */
export function useSubmit<A extends unknown[]>(action: (...args: A) => Promise<unknown>): Submission<A> {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = async (...args: A) => {
    setBusy(true);
    setError(null);
    try {
      await action(...args);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run, onSubmit: (event, ...args) => { event.preventDefault(); void run(...args); } };
}
