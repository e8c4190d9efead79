import type { SettingsNamespace, SettingsStore } from './settingsStore.ts';

/**
 * What a plugin builds from an environment's settings of one namespace (a mail transport, an SMS
 * sender, a model catalog): built once per revision of the settings, built again when they change,
 * and dropped when they are cleared. The settings store keeps its reads fresh across processes
 * (docs/settings.md, Taking effect), so the revision read is the current one.
 */
export interface BuiltFromSettings<T> {
  /** What the environment's settings build, or undefined where it has none (the config file applies). */
  of(environmentId: string | undefined): Promise<T | undefined>;
  /** Everything built and still in use (to close at shutdown). */
  current(): T[];
  clear(): void;
}

export function builtFromSettings<T>(
  namespace: SettingsNamespace,
  store: () => SettingsStore | undefined,
  build: (values: Record<string, unknown>, environmentId: string) => T | Promise<T>,
  /** Called with what replaced settings, or cleared ones, no longer use. */
  retire: (old: T) => void = () => undefined,
): BuiltFromSettings<T> {
  const built = new Map<string, { revision: string; value: T }>();
  return {
    async of(environmentId) {
      const settings = environmentId ? await store()?.read(environmentId, namespace) : undefined;
      if (!environmentId || !settings) {
        const dropped = environmentId ? built.get(environmentId) : undefined;
        if (dropped) {
          built.delete(environmentId!);
          retire(dropped.value);
        }
        return undefined;
      }
      const current = built.get(environmentId);
      if (current?.revision === settings.revision) return current.value;
      const value = await build(settings.values, environmentId);
      // Another request of the same revision may have built it meanwhile: keep one.
      const raced = built.get(environmentId);
      if (raced?.revision === settings.revision) {
        retire(value);
        return raced.value;
      }
      built.set(environmentId, { revision: settings.revision, value });
      if (raced) retire(raced.value);
      return value;
    },
    current: () => [...built.values()].map((b) => b.value),
    clear: () => built.clear(),
  };
}
