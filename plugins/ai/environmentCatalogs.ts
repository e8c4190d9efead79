import type { SettingsStore } from '../../capabilities/settingsStore.ts';
import type { AiSettings } from './aiOptions.ts';
import { createModelCatalog, type ModelCatalog } from './modelCatalog.ts';
import type { ResolvedProvider } from './resolveProviders.ts';
import { settingsProviders } from './settingsProviders.ts';

/** The model catalog of each request's environment. */
export interface EnvironmentCatalogs {
  of(environmentId: string): Promise<ModelCatalog>;
}

/**
 * The catalog of an environment: the config file's, or the one built from its `ai` settings
 * (merged over the config file, settingsProviders.ts) while their revision stays the same.
 */
export function environmentCatalogs(deps: {
  providers: readonly ResolvedProvider[];
  defaultModel: string | undefined;
  requestTimeoutMs: number;
  fallback: ModelCatalog;
  store: () => SettingsStore | undefined;
}): EnvironmentCatalogs {
  const built = new Map<string, { revision: string; catalog: ModelCatalog }>();
  return {
    async of(environmentId) {
      const store = deps.store();
      if (!store) return deps.fallback;
      const settings = await store.read(environmentId, 'ai');
      if (!settings) {
        built.delete(environmentId);
        return deps.fallback;
      }
      const current = built.get(environmentId);
      if (current?.revision === settings.revision) return current.catalog;
      const { providers, defaultModel } = settingsProviders(deps.providers, deps.defaultModel, settings.values as AiSettings);
      // The provider SDK is loaded only when a provider is configured.
      const { createProviderClient } = await import('./providerClient.ts');
      const clients = new Map(providers.map((p) => [p.id, createProviderClient(p, deps.requestTimeoutMs)] as const));
      const catalog = createModelCatalog(providers, clients, defaultModel);
      built.set(environmentId, { revision: settings.revision, catalog });
      return catalog;
    },
  };
}
