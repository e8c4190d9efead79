// The API explorer: fetches the live OpenAPI document of this runtime and renders it, signs in
// with email and password and tries operations with the bearer token. Plain DOM, text only (never
// HTML from the document or an answer), so it runs under a strict Content-Security-Policy. The
// token lives in this tab's sessionStorage and goes only in the Authorization header, never in a URL.
(() => {
  'use strict';
  const app = document.getElementById('app');
  const status = document.getElementById('status');
  const filter = document.getElementById('filter');
  const authBox = document.getElementById('auth');
  const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
  /** The API base of the page's environment: /api/v1 or /api/v1/environments/<id>. */
  const base = app.dataset.spec.replace(/\/openapi\.json$/, '');
  const TOKEN_KEY = `osr-explorer:${base}`;
  /** Longest answer shown, in characters. */
  const MAX_ANSWER = 200000;

  function stored() {
    try {
      return JSON.parse(sessionStorage.getItem(TOKEN_KEY) || 'null');
    } catch {
      return null;
    }
  }
  let session = stored();

  function keep(value) {
    session = value;
    try {
      if (value) sessionStorage.setItem(TOKEN_KEY, JSON.stringify(value));
      else sessionStorage.removeItem(TOKEN_KEY);
    } catch {
      // Storage refused (private mode): the token stays in memory for this page.
    }
  }

  const bearer = () => (session && session.token ? { authorization: `Bearer ${session.token}` } : {});

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (key === 'class') node.className = value;
      else node.setAttribute(key, String(value));
    }
    // Children may be nested lists (a list of [separator, node, note] per item): flatten them all.
    for (const child of children.flat(Infinity)) {
      if (child === undefined || child === null || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  function setStatus(text, kind) {
    status.textContent = text;
    status.className = kind || '';
  }

  const refName = (ref) => ref.split('/').pop();

  function resolve(doc, schema) {
    if (schema && typeof schema.$ref === 'string') {
      const name = refName(schema.$ref);
      const section = schema.$ref.split('/')[2];
      return { name, schema: (doc.components && doc.components[section] && doc.components[section][name]) || {} };
    }
    return { name: null, schema: schema || {} };
  }

  /** A one-line description of a schema: type, format, enum, flags. */
  function typeText(doc, raw) {
    const { name, schema } = resolve(doc, raw);
    if (name) return name;
    let text = schema.type || (schema.anyOf ? schema.anyOf.map((s) => typeText(doc, s)).join(' | ') : 'any');
    if (schema.type === 'array') text = `array of ${typeText(doc, schema.items)}`;
    if (schema.format) text += ` (${schema.format})`;
    if (Array.isArray(schema.enum)) text += `: ${schema.enum.filter((v) => v !== null).join(', ')}`;
    return text;
  }

  function flags(schema, required) {
    const out = [];
    if (required) out.push('required');
    if (schema.readOnly) out.push('read-only');
    if (schema.nullable) out.push('nullable');
    if (schema.default !== undefined) out.push(`default ${JSON.stringify(schema.default)}`);
    return out.join(', ');
  }

  /** The properties of an object schema as a table; nested objects and arrays of objects expand below. */
  function schemaTable(doc, raw, depth) {
    const { name, schema } = resolve(doc, raw);
    const wrap = el('div', { class: 'schema' });
    if (name) wrap.append(el('div', { class: 'ref' }, `Schema ${name}`));
    const props = schema.properties || {};
    const keys = Object.keys(props);
    if (keys.length === 0) {
      wrap.append(el('div', { class: 'type' }, typeText(doc, schema)));
      return wrap;
    }
    const required = new Set(schema.required || []);
    const rows = keys.map((key) => {
      const prop = resolve(doc, props[key]).schema;
      const nested = depth < 2 && (prop.properties || (prop.items && resolve(doc, prop.items).schema.properties));
      return el('tr', {},
        el('td', {}, el('code', {}, key)),
        el('td', {}, typeText(doc, props[key])),
        el('td', {}, flags(prop, required.has(key))),
        el('td', {}, prop.title && prop.title !== key ? `${prop.title}. ` : '', prop.description || '',
          nested ? schemaTable(doc, prop.items && !prop.properties ? prop.items : props[key], depth + 1) : null));
    });
    wrap.append(el('table', {}, el('thead', {}, el('tr', {}, el('th', {}, 'Field'), el('th', {}, 'Type'), el('th', {}, 'Flags'), el('th', {}, 'Description'))), el('tbody', {}, rows)));
    return wrap;
  }

  function securityText(doc, op) {
    const security = op.security || doc.security || [];
    if (security.length === 0) return 'public';
    const schemes = security.map((s) => Object.keys(s)).flat();
    const optional = security.some((s) => Object.keys(s).length === 0);
    return `${optional ? 'optional credential' : 'credential'}: ${schemes.join(', ')}${op['x-permission'] ? `; permission ${op['x-permission']}` : ''}`;
  }

  function operationView(doc, path, method, op) {
    const params = (op.parameters || []).map((p) => resolve(doc, p).schema);
    const body = el('div', { class: 'op-body' },
      el('p', { class: 'meta' }, `operationId ${op.operationId} · ${securityText(doc, op)}`));
    if (params.length > 0) {
      body.append(el('h4', {}, 'Parameters'), el('table', {},
        el('thead', {}, el('tr', {}, el('th', {}, 'Name'), el('th', {}, 'In'), el('th', {}, 'Type'), el('th', {}, 'Description'))),
        el('tbody', {}, params.map((p) => el('tr', {},
          el('td', {}, el('code', {}, p.name), p.required ? ' *' : ''), el('td', {}, p.in), el('td', {}, typeText(doc, p.schema)), el('td', {}, p.description || ''))))));
    }
    const request = op.requestBody && op.requestBody.content && op.requestBody.content['application/json'];
    if (request) body.append(el('h4', {}, 'Request body'), schemaTable(doc, request.schema, 0));
    const responses = Object.entries(op.responses || {});
    body.append(el('h4', {}, 'Responses'), el('ul', { class: 'responses' }, responses.map(([code, raw]) => {
      const { schema } = resolve(doc, raw);
      const types = Object.keys(schema.content || {});
      const json = schema.content && schema.content['application/json'];
      return el('li', {}, el('strong', {}, code), ` ${schema.description || ''}`, types.length ? el('span', { class: 'types' }, ` ${types.join(', ')}`) : null,
        json && json.schema && Number(code) < 400 ? el('details', {}, el('summary', {}, typeText(doc, json.schema)), schemaTable(doc, json.schema, 0)) : null);
    })));
    body.append(tryView(path, method, op, params));
    const search = `${method} ${path} ${op.summary || ''} ${(op.tags || []).join(' ')}`.toLowerCase();
    return el('details', { class: 'op', 'data-search': search, 'data-operation': op.operationId },
      el('summary', {}, el('span', { class: `method ${method}` }, method.toUpperCase()), ' ', el('code', { class: 'path' }, path), ' ', el('span', { class: 'summary' }, op.summary || '')),
      body);
  }


  /** The URL of an operation with its path and query parameters filled in; null names a missing required parameter. */
  function requestUrl(path, op, values) {
    const root = Array.isArray(op.servers) && op.servers[0] && op.servers[0].url === '/';
    let missing = null;
    const filled = path.replace(/\{([^}]+)\}/g, (_, name) => {
      const value = values.path[name] || '';
      if (value === '') missing = missing || name;
      return encodeURIComponent(value);
    });
    if (missing) return { missing };
    const query = new URLSearchParams(Object.entries(values.query).filter(([, v]) => v !== ''));
    const text = query.toString();
    return { url: `${root ? '' : base}${filled}${text ? `?${text}` : ''}` };
  }

  function showAnswer(out, status, text) {
    out.textContent = '';
    let shown = text;
    try {
      shown = JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      // Not JSON: shown as it came.
    }
    if (shown.length > MAX_ANSWER) shown = `${shown.slice(0, MAX_ANSWER)}\n… (${shown.length - MAX_ANSWER} more characters)`;
    out.append(el('p', { class: `answer-status s${String(status)[0]}` }, status), el('pre', { class: 'answer-body' }, shown));
  }

  /** "Try it": fields for the parameters and the JSON body, sent with the bearer token of the signed-in user. */
  function tryView(path, method, op, params) {
    const wrap = el('div', { class: 'try' });
    const open = el('button', { type: 'button', class: 'try-open' }, 'Try it');
    wrap.append(open);
    open.addEventListener('click', () => {
      open.hidden = true;
      const inputs = params.filter((p) => ['path', 'query', 'header'].includes(p.in)).map((p) => {
        const input = el('input', { type: 'text', 'data-in': p.in, 'data-param': p.name, placeholder: p.required ? 'required' : '', 'aria-label': p.name });
        wrap.append(el('label', { class: 'try-param' }, el('code', {}, p.name), ` (${p.in}) `, input));
        return input;
      });
      const json = op.requestBody && op.requestBody.content && op.requestBody.content['application/json'];
      const textarea = json ? el('textarea', { class: 'try-body', rows: 6, spellcheck: 'false', 'aria-label': 'JSON body' }) : null;
      if (textarea) {
        textarea.value = '{}';
        wrap.append(el('label', { class: 'try-param' }, 'JSON body'), textarea);
      }
      const send = el('button', { type: 'button', class: 'try-send' }, `Send ${method.toUpperCase()}`);
      const out = el('div', { class: 'answer', 'aria-live': 'polite' });
      wrap.append(send, out);
      send.addEventListener('click', async () => {
        const values = { path: {}, query: {}, header: {} };
        for (const input of inputs) values[input.dataset.in][input.dataset.param] = input.value.trim();
        const target = requestUrl(path, op, values);
        if (target.missing) return showAnswer(out, 'not sent', `Fill in the path parameter ${target.missing}.`);
        const headers = { accept: 'application/json', ...bearer() };
        for (const [name, value] of Object.entries(values.header)) if (value !== '') headers[name] = value;
        const init = { method: method.toUpperCase(), headers, credentials: session ? 'omit' : 'same-origin' };
        if (textarea) {
          headers['content-type'] = 'application/json';
          init.body = textarea.value;
        }
        send.disabled = true;
        try {
          const res = await fetch(target.url, init);
          showAnswer(out, `${res.status} ${res.statusText}`, await res.text());
        } catch (error) {
          showAnswer(out, 'failed', error.message);
        } finally {
          send.disabled = false;
        }
      });
    });
    return wrap;
  }

  function render(doc) {
    app.textContent = '';
    setStatus(`${doc.info.title} ${doc.info.version} · OpenAPI ${doc.openapi} · metadata ${doc.info['x-metadata-version'] || ''}`, 'ok');
    const intro = el('section', { id: 'intro' }, (doc.info.description || '').split('\n\n').map((p) => el('p', {}, p)));
    intro.append(el('p', {}, 'Servers: ', (doc.servers || []).map((s, i) => [i ? ' · ' : '', el('code', {}, s.url), s.description ? ` (${s.description})` : ''])));
    app.append(intro);

    const objectTags = (doc.tags || []).filter((t) => t['x-object']);
    const objects = el('section', { id: 'objects' }, el('h2', {}, `Objects (${objectTags.length})`));
    const list = el('ul', { class: 'objects' });
    for (const tag of objectTags) {
      const o = tag['x-object'];
      list.append(el('li', { 'data-object': o.name, 'data-tag': tag.name, 'data-search': `${o.name} ${o.label} ${o.package || ''}`.toLowerCase() },
        el('details', {}, el('summary', {}, el('strong', {}, o.label), ' ', el('code', {}, o.name), ` · ${o.package}`),
          el('p', {}, tag.description || ''), schemaTable(doc, { $ref: `#/components/schemas/${o.name}` }, 0))));
    }
    objects.append(list);
    app.append(objects);

    const byTag = new Map((doc.tags || []).map((t) => [t.name, []]));
    for (const [path, item] of Object.entries(doc.paths || {})) {
      for (const method of METHODS) {
        const op = item[method];
        if (!op) continue;
        const tag = (op.tags && op.tags[0]) || 'other';
        if (!byTag.has(tag)) byTag.set(tag, []);
        byTag.get(tag).push(operationView(doc, path, method, op));
      }
    }
    const operations = el('section', { id: 'operations' }, el('h2', {}, 'Operations'));
    for (const [tag, ops] of byTag) {
      if (ops.length === 0) continue;
      const meta = (doc.tags || []).find((t) => t.name === tag);
      operations.append(el('section', { class: 'tag', 'data-tag': tag },
        el('h3', {}, tag, el('span', { class: 'count' }, ` ${ops.length}`)),
        meta && meta.description ? el('p', { class: 'meta' }, meta.description) : null, ops));
    }
    app.append(operations);
  }

  function showSignIn() {
    setStatus('Sign in to see this API', 'warn');
    app.textContent = '';
    app.append(el('section', { id: 'signin' },
      el('h2', {}, 'Authentication required'),
      el('p', {}, 'The API description is only served to signed-in callers. Sign in above with your email and password (the page calls POST /api/v1/auth/sign-in and keeps the bearer token in this tab only).'),
      el('p', {}, 'Scripts can send a bearer token or an x-api-key header to GET /api/v1/openapi.json instead.')));
  }

  function renderAuth(message) {
    authBox.textContent = '';
    if (session) {
      const out = el('button', { type: 'button', id: 'auth-signout' }, 'Sign out');
      out.addEventListener('click', signOut);
      authBox.append(el('span', { id: 'auth-user' }, `Signed in as ${session.email}`), ' ', out);
      return;
    }
    const email = el('input', { id: 'auth-email', type: 'email', autocomplete: 'username', placeholder: 'Email', 'aria-label': 'Email', required: true });
    const password = el('input', { id: 'auth-password', type: 'password', autocomplete: 'current-password', placeholder: 'Password', 'aria-label': 'Password', required: true });
    const form = el('form', { id: 'auth-form' }, email, password, el('button', { type: 'submit', id: 'auth-submit' }, 'Sign in'));
    if (message) form.append(el('span', { id: 'auth-message', class: 'error' }, message));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void signIn(email.value.trim(), password.value);
    });
    authBox.append(form);
  }

  /** Signs in against the runtime's own route; no cookie is kept (credentials omitted): the token is the session. */
  async function signIn(email, password) {
    try {
      const res = await fetch(`${base}/auth/sign-in`, {
        method: 'POST', credentials: 'omit',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ email, password }),
      });
      const body = await res.json().catch(() => null);
      if (!res.ok) return renderAuth((body && body.error && body.error.message) || `Sign-in failed (${res.status}).`);
      if (!body || !body.token) return renderAuth('This account needs a second factor, which the explorer does not ask for: use an API key from a script instead.');
      keep({ token: body.token, email: (body.user && body.user.email) || email });
      renderAuth();
      load();
    } catch (error) {
      renderAuth(`Sign-in failed: ${error.message}`);
    }
  }

  async function signOut() {
    const headers = bearer();
    keep(null);
    renderAuth();
    await fetch(`${base}/auth/sign-out`, { method: 'POST', credentials: 'omit', headers }).catch(() => null);
    load();
  }

  function applyFilter() {
    const q = filter.value.trim().toLowerCase();
    for (const op of document.querySelectorAll('.op')) op.hidden = q !== '' && !op.dataset.search.includes(q);
    for (const section of document.querySelectorAll('.tag')) section.hidden = !section.querySelector('.op:not([hidden])');
    // The objects list narrows too: an object matches by name, label or package, or by an operation of its own that matches.
    const tags = new Set([...document.querySelectorAll('.tag:not([hidden])')].map((s) => s.dataset.tag));
    const items = [...document.querySelectorAll('#objects li[data-object]')];
    for (const item of items) item.hidden = q !== '' && !item.dataset.search.includes(q) && !tags.has(item.dataset.tag);
    const heading = document.querySelector('#objects h2');
    if (heading) heading.textContent = q === '' ? `Objects (${items.length})` : `Objects (${items.filter((i) => !i.hidden).length} of ${items.length})`;
  }

  function load() {
    fetch(app.dataset.spec, { credentials: session ? 'omit' : 'same-origin', headers: { accept: 'application/json', ...bearer() } })
      .then(async (res) => {
        if (res.status === 401) {
          // A token the server no longer accepts (expired, revoked) is forgotten.
          if (session) {
            keep(null);
            renderAuth('Your session has ended: sign in again.');
          }
          return showSignIn();
        }
        const body = await res.json().catch(() => null);
        if (!res.ok) return setStatus(`The API description could not be loaded: ${res.status} ${(body && body.error && body.error.message) || ''}`, 'error');
        render(body);
        applyFilter();
      })
      .catch((error) => setStatus(`The API description could not be loaded: ${error.message}`, 'error'));
  }

  filter.addEventListener('input', applyFilter);
  renderAuth();
  load();
})();
