import type { LoadedApp, ResolvedObject } from '../metadata/types.ts';
import { defineCapability } from './defineCapability.ts';

export interface MetadataRegistry {
  /** Every loaded object, system objects included. */
  objects(): ResolvedObject[];
  /** One object by name, or undefined. */
  object(name: string): ResolvedObject | undefined;
  apps(): LoadedApp[];
}

export const metadataRegistry = defineCapability<MetadataRegistry>()({
  id: 'metadata.registry',
  cardinality: 'single',
  description: 'Read the loaded, validated metadata: apps and their objects, with compiled expressions.',
});
