import t from 'tap';
import type { Principal } from '../../capabilities/authSession.ts';
import { hostRefusal, type HostPolicy } from '../../plugins/mcp/hostGuard.ts';
import { scopeRefusal } from '../../capabilities/credentialScopes.ts';
import { ownerOf, SessionStore } from '../../plugins/mcp/sessionStore.ts';
import { jsonSchemaOf, TOOL_SPECS } from '../../plugins/mcp/toolSchemas.ts';
import { loadConfig } from '../../runtime/loadConfig.ts';

const policy = (over: Partial<HostPolicy> = {}): HostPolicy => ({ enabled: true, publicOrigin: null, allowedHosts: [], allowedOrigins: [], ...over });
const codeOf = (p: HostPolicy, host: string | undefined, origin?: string) => hostRefusal(p, host, origin)?.code ?? null;

t.test('Host and Origin: loopback only without a public origin', async (t) => {
  const p = policy();
  for (const host of ['localhost:3000', '127.0.0.1:8080', '[::1]:3000', 'LOCALHOST']) t.equal(codeOf(p, host), null, `${host} accepted`);
  for (const host of ['evil.example.com', 'localhost.evil.com', '127.0.0.1.nip.io:3000', '', undefined]) t.equal(codeOf(p, host), 'MCP_HOST_NOT_ALLOWED', `${String(host)} refused`);
  t.equal(codeOf(p, 'localhost:3000', 'http://localhost:5173'), null, 'a loopback Origin is accepted');
  t.equal(codeOf(p, 'localhost:3000', 'http://evil.example.com'), 'MCP_ORIGIN_NOT_ALLOWED', 'a foreign Origin is refused');
  t.equal(codeOf(p, 'localhost:3000', 'null'), 'MCP_ORIGIN_NOT_ALLOWED', 'an opaque Origin is refused');
  t.equal(codeOf(policy({ enabled: false }), 'evil.example.com', 'http://evil.example.com'), null, 'off: nothing is checked');
});

t.test('Host and Origin: the public origin and the listed ones', async (t) => {
  const p = policy({ publicOrigin: 'https://app.example.com', allowedHosts: ['internal.example.com', 'edge.example.com:8443'], allowedOrigins: ['https://console.example.com'] });
  t.equal(codeOf(p, 'app.example.com'), null, 'the public host');
  t.equal(codeOf(p, 'app.example.com:444'), 'MCP_HOST_NOT_ALLOWED', 'the public host on another port');
  t.equal(codeOf(p, 'localhost:3000'), 'MCP_HOST_NOT_ALLOWED', 'loopback is no longer accepted once a public origin is set');
  t.equal(codeOf(p, 'internal.example.com:9000'), null, 'a listed host without port: any port');
  t.equal(codeOf(p, 'edge.example.com:8443'), null, 'a listed host with its port');
  t.equal(codeOf(p, 'edge.example.com:9443'), 'MCP_HOST_NOT_ALLOWED', 'a listed host on another port');
  t.equal(codeOf(p, 'app.example.com', 'https://app.example.com'), null, 'the public origin');
  t.equal(codeOf(p, 'app.example.com', 'https://console.example.com'), null, 'a listed origin');
  t.equal(codeOf(p, 'app.example.com', 'http://app.example.com'), 'MCP_ORIGIN_NOT_ALLOWED', 'another scheme is another origin');
  t.match(hostRefusal(p, 'evil.example.com', undefined)?.message, 'https://app.example.com', 'the refusal says where to reach the server');
});

const principal = (over: Partial<Principal> = {}): Principal => ({ kind: 'apiKey', userId: 'u1', environmentId: 'default', isAdmin: false, positions: [], permissionSets: [], permissions: [], ...over });

t.test('scopes (the shared helper MCP uses): undefined acts as the user, a list is a ceiling, an empty list holds nothing', async (t) => {
  t.equal(scopeRefusal(principal(), 'data:write', 'the MCP tool create_record'), null, 'no scopes: the user');
  t.equal(scopeRefusal(principal({ scopes: ['data:read', 'data:write'] }), 'data:write', 'the MCP tool create_record'), null, 'a listed scope');
  const refused = scopeRefusal(principal({ scopes: ['data:read'] }), 'data:write', 'the MCP tool create_record');
  t.equal(refused?.code, 'SCOPE_DENIED', 'an unlisted scope is refused with SCOPE_DENIED');
  t.equal(refused?.status, 403, 'a 403');
  t.equal(refused?.details.scope, 'data:write', 'naming it');
  t.equal(refused?.details.operation, 'the MCP tool create_record', 'and the operation');
  t.same(refused?.details.granted, ['data:read'], 'and what the credential holds');
  t.equal(scopeRefusal(principal({ scopes: [] }), 'data:read', 'the MCP tool list_objects')?.code, 'SCOPE_DENIED', 'empty: nothing');
  t.equal(scopeRefusal(principal({ scopes: ['data:read'], isAdmin: true }), 'data:write', 'the MCP tool create_record')?.code, 'SCOPE_DENIED', 'the ceiling binds admins too');
});

t.test('sessions: found only by their owner, closed when idle', async (t) => {
  let now = 0;
  const closed: string[] = [];
  const store = new SessionStore({ max: 10, perCredential: 10, perUser: 10, idleMs: 1_000 }, () => now);
  const session = (id: string, owner: string) => ({ id, owner, user: 'alice', credential: 'k1', close: async () => void closed.push(id) });
  const alice = ownerOf(principal({ userId: 'alice' }));
  store.add(session('s1', alice));
  t.equal(store.get('s1', alice)?.id, 's1', 'the owner finds it');
  t.equal(store.get('s1', ownerOf(principal({ userId: 'bob' }))), null, 'another user does not');
  t.equal(store.get('s1', ownerOf(principal({ userId: 'alice', scopes: ['data:read'] }))), null, 'nor a narrower credential of the same user');
  t.equal(store.get('s1', ownerOf(principal({ userId: 'alice', environmentId: 'other' }))), null, 'nor the same user in another environment');
  store.add(session('s2', alice));
  now = 900;
  store.get('s2', alice);
  now = 1_500;
  t.equal(await store.sweep(), 1, 'the idle session is closed');
  t.same(closed, ['s1'], 'the one unused for longer than the limit');
  t.equal(store.get('s2', alice)?.id, 's2', 'the used one stays');
});

t.test('sessions: bounded per credential, per user and in all, the others keep their room', async (t) => {
  let now = 0;
  const closed: string[] = [];
  const store = new SessionStore({ max: 6, perCredential: 2, perUser: 3, idleMs: 60_000 }, () => now);
  const add = (id: string, user: string, credential: string) => {
    now += 1;
    return store.add({ id, owner: user, user, credential, close: async () => void closed.push(id) }).map((s) => s.id);
  };
  t.same(add('a1', 'alice', 'alice-key1'), [], 'a first session displaces nothing');
  t.same(add('a2', 'alice', 'alice-key1'), [], 'nor a second of the same credential');
  now += 1;
  store.get('a1', 'alice');
  t.same(add('a3', 'alice', 'alice-key1'), ['a2'], 'a third of the credential closes its least recently used');
  t.equal(store.get('a2', 'alice'), null, 'which is gone');
  t.same(add('a4', 'alice', 'alice-key2'), [], 'another key of the same user has room up to the user limit');
  t.same(add('a5', 'alice', 'alice-key3'), ['a1'], 'beyond the user limit, her least recently used closes, whatever its key');
  t.equal(store.size, 3, 'alice holds her limit, no more');
  t.same(add('b1', 'bob', 'bob-key'), [], 'bob has room');
  t.same(add('c1', 'carol', 'carol-key'), [], 'carol too');
  t.same(add('d1', 'dan', 'dan-key'), [], 'the pool is full now');
  t.same(add('e1', 'erin', 'erin-key'), ['a3'], 'a new user in a full pool displaces the largest holder\'s least recently used');
  t.equal(store.get('b1', 'bob')?.id, 'b1', 'a user with one session keeps it');
  t.equal(store.size, 6, 'never more than the pool holds');
  await new Promise((resolve) => setImmediate(resolve));
  t.same(closed.sort(), ['a1', 'a2', 'a3'], 'each displaced session is closed');
});

t.test('every tool input is an object JSON Schema that refuses unknown keys', async (t) => {
  for (const spec of TOOL_SPECS) {
    const schema = jsonSchemaOf(spec.input);
    t.equal(schema.type, 'object', `${spec.name}: an object`);
    t.equal(schema.additionalProperties, false, `${spec.name}: unknown keys refused`);
    t.equal(spec.input.safeParse({ nope: 1 }).success, false, `${spec.name}: an unknown key does not parse`);
  }
});

t.test('OS_MCP_SERVER_ENABLED=true turns the plugin on', async (t) => {
  const on = await loadConfig({ inline: {}, env: { OS_MCP_SERVER_ENABLED: 'true' } });
  t.equal(on.plugins.mcp?.enabled, true, 'enabled by the variable');
  const off = await loadConfig({ inline: {}, env: {} });
  t.equal(off.plugins.mcp, undefined, 'off by default');
});
