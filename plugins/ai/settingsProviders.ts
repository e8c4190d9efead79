import { codedError } from '../../kernel/errors.ts';
import type { AiSettings } from './aiOptions.ts';
import type { ResolvedProvider } from './resolveProviders.ts';

/**
 * The providers and default model of an environment: its `ai` settings merged over the config
 * file's (docs/settings.md, Precedence). A provider of the settings replaces the config file's of
 * the same id key by key, or is added. A provider whose `baseURL` the settings give gets only the
 * `apiKey` the settings give (or none): never the config file's key, OPENAI_API_KEY or any other
 * variable of the process, which a tenant admin would otherwise send to a server it chose. One
 * that keeps the config file's `baseURL` keeps its key unless the settings give another.
 * Refusals are AI_NOT_CONFIGURED naming in `path` the key of the settings.
 */
export function settingsProviders(base: readonly ResolvedProvider[], defaultModel: string | undefined, settings: AiSettings): { providers: ResolvedProvider[]; defaultModel: string | undefined } {
  const providers = [...base];
  const seen = new Set<string>();
  for (const given of settings.providers ?? []) {
    const path = `providers.${given.id}`;
    if (seen.has(given.id)) throw codedError('AI_NOT_CONFIGURED', { reason: `provider '${given.id}' is declared twice`, fix: 'give each provider of the ai settings its own id', path: `${path}.id` });
    seen.add(given.id);
    const at = providers.findIndex((p) => p.id === given.id);
    const under = at < 0 ? undefined : providers[at];
    if (given.baseURL === undefined && !under) {
      throw codedError('AI_NOT_CONFIGURED', { reason: `provider '${given.id}' has no baseURL (the config file has no provider of that id)`, fix: `set ${path}.baseURL`, path: `${path}.baseURL` });
    }
    const chosen = given.baseURL !== undefined;
    const provider: ResolvedProvider = {
      id: given.id,
      baseURL: chosen ? given.baseURL!.replace(/\/+$/, '') : under!.baseURL,
      apiKey: given.apiKey ?? (chosen ? null : under!.apiKey),
      models: given.models ?? (chosen ? null : under!.models),
      ...(chosen ? { chosenBySettings: true as const } : {}),
    };
    if (at < 0) providers.push(provider);
    else providers[at] = provider;
  }
  const model = settings.defaultModel ?? defaultModel;
  if (settings.defaultModel !== undefined) {
    const id = settings.defaultModel.slice(0, settings.defaultModel.indexOf('/'));
    if (!providers.some((p) => p.id === id)) {
      throw codedError('AI_NOT_CONFIGURED', { reason: `the default model names provider '${id}', which is neither in the settings nor in the config file`, fix: `name a model of ${providers.map((p) => p.id).join(', ') || 'a provider set in providers'}`, path: 'defaultModel' });
    }
  }
  return { providers, defaultModel: model };
}
