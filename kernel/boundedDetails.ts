import type { ErrorDetails } from './errors.ts';

/** Entries of `details.errors` an error carries; the rest are counted in `details.omittedErrors`. */
export const MAX_REPORTED_ERRORS = 100;
/** Characters of `details.summary` (and so of the message built from it). */
export const MAX_SUMMARY = 1000;

/**
 * Details with their lists and summary bounded, so that an answer stays small whatever the input
 * was: a body naming 20,000 unknown fields gets the first 100 problems and their count, not a
 * response ten times the size of the request. Details within the bounds are returned as they are.
 */
export function boundedDetails(details: ErrorDetails): ErrorDetails {
  const { errors, summary } = details;
  const long = Array.isArray(errors) && errors.length > MAX_REPORTED_ERRORS;
  const wordy = typeof summary === 'string' && summary.length > MAX_SUMMARY;
  if (!long && !wordy) return details;
  const out: ErrorDetails = { ...details };
  if (long) {
    out.errors = errors.slice(0, MAX_REPORTED_ERRORS);
    out.omittedErrors = errors.length - MAX_REPORTED_ERRORS;
  }
  if (wordy) {
    // Cut after a whole problem where the summary lists several ('a: x; b: y').
    const cut = summary.lastIndexOf('; ', MAX_SUMMARY);
    const total = Array.isArray(errors) ? ` (${errors.length} problems in all)` : '';
    out.summary = `${summary.slice(0, cut > 0 ? cut : MAX_SUMMARY)}; …${total}`;
  }
  return out;
}
