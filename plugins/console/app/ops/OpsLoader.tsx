import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ErrorNotice } from '../components/ErrorNotice.tsx';

type OpsProps = { parts: string[] };

let loading: Promise<ComponentType<OpsProps>> | null = null;

/**
 * The Operations screens live in a file of their own, loaded the first time one is opened: the
 * initial script stays small, and members (who have no link to them) do not download them.
 */
export function OpsLoader(props: OpsProps) {
  const [Screen, setScreen] = useState<ComponentType<OpsProps> | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    loading ??= import('./OpsScreen.tsx').then((m) => m.OpsScreen);
    loading.then((c) => setScreen(() => c), (e: Error) => {
      loading = null;
      setError(new Error(`The operations screens could not be loaded (${e.message}): reload the page.`));
    });
  }, []);
  if (error) return <section><ErrorNotice error={error} /></section>;
  if (!Screen) return <section><p aria-busy="true">Loading…</p></section>;
  return <Screen {...props} />;
}
