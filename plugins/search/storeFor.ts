import type { SideTableAccess } from '../../capabilities/dataDatabase.ts';
import type { IndexStore } from './indexStore.ts';
import { postgresIndex } from './postgresIndex.ts';
import { sqliteIndex } from './sqliteIndex.ts';

/** The index implementation of the database at hand. */
export function storeFor(db: SideTableAccess): IndexStore {
  return db.dialect === 'sqlite' ? sqliteIndex : postgresIndex;
}
