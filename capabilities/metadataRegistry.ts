import type { LoadedApp, ResolvedObject } from '../metadata/types.ts';
import { defineCapability } from './defineCapability.ts';

export interface MetadataRegistry {
  /** Every loaded object, system objects included. */
  objects(): ResolvedObject[];
  /** One object by name, or undefined. */
  object(name: string): ResolvedObject | undefined;
  apps(): LoadedApp[];
  /** A content hash of what is loaded: it changes whenever the metadata does (caches key on it). */
  version(): string;
  /**
   * During register only: load an app directory shipped by a plugin with the configured apps. Its
   * objects are engine-owned (`system`): read-only through /data unless they declare userActions.
   */
  contributeApp(dir: string): void;
}

export const metadataRegistry = defineCapability<MetadataRegistry>()({
  id: 'metadata.registry',
  cardinality: 'single',
  description: 'Read the loaded, validated metadata: apps and their objects, with compiled expressions.',
});
