import type { HttpRoutes } from '../../capabilities/httpRoutes.ts';
import type { KernelPlugins, PluginState } from '../../capabilities/kernelPlugins.ts';
import { requireAdmin } from './requireAdmin.ts';

const strings = { type: 'array', items: { type: 'string' } };

export interface PluginRowOut {
  name: string;
  version: string;
  source: string;
  /** As `osr plugins` says it: `enabled`, `disabled`, or `problem` (it failed or was left out). */
  state: 'enabled' | 'disabled' | 'problem';
  /** Where its boot is, as the kernel says it. */
  status: PluginState['status'];
  requires: string[];
  optional: string[];
  provides: string[];
  problems: string[];
}

/** A plugin's state as `osr plugins` shows it, from the running kernel's. */
export function pluginRow(state: PluginState): PluginRowOut {
  const problem = state.status === 'failed' || state.status === 'skipped';
  return {
    name: state.name, version: state.version, source: state.source,
    state: state.status === 'disabled' ? 'disabled' : problem ? 'problem' : 'enabled',
    status: state.status,
    requires: state.requires, optional: state.optional, provides: state.provides,
    problems: state.error ? [`[${state.error.code}] ${state.error.message}`] : [],
  };
}

/** GET /plugins: the configured plugins, their tokens and state (admins only). */
export function addPluginsRoute(routes: HttpRoutes, plugins: KernelPlugins): void {
  routes.add({
    method: 'GET', path: '/plugins', tags: ['discovery'],
    summary: 'The plugins of this process (admins): name, version, source, state (enabled, disabled, problem), boot status, capability tokens, problems; as osr plugins shows them',
    schema: {
      querystring: { type: 'object', properties: {}, additionalProperties: false },
      response: {
        200: {
          type: 'object',
          properties: {
            items: {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  name: { type: 'string' }, version: { type: 'string' }, source: { type: 'string' },
                  state: { type: 'string', enum: ['enabled', 'disabled', 'problem'] }, status: { type: 'string' },
                  requires: strings, optional: strings, provides: strings, problems: strings,
                },
                required: ['name', 'version', 'source', 'state', 'status', 'requires', 'optional', 'provides', 'problems'],
              },
            },
          },
          required: ['items'],
        },
      },
    },
    handler: (request) => {
      requireAdmin(request.principal, 'the plugin list names the code this process runs and where it comes from');
      return { items: plugins.states().map(pluginRow) };
    },
  });
}
