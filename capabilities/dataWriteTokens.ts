import { defineCapability } from './defineCapability.ts';

/**
 * Read-your-writes across processes (docs/data-api.md, Reading your own writes): the token a
 * write's answer carries in `X-OSR-Write-Token`. A read presenting it through any process is not
 * answered from what that process remembered before the write.
 */
export interface DataWriteTokens {
  /** The token of every write this process made in the environment so far; undefined where none is needed (SQLite, or nothing remembered). */
  token(environmentId: string): string | undefined;
}

export const dataWriteTokens = defineCapability<DataWriteTokens>()({
  id: 'data.writeTokens',
  cardinality: 'single',
  description: 'Read-your-writes tokens: the one a write answer carries, for reads through other processes.',
});
