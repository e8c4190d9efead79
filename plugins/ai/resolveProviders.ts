import { codedError } from '../../kernel/errors.ts';
import type { AiOptions } from './aiOptions.ts';

/** A configured provider with its key read from the environment. The key stays inside the provider client. */
export interface ResolvedProvider {
  id: string;
  baseURL: string;
  /** Null: the provider takes no key (a local server). */
  apiKey: string | null;
  /** Null: ask the provider's models endpoint. */
  models: string[] | null;
  /** The environment's settings chose its baseURL: reached through the settings' checked connections (docs/settings.md, Hosts chosen in settings). */
  chosenBySettings?: true;
}

export const OPENAI_BASE_URL = 'https://api.openai.com/v1';

/**
 * The providers of `plugins.ai.providers`, plus `openai` from OPENAI_API_KEY (and OPENAI_BASE_URL)
 * when no provider is named `openai`. A provider whose apiKeyEnv is unset fails the boot, naming
 * the variable (never a value).
 */
export function resolveProviders(options: Pick<AiOptions, 'providers'>, env: NodeJS.ProcessEnv): ResolvedProvider[] {
  const seen = new Set<string>();
  const out: ResolvedProvider[] = [];
  for (const provider of options.providers) {
    if (seen.has(provider.id)) throw codedError('AI_NOT_CONFIGURED', { reason: `provider '${provider.id}' is declared twice`, fix: 'give each entry of plugins.ai.providers its own id' });
    seen.add(provider.id);
    let apiKey: string | null = null;
    if (provider.apiKeyEnv !== undefined) {
      apiKey = env[provider.apiKeyEnv] ?? '';
      if (apiKey === '') throw codedError('AI_NOT_CONFIGURED', { reason: `provider '${provider.id}' reads its key from ${provider.apiKeyEnv}, which is not set`, fix: `set ${provider.apiKeyEnv}, or remove apiKeyEnv for a provider that takes no key` });
    }
    out.push({ id: provider.id, baseURL: provider.baseURL.replace(/\/+$/, ''), apiKey, models: provider.models ?? null });
  }
  const key = env.OPENAI_API_KEY;
  if (!seen.has('openai') && key) {
    out.push({ id: 'openai', baseURL: (env.OPENAI_BASE_URL || OPENAI_BASE_URL).replace(/\/+$/, ''), apiKey: key, models: null });
  }
  return out;
}
