import { createHash } from 'node:crypto';
import type { SharedRecord } from './createShareLinks.ts';

const STYLE = 'body{font:16px/1.5 system-ui,sans-serif;max-width:44rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b}'
  + 'h1{font-size:1.4rem}dl{display:grid;grid-template-columns:minmax(8rem,max-content) 1fr;gap:.4rem 1rem}'
  + 'dt{font-weight:600}dd{margin:0;white-space:pre-wrap;overflow-wrap:anywhere}p.note{color:#555;font-size:.9rem}';

/**
 * The page's policy: nothing loads, nothing runs (no script at all), the one inline style is
 * allowed by its hash, the page cannot be framed, and no form can be sent from it.
 */
export const SHARE_PAGE_CSP = `default-src 'none'; style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

const escape = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function shown(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">`
    + `<meta name="robots" content="noindex,nofollow"><meta name="referrer" content="no-referrer"><title>${escape(title)}</title><style>${STYLE}</style></head>`
    + `<body>${body}</body></html>`;
}

/** The shared record, read-only: each chosen field with its label. Every value is escaped. */
export function sharedPage(shared: SharedRecord): string {
  const rows = shared.fields.map((f) => `<dt>${escape(f.label)}</dt><dd>${escape(shown(shared.record[f.name]))}</dd>`).join('');
  return page(`${shared.label} ${shared.id}`, `<main><h1>${escape(shared.label)}</h1><dl>${rows}</dl>`
    + `<p class="note">Shared read-only; this link stops working on ${escape(shared.expiresAt.slice(0, 10))} or when it is revoked.</p></main>`);
}

/** The one page for every link that cannot be read (and for too many reads). */
export function messagePage(title: string, text: string): string {
  return page(title, `<main><h1>${escape(title)}</h1><p>${escape(text)}</p></main>`);
}
