import type { ComponentChildren } from 'preact';

/** What a control needs to be tied to its hint and its error. */
export interface FieldAria { id: string; 'aria-invalid': boolean; 'aria-describedby'?: string }

/**
 * A labelled control with an optional hint and the API's error on it (`role="alert"`, tied by
 * `aria-describedby`, the control marked `aria-invalid`).
 */
export function FormField({ id, label, hint, error, children }: { id: string; label: string; hint?: string; error?: string; children: (aria: FieldAria) => ComponentChildren }) {
  const described = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <div class={`field${error ? ' has-error' : ''}`}>
      <label for={id}>{label}</label>
      {children({ id, 'aria-invalid': Boolean(error), ...(described ? { 'aria-describedby': described } : {}) })}
      {hint ? <small id={`${id}-hint`}>{hint}</small> : null}
      {error ? <p class="field-error" id={`${id}-error`} role="alert">{error}</p> : null}
    </div>
  );
}

/** The errors of a failed submission by field, and the rest of it for ErrorNotice. */
export function splitErrors(error: unknown, fields: readonly string[]): { byField: Record<string, string>; rest: unknown } {
  const byField = error && typeof (error as { fieldErrors?: unknown }).fieldErrors === 'function'
    ? (error as { fieldErrors(): Record<string, string> }).fieldErrors() : {};
  const known = Object.fromEntries(Object.entries(byField).filter(([k]) => fields.includes(k)));
  return { byField: known, rest: Object.keys(known).length > 0 ? null : error };
}
