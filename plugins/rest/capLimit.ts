/** A page-size query with its limit brought down to the object's cap, and the limit applied when it was. */
export interface CappedQuery {
  query: Record<string, unknown>;
  /** The limit answered instead of the one asked (the cap), or null when the asked one stands. */
  capped: number | null;
}

/**
 * A `limit` above the object's maxPageSize is answered with maxPageSize ("capped by maxPageSize"),
 * not refused. Only a whole number over the cap is changed (a string of digits from the query
 * string, or a JSON number); anything else is left for the engine to validate.
 */
export function capLimit(query: Record<string, unknown>, maxPageSize: number): CappedQuery {
  const limit = query.limit;
  const over = typeof limit === 'number'
    ? Number.isInteger(limit) && limit > maxPageSize
    : typeof limit === 'string' && /^\d{1,400}$/.test(limit) && Number(limit) > maxPageSize;
  return over ? { query: { ...query, limit: maxPageSize }, capped: maxPageSize } : { query, capped: null };
}
