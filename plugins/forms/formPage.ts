import type { ResolvedForm, ResolvedFormField } from '../../metadata/formTypes.ts';
import { formTextLimit } from './validateSubmission.ts';

/** No inline script or style, no framing, posts only to this origin; the page's files are same-origin. */
export const FORM_CSP = [
  "default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "img-src 'self'",
  "form-action 'self'", "frame-ancestors 'none'", "base-uri 'none'",
].join('; ');

export const FORM_SCRIPT_PATH = '/f/assets/form.js';
export const FORM_STYLE_PATH = '/f/assets/form.css';
export const FORM_ICON_PATH = '/f/assets/icon.svg';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

const INPUT_TYPES: Record<string, string> = {
  text: 'text', email: 'email', url: 'url', phone: 'tel', lookup: 'text',
  integer: 'number', number: 'number', currency: 'number', percent: 'number', date: 'date', datetime: 'datetime-local',
};
const TEXT_TYPES = new Set(['text', 'textarea', 'email', 'url', 'phone', 'lookup']);

function attrs(pairs: Record<string, string | number | boolean | null | undefined>): string {
  let out = '';
  for (const [name, value] of Object.entries(pairs)) {
    if (value === null || value === undefined || value === false) continue;
    out += value === true ? ` ${name}` : ` ${name}="${escapeHtml(String(value))}"`;
  }
  return out;
}

function control(field: ResolvedFormField, id: string, describedBy: string): string {
  const common = { id, name: field.field, 'aria-describedby': describedBy, required: field.required };
  const maxLength = TEXT_TYPES.has(field.type) ? (field.type === 'lookup' ? 64 : formTextLimit(field)) : null;
  if (field.type === 'textarea') return `<textarea${attrs({ ...common, maxlength: maxLength, placeholder: field.placeholder })}></textarea>`;
  if (field.type === 'boolean') return `<input${attrs({ id, name: field.field, type: 'checkbox', value: 'true', 'aria-describedby': describedBy })}>`;
  if (field.type === 'select') {
    const options = field.options!.map((o) => `<option${attrs({ value: o.value })}>${escapeHtml(o.label)}</option>`).join('');
    return `<select${attrs(common)}><option value="">${field.required ? 'Choose one' : '(none)'}</option>${options}</select>`;
  }
  const number = field.type in { integer: 1, number: 1, currency: 1, percent: 1 };
  return `<input${attrs({
    ...common,
    type: INPUT_TYPES[field.type] ?? 'text',
    maxlength: maxLength,
    min: number ? field.min : null,
    max: number ? field.max : null,
    step: number ? (field.type === 'integer' ? 1 : 'any') : null,
    pattern: field.type === 'phone' ? '\\+?[0-9][0-9 ().\\-]{2,31}' : null,
    placeholder: field.placeholder,
    autocomplete: field.type === 'email' ? 'email' : field.type === 'phone' ? 'tel' : null,
  })}>`;
}

function fieldBlock(field: ResolvedFormField): string {
  const id = `f-${field.field}`;
  const helpId = `${id}-help`;
  const errorId = `${id}-error`;
  const describedBy = field.help ? `${helpId} ${errorId}` : errorId;
  const mark = field.required ? ' <span class="required" aria-hidden="true">*</span>' : '';
  const help = field.help ? `<p class="help" id="${helpId}">${escapeHtml(field.help)}</p>` : '';
  const error = `<p class="error" id="${errorId}" hidden></p>`;
  const data = attrs({
    'data-field': field.field, 'data-type': field.type, 'data-required': String(field.required),
    'data-max-length': TEXT_TYPES.has(field.type) ? (field.type === 'lookup' ? 64 : formTextLimit(field)) : null,
    'data-min': field.min, 'data-max': field.max,
  });
  if (field.type === 'multiselect') {
    const boxes = field.options!.map((o, i) => {
      const optionId = `${id}-${i}`;
      return `<label for="${optionId}"><input${attrs({ id: optionId, type: 'checkbox', name: field.field, value: o.value })}> ${escapeHtml(o.label)}</label>`;
    }).join('');
    return `<div class="field"${data}><fieldset${attrs({ 'aria-describedby': describedBy })}><legend>${escapeHtml(field.label)}${mark}</legend>${boxes}</fieldset>${help}${error}</div>`;
  }
  return `<div class="field"${data}><label for="${id}">${escapeHtml(field.label)}${mark}</label>${control(field, id, describedBy)}${help}${error}</div>`;
}

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">`
    + `<meta name="referrer" content="no-referrer"><title>${escapeHtml(title)}</title><link rel="stylesheet" href="${FORM_STYLE_PATH}"><link rel="icon" href="${FORM_ICON_PATH}" type="image/svg+xml"></head>`
    + `<body><main>${body}</main></body></html>`;
}

/** The form's page: every control carries the constraints the server checks, for the script and for the browser. */
export function formPage(form: ResolvedForm, submitUrl: string): string {
  const description = form.description ? `<p>${escapeHtml(form.description)}</p>` : '';
  const trap = `<div class="hp" aria-hidden="true"><label for="f-hp">Leave this field empty</label><input${attrs({ id: 'f-hp', name: form.honeypot, type: 'text', tabindex: -1, autocomplete: 'off', 'data-honeypot': true })}></div>`;
  const body = `<h1>${escapeHtml(form.title)}</h1>${description}`
    + `<div id="form-error" role="alert" hidden></div>`
    + `<p id="form-success" role="status" tabindex="-1" hidden${attrs({ 'data-default': form.successMessage })}></p>`
    + `<noscript><p>This form needs JavaScript to be sent.</p></noscript>`
    + `<form id="public-form" method="post" novalidate${attrs({ action: submitUrl, 'data-submit-url': submitUrl })}>`
    + form.fields.map(fieldBlock).join('')
    + trap
    + `<button type="submit">${escapeHtml(form.submitLabel)}</button></form>`
    + `<script src="${FORM_SCRIPT_PATH}"></script>`;
  return page(form.title, body);
}

/** A short page for what the form page cannot show: a missing form, or one that needs a signed-in user. */
export function messagePage(title: string, message: string): string {
  return page(title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>`);
}
