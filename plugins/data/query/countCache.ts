/**
 * Totals of list queries, remembered per environment until the next write. A total depends only on
 * the count statement (its SQL and bindings, which carry the caller's row scope) and on the
 * environment's rows, so an entry holds until anything writes: every write through the engine
 * (and every side-table access) moves the environment's generation and drops its entries.
 *
 * Only sound where this process is the database's only writer: the engine uses it for SQLite
 * (one runtime process per database file), never for PostgreSQL, where other processes write too.
 */
export interface CountCache {
  /** A handle for one read, tied to the generation it started in. */
  reader(environmentId: string): CountReader;
  /** Something may have changed rows of the environment (of `tables` only, when given): forget those totals. */
  changed(environmentId: string, tables?: readonly string[]): void;
}

export interface CountReader {
  get(key: string): number | undefined;
  /** Kept only if no write started since the reader was made. */
  set(key: string, total: number): void;
}

interface Entry {
  generation: number;
  totals: Map<string, number>;
}

export function createCountCache(maxEntries = 1000): CountCache {
  const envs = new Map<string, Entry>();
  const entryOf = (environmentId: string): Entry => {
    let entry = envs.get(environmentId);
    if (!entry) envs.set(environmentId, (entry = { generation: 0, totals: new Map() }));
    return entry;
  };
  return {
    reader(environmentId) {
      const entry = entryOf(environmentId);
      const generation = entry.generation;
      return {
        get: (key) => (entry.generation === generation ? entry.totals.get(key) : undefined),
        set(key, total) {
          if (entry.generation !== generation) return;
          // Oldest first: a Map iterates in insertion order.
          if (entry.totals.size >= maxEntries) entry.totals.delete(entry.totals.keys().next().value!);
          entry.totals.set(key, total);
        },
      };
    },
    changed(environmentId, tables) {
      const entry = entryOf(environmentId);
      // A read under way when anything changes stores nothing, whatever it counted.
      entry.generation++;
      if (!tables) {
        entry.totals.clear();
        return;
      }
      // A total is kept when its statement names none of the tables (quoted as either driver quotes them).
      const names = tables.flatMap((table) => [`"${table}"`, `\`${table}\``]);
      for (const key of entry.totals.keys()) {
        if (names.some((name) => key.includes(name))) entry.totals.delete(key);
      }
    },
  };
}
