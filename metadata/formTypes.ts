/**
 * Public forms: views of one object that collect new records, declared in forms/<slug>.json and
 * served by the forms plugin at /api/v1/forms/<slug> and /f/<slug>. See docs/forms.md.
 */

/** One field of a form as written: a field name, or the field with its texts. */
export interface FormFieldDeclaration {
  field: string;
  label?: string;
  help?: string;
  /** true makes an optional field required on this form; an object-required field stays required. */
  required?: boolean;
  placeholder?: string;
}

export interface FormRateLimit {
  /** Submissions accepted per IP address in one window. */
  max: number;
  windowSeconds: number;
}

export interface FormDefinition {
  slug: string;
  object: string;
  title?: string;
  description?: string;
  fields: Array<string | FormFieldDeclaration>;
  sharing?: { allowAnonymous?: boolean };
  /** The user (id or email) the submission is created as; absent: a system context limited to this form. */
  runAs?: string;
  successMessage?: string;
  submitLabel?: string;
  rateLimit?: FormRateLimit;
  /** Name of the hidden honeypot input (default `website`). */
  honeypot?: string;
  /** Largest accepted request body in bytes (default 16384). */
  maxBodyBytes?: number;
}

/** A form field resolved against its object: the constraints the page and the server both check. */
export interface ResolvedFormField {
  field: string;
  /** The object field's type (text, email, integer, select, ...). */
  type: string;
  label: string;
  help: string | null;
  placeholder: string | null;
  required: boolean;
  maxLength: number | null;
  min: number | null;
  max: number | null;
  /** select and multiselect: the allowed values with their labels. */
  options: Array<{ value: string; label: string }> | null;
  /** lookup: the referenced object. */
  reference: string | null;
}

export interface ResolvedForm {
  slug: string;
  object: string;
  title: string;
  description: string | null;
  fields: ResolvedFormField[];
  allowAnonymous: boolean;
  runAs: string | null;
  successMessage: string;
  submitLabel: string;
  rateLimit: FormRateLimit;
  honeypot: string;
  maxBodyBytes: number;
  source: string;
  app: string;
}

export const DEFAULT_FORM_RATE_LIMIT: FormRateLimit = { max: 10, windowSeconds: 60 };
export const DEFAULT_FORM_BODY_BYTES = 16_384;
export const DEFAULT_HONEYPOT = 'website';
export const DEFAULT_SUCCESS_MESSAGE = 'Thank you: your response was received.';
