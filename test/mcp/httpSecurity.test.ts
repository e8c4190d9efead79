import t from 'tap';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { eachBackend, signIn } from '../auth/authHarness.ts';
import { sendAs } from '../access/accessWorld.ts';
import { answerOf, buildMcpWorld, INITIALIZE, rawRequest } from './mcpWorld.ts';

const ALL = ['DOC-A', 'DOC-B', 'DOC-C', 'DOC-E'];
const SECRETS = ['SECRET-A', 'SECRET-B', 'SECRET-C', 'SECRET-E'];

t.test('MCP over HTTP: row and field security, credentials, Host and Origin, sessions bound to their owner', async (t) => {
  await eachBackend(t, ['mcpsec'], async (t, site) => {
    const w = await buildMcpWorld(t, site);

    await t.test('a key of a member sees only the member\'s rows and fields', async (t) => {
      const cases = [
        { user: 'owner' as const, sees: ['DOC-A'], secrets: [] as string[] },
        { user: 'other' as const, sees: ['DOC-B', 'DOC-C', 'DOC-E'], secrets: [] as string[] },
        { user: 'viewAll' as const, sees: ALL, secrets: SECRETS },
      ];
      for (const c of cases) {
        const client = await w.connect({ authorization: `Bearer ${(await w.mintKey(c.user)).key}` });
        const page = answerOf(await client.callTool({ name: 'query_records', arguments: { object: 'doc', orderBy: [{ field: 'title' }] } }));
        t.same(page.body.items.map((r: { title: string }) => r.title), c.sees, `${c.user}: query_records answers exactly the readable rows`);
        const text = JSON.stringify(page.body);
        for (const secret of SECRETS) t.equal(text.includes(secret), c.secrets.includes(secret), `${c.user}: ${secret} ${c.secrets.includes(secret) ? 'present' : 'absent'}`);
        const names = answerOf(await client.callTool({ name: 'list_objects', arguments: {} })).body.objects.map((o: { name: string }) => o.name);
        t.ok(names.includes('doc') && names.includes('note'), `${c.user}: list_objects names the objects it may read`);
        t.notOk(names.includes('sys_permission_set'), `${c.user}: and not those it may not read`);
        t.equal(answerOf(await client.callTool({ name: 'describe_object', arguments: { object: 'sys_permission_set' } })).body.error?.code, 'NOT_FOUND', `${c.user}: an object it may not read is not found`);
        t.notOk((await client.listResources()).resources.some((r) => r.uri === 'osr://objects/sys_permission_set'), `${c.user}: nor listed as a resource`);
        const described = answerOf(await client.callTool({ name: 'describe_object', arguments: { object: 'doc' } }));
        const fields = described.body.fields.map((f: { name: string }) => f.name);
        t.equal(fields.includes('secret'), c.secrets.length > 0, `${c.user}: describe_object ${c.secrets.length > 0 ? 'lists' : 'hides'} the hidden field`);
        const resource = JSON.parse(String(((await client.readResource({ uri: 'osr://objects/doc' })).contents[0] as { text: string }).text));
        t.equal(resource.fields.some((f: { name: string }) => f.name === 'secret'), c.secrets.length > 0, `${c.user}: the schema resource likewise`);
        const plain = answerOf(await client.callTool({ name: 'get_record', arguments: { object: 'doc', id: w.ids.docE } }));
        if (c.user === 'owner') t.equal(plain.body.error?.code, 'NOT_FOUND', 'owner: another user\'s row is not found');
        else t.equal(JSON.stringify(plain.body).includes('SECRET-E'), c.secrets.length > 0, `${c.user}: get_record answers the hidden field only to whom may read it`);
        const forced = answerOf(await client.callTool({ name: 'get_record', arguments: { object: 'doc', id: w.ids.docE, fields: ['title', 'secret'] } }));
        t.equal(JSON.stringify(forced.body).includes('SECRET-E'), c.secrets.length > 0, `${c.user}: asking for the hidden field does not reveal it`);
        if (c.secrets.length === 0) t.equal(forced.body.error?.code, 'PERMISSION_DENIED', `${c.user}: asking for it is refused`);
        const found = answerOf(await client.callTool({ name: 'search', arguments: { q: 'doc', objects: ['doc'] } }));
        t.same(found.body.items.map((h: { record: { title: string } }) => h.record.title).sort(), c.sees, `${c.user}: search finds only readable rows`);
        const write = answerOf(await client.callTool({ name: 'update_record', arguments: { object: 'doc', id: w.ids.docA, values: { region: 'XX' } } }));
        if (c.user === 'owner') t.equal(write.isError, false, 'owner: may edit its own row');
        else t.equal(write.body.error?.code, c.user === 'other' ? 'NOT_FOUND' : 'PERMISSION_DENIED', `${c.user}: cannot edit the owner's row`);
      }
    });

    await t.test('an admin\'s key lists the system objects its user may read', async (t) => {
      const client = await w.connect({ authorization: `Bearer ${(await w.mintKey('admin')).key}` });
      const names = answerOf(await client.callTool({ name: 'list_objects', arguments: {} })).body.objects.map((o: { name: string }) => o.name);
      t.ok(names.includes('sys_permission_set'), 'admin: sys_permission_set listed');
    });

    await t.test('anonymous and cookie-only requests: 401 naming the resource metadata', async (t) => {
      const anonymous = await rawRequest(w.endpoint, 'POST', {}, INITIALIZE);
      t.equal(anonymous.status, 401, 'anonymous: 401');
      t.equal(anonymous.headers['www-authenticate'], `Bearer resource_metadata="${w.origin}/.well-known/oauth-protected-resource/api/v1/mcp"`, 'the challenge names the protected-resource metadata');
      t.equal(JSON.parse(anonymous.body).error.code, 'UNAUTHENTICATED', 'in the error envelope');
      const bad = await rawRequest(w.endpoint, 'POST', { authorization: 'Bearer osk_not_a_key' }, INITIALIZE);
      t.equal(bad.status, 401, 'an unknown key: 401');
      t.match(bad.headers['www-authenticate'], /error="invalid_token"/, 'the challenge says the token is invalid');
      const session = await signIn(w.rt);
      const cookie = await rawRequest(w.endpoint, 'POST', { cookie: session.cookie, origin: w.origin }, INITIALIZE);
      t.equal(cookie.status, 401, 'a session cookie alone does not open a session');
    });

    await t.test('Host and Origin outside the allowed ones are refused', async (t) => {
      const { key } = await w.mintKey('admin');
      const port = new URL(w.origin).port;
      const evilHost = await rawRequest(w.endpoint, 'POST', { host: 'evil.example.com', authorization: `Bearer ${key}` }, INITIALIZE);
      t.equal(evilHost.status, 403, 'a foreign Host: 403');
      t.equal(JSON.parse(evilHost.body).error.code, 'MCP_HOST_NOT_ALLOWED', 'coded');
      const evilOrigin = await rawRequest(w.endpoint, 'POST', { host: `localhost:${port}`, origin: 'http://evil.example.com', authorization: `Bearer ${key}` }, INITIALIZE);
      t.equal(evilOrigin.status, 403, 'a foreign Origin: 403');
      t.equal(JSON.parse(evilOrigin.body).error.code, 'MCP_ORIGIN_NOT_ALLOWED', 'coded');
      const anonymousEvil = await rawRequest(w.endpoint, 'POST', { host: 'evil.example.com' }, INITIALIZE);
      t.equal(anonymousEvil.status, 403, 'the Host is checked before the credential');
      const local = await rawRequest(w.endpoint, 'POST', { host: `localhost:${port}`, origin: `http://localhost:${port}`, authorization: `Bearer ${key}` }, INITIALIZE);
      t.equal(local.status, 200, 'a loopback Host and Origin: 200');
      t.type(local.headers['mcp-session-id'], 'string', 'initialize opened a session');
    });

    await t.test('a session answers only the credential owner that opened it', async (t) => {
      const ownerKey = (await w.mintKey('owner')).key;
      const otherKey = (await w.mintKey('other')).key;
      const client = await w.connect({ authorization: `Bearer ${ownerKey}` });
      const sessionId = (client.transport as StreamableHTTPClientTransport).sessionId!;
      t.type(sessionId, 'string', 'the client holds a session id');
      const list = { jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} };
      const stolen = await rawRequest(w.endpoint, 'POST', { authorization: `Bearer ${otherKey}`, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' }, list);
      t.equal(stolen.status, 404, 'another user\'s key with the session id: 404');
      t.equal(JSON.parse(stolen.body).error.code, 'MCP_SESSION_NOT_FOUND', 'coded, as for an unknown session');
      const ended = await rawRequest(w.endpoint, 'DELETE', { authorization: `Bearer ${otherKey}`, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' });
      t.equal(ended.status, 404, 'another user cannot end it either');
      const still = answerOf(await client.callTool({ name: 'list_objects', arguments: {} }));
      t.equal(still.isError, false, 'the owner\'s session still works');
      const noSession = await rawRequest(w.endpoint, 'POST', { authorization: `Bearer ${ownerKey}` }, list);
      t.equal(JSON.parse(noSession.body).error.code, 'MCP_SESSION_REQUIRED', 'a message outside a session is refused');
      await client.transport!.close();
    });

    await t.test('a revoked key is refused at once, inside an open session too', async (t) => {
      const minted = await w.mintKey('owner');
      const client = await w.connect({ authorization: `Bearer ${minted.key}` });
      const before = answerOf(await client.callTool({ name: 'list_objects', arguments: {} }));
      t.equal(before.isError, false, 'the key works');
      const sessionId = (client.transport as StreamableHTTPClientTransport).sessionId!;
      const revoked = await sendAs(w.rt, w.users.owner.token, 'DELETE', `/api/v1/keys/${minted.id}`);
      t.equal(revoked.status, 204, 'the key is revoked');
      const after = await rawRequest(w.endpoint, 'POST', { authorization: `Bearer ${minted.key}`, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' },
        { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'list_objects', arguments: {} } });
      t.equal(after.status, 401, 'the next call with the revoked key: 401');
      await t.rejects(client.callTool({ name: 'list_objects', arguments: {} }), 'the SDK client fails too');
    });
  });
});
