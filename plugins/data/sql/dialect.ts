import type { Knex } from 'knex';

/** The SQL drivers the engine speaks. */
export type Dialect = 'sqlite' | 'postgres';

/** Which of our dialects a knex instance talks to (read from its client, so builders need no extra argument). */
export function dialectOf(knex: Knex): Dialect {
  const name = String((knex.client as { dialect?: string }).dialect ?? knex.client.config?.client ?? '');
  if (name.includes('sqlite')) return 'sqlite';
  if (name.includes('postgres') || name === 'pg') return 'postgres';
  throw new Error(`Unsupported knex client '${name}'`);
}

/** Unicode-aware lower() that openDatabase registers on every SQLite connection ($contains uses it). */
export const SQLITE_LOWER = 'os_lower';

/**
 * The time budget function openDatabase registers on every SQLite connection (and the read
 * workers on theirs): `os_budget(deadline, ...)` returns 1, or throws OSR_QUERY_BUDGET once the
 * clock is past `deadline` (epoch ms). compileQuery puts it in the WHERE of a costly query with the
 * id of every joined table, so SQLite calls it for each row of the join product.
 */
export const SQLITE_BUDGET = 'os_budget';

/**
 * Quotes an identifier for raw SQL. Only names already checked against metadata (or engine-made
 * aliases) reach this; quoting is a second guard, not the validation.
 */
export function quoteIdent(name: string): string {
  // Metadata names never hold a quote; skip the replace on the hot path.
  return name.includes('"') ? `"${name.replace(/"/g, '""')}"` : `"${name}"`;
}

/** `"table"."column"`. */
export function qualified(table: string, column: string): string {
  return `${quoteIdent(table)}.${quoteIdent(column)}`;
}
