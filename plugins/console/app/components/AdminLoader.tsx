import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ErrorNotice } from './ErrorNotice.tsx';

export interface AdminProps {
  /** The path below `/admin`, split: `['users', '<id>']`. */
  parts: string[];
  query: URLSearchParams;
}

let loading: Promise<ComponentType<AdminProps>> | null = null;

/**
 * The administration screens live in a file of their own, loaded the first time an admin opens
 * one: members never download them, and the initial script stays small.
 */
export function AdminLoader(props: AdminProps) {
  const [Screen, setScreen] = useState<ComponentType<AdminProps> | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    loading ??= import('../admin/AdminScreen.tsx').then((m) => m.AdminScreen);
    loading.then((c) => setScreen(() => c), (e: Error) => {
      loading = null;
      setError(new Error(`The administration screens could not be loaded (${e.message}): reload the page.`));
    });
  }, []);
  if (error) return <section><ErrorNotice error={error} /></section>;
  if (!Screen) return <section><p aria-busy="true">Loading…</p></section>;
  return <Screen {...props} />;
}
