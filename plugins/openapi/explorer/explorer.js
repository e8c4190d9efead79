// The API explorer: fetches the live OpenAPI document of this runtime and renders it. Plain DOM,
// text only (never HTML from the document), so it runs under a strict Content-Security-Policy.
(() => {
  'use strict';
  const app = document.getElementById('app');
  const status = document.getElementById('status');
  const filter = document.getElementById('filter');
  const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (key === 'class') node.className = value;
      else node.setAttribute(key, String(value));
    }
    for (const child of children.flat()) {
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
    const search = `${method} ${path} ${op.summary || ''} ${(op.tags || []).join(' ')}`.toLowerCase();
    return el('details', { class: 'op', 'data-search': search, 'data-operation': op.operationId },
      el('summary', {}, el('span', { class: `method ${method}` }, method.toUpperCase()), ' ', el('code', { class: 'path' }, path), ' ', el('span', { class: 'summary' }, op.summary || '')),
      body);
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
      list.append(el('li', { 'data-object': o.name },
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
      el('p', {}, 'The API description is only served to signed-in callers. Sign in with POST /api/v1/auth/sign-in ({"email", "password"}): the session cookie it sets lets this page load the description. Reload the page afterwards.'),
      el('p', {}, 'Scripts can send a bearer token or an x-api-key header to GET /api/v1/openapi.json instead.')));
  }

  function applyFilter() {
    const q = filter.value.trim().toLowerCase();
    for (const op of document.querySelectorAll('.op')) op.hidden = q !== '' && !op.dataset.search.includes(q);
    for (const section of document.querySelectorAll('.tag')) section.hidden = !section.querySelector('.op:not([hidden])');
  }

  filter.addEventListener('input', applyFilter);
  fetch(app.dataset.spec, { credentials: 'same-origin', headers: { accept: 'application/json' } })
    .then(async (res) => {
      if (res.status === 401) return showSignIn();
      const body = await res.json().catch(() => null);
      if (!res.ok) return setStatus(`The API description could not be loaded: ${res.status} ${(body && body.error && body.error.message) || ''}`, 'error');
      render(body);
      applyFilter();
    })
    .catch((error) => setStatus(`The API description could not be loaded: ${error.message}`, 'error'));
})();
