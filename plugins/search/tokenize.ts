/** Longer tokens (hashes, base64) are left out of the index: nobody types them as a search. */
export const MAX_TOKEN_LENGTH = 200;

/** At most this many distinct query terms are used; the rest of a long query is ignored. */
export const MAX_QUERY_TERMS = 32;

/** A prefix shorter than this matches too much to be useful as a prefix. */
const MIN_PREFIX_LENGTH = 3;

const MARKS = /\p{M}+/gu;
const WORD = /[\p{L}\p{N}]+/gu;

/**
 * Words of a text as the index stores them: compatibility-decomposed (NFKD), combining marks
 * (accents) removed, lowercased, split on anything that is not a letter or a digit. The same
 * function reads documents and queries, so matching is case- and accent-insensitive on both
 * drivers alike, and no character of user text ever reaches the index as syntax.
 */
export function tokenize(text: string): string[] {
  const folded = text.normalize('NFKD').replace(MARKS, '').toLowerCase();
  return (folded.match(WORD) ?? []).filter((token) => token.length <= MAX_TOKEN_LENGTH);
}

export interface QueryTerms {
  /** Distinct words, in the order typed; every one must match. */
  terms: string[];
  /** Whether the last term also matches the words it begins (the user may still be typing it). */
  prefix: boolean;
}

/** A search text as terms; null when it holds no word at all. */
export function queryTerms(q: string): QueryTerms | null {
  // Repeated words count once; the last occurrence is kept so the word typed last stays last.
  const distinct = [...new Set(tokenize(q).reverse())].reverse();
  const terms = distinct.slice(0, MAX_QUERY_TERMS);
  if (terms.length === 0) return null;
  // A trailing separator (`acme `) says the word is complete.
  const typing = /[\p{L}\p{N}\p{M}]$/u.test(q) && terms.length === distinct.length;
  return { terms, prefix: typing && terms[terms.length - 1]!.length >= MIN_PREFIX_LENGTH };
}
