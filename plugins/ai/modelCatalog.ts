import { codedError, isCodedError } from '../../kernel/errors.ts';
import type { ProviderClient } from './providerClient.ts';
import type { ResolvedProvider } from './resolveProviders.ts';

/** How long a provider's listed models are trusted before they are asked again. */
const LISTING_TTL_MS = 60_000;

export interface ModelItem {
  id: string;
  provider: string;
}

export interface ProviderFailure {
  provider: string;
  error: { code: string; message: string };
}

export interface ModelCatalog {
  /** Every provider's models; a provider that fails is reported in `errors`, not fatal. */
  list(signal?: AbortSignal): Promise<{ items: ModelItem[]; errors: ProviderFailure[] }>;
  /** The client and provider-side model of `<provider>/<model>` (or the default model); 400 AI_MODEL_UNKNOWN naming the known ones. */
  resolve(model: string | undefined, signal?: AbortSignal): Promise<{ client: ProviderClient; model: string; id: string }>;
}

export function createModelCatalog(providers: ResolvedProvider[], clients: Map<string, ProviderClient>, defaultModel: string | undefined): ModelCatalog {
  const listed = new Map<string, { at: number; models: string[] }>();

  async function modelsOf(provider: ResolvedProvider, signal?: AbortSignal): Promise<string[]> {
    if (provider.models) return provider.models;
    const cached = listed.get(provider.id);
    if (cached && Date.now() - cached.at < LISTING_TTL_MS) return cached.models;
    const models = await clients.get(provider.id)!.models(signal);
    listed.set(provider.id, { at: Date.now(), models });
    return models;
  }

  async function list(signal?: AbortSignal) {
    const items: ModelItem[] = [];
    const errors: ProviderFailure[] = [];
    await Promise.all(providers.map(async (provider) => {
      try {
        for (const model of await modelsOf(provider, signal)) items.push({ id: `${provider.id}/${model}`, provider: provider.id });
      } catch (error) {
        if (!isCodedError(error)) throw error;
        errors.push({ provider: provider.id, error: { code: error.code, message: error.message } });
      }
    }));
    items.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return { items, errors };
  }

  async function unknown(model: string, signal?: AbortSignal) {
    const { items } = await list(signal);
    const known = items.map((i) => i.id);
    const shown = known.length === 0 ? 'none (configure plugins.ai.providers or OPENAI_API_KEY)' : known.slice(0, 50).join(', ');
    return codedError('AI_MODEL_UNKNOWN', { model, known: shown, models: known.slice(0, 50) });
  }

  return {
    list,
    async resolve(asked, signal) {
      const name = asked ?? defaultModel;
      if (name === undefined) throw await unknown('(none: the request names no model and plugins.ai.defaultModel is not set)', signal);
      const slash = name.indexOf('/');
      const provider = slash > 0 ? providers.find((p) => p.id === name.slice(0, slash)) : undefined;
      if (!provider) throw await unknown(name, signal);
      const model = name.slice(slash + 1);
      if (!(await modelsOf(provider, signal)).includes(model)) throw await unknown(name, signal);
      return { client: clients.get(provider.id)!, model, id: name };
    },
  };
}
