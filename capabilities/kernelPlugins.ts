import type { PluginState } from '../kernel/createKernel.ts';
import { defineCapability } from './defineCapability.ts';

export type { PluginState };

export interface KernelPlugins {
  /** Every configured plugin, in configuration order: its manifest's tokens and where its boot is (`disabled`, `ready`, `failed`, ...). */
  states(): PluginState[];
}

export const kernelPlugins = defineCapability<KernelPlugins>()({
  id: 'kernel.plugins',
  cardinality: 'single',
  description: 'Read the configured plugins, their capability tokens and boot status (provided by the kernel).',
});
