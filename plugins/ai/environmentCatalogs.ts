import { builtFromSettings } from '../../capabilities/builtFromSettings.ts';
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
  const built = builtFromSettings<ModelCatalog>('ai', deps.store, async (values) => {
    const { providers, defaultModel } = settingsProviders(deps.providers, deps.defaultModel, values as AiSettings);
    // The provider SDK is loaded only when a provider is configured.
    const { createProviderClient } = await import('./providerClient.ts');
    const connections = deps.store()?.connections;
    const clients = new Map(providers.map((p) => [p.id, createProviderClient(p, deps.requestTimeoutMs, p.chosenBySettings && connections ? connections.fetch : undefined)] as const));
    return createModelCatalog(providers, clients, defaultModel);
  });
  return {
    async of(environmentId) {
      return (await built.of(environmentId)) ?? deps.fallback;
    },
  };
}
