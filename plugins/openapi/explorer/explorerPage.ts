/** No inline script or style, nothing from elsewhere: the page, its script and its styles come from this runtime. */
export const EXPLORER_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escape = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** `/api/v1` or `/api/v1/environments/<id>`: the page's base, so the environment of the page is the document's. */
export function explorerBase(url: string): string {
  const match = /^(\/api\/v1(?:\/environments\/[a-z0-9-]{1,63})?)\/docs/.exec(url);
  return match ? match[1]! : '/api/v1';
}

export function explorerPage(base: string): string {
  const b = escape(base);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API explorer</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${b}/docs/explorer.css">
</head>
<body>
<header>
<h1>API explorer</h1>
<p id="status">Loading the API description…</p>
<input id="filter" type="search" placeholder="Filter operations" aria-label="Filter operations">
<div id="auth"></div>
</header>
<main id="app" data-spec="${b}/openapi.json"></main>
<script src="${b}/docs/explorer.js"></script>
</body>
</html>
`;
}
