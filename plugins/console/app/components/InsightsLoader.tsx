import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ErrorNotice } from './ErrorNotice.tsx';

type Screen = ComponentType<{ parts: string[] }>;
let loading: Promise<Screen> | null = null;

/**
 * Reports and dashboards live in a file of their own with the charting library, loaded the first
 * time one is opened: the initial script stays small.
 */
export function InsightsLoader({ parts }: { parts: string[] }) {
  const [Loaded, setLoaded] = useState<Screen | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    loading ??= import('../insights/InsightsScreen.tsx').then((m) => m.InsightsScreen);
    loading.then((c) => setLoaded(() => c), (e: Error) => {
      loading = null;
      setError(new Error(`The reports could not be loaded (${e.message}): reload the page.`));
    });
  }, []);
  if (error) return <section><ErrorNotice error={error} /></section>;
  if (!Loaded) return <section><p aria-busy="true">Loading…</p></section>;
  return <Loaded parts={parts} />;
}
