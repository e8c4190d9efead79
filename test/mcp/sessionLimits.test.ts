import t from 'tap';
import { eachBackend } from '../auth/authHarness.ts';
import { buildMcpWorld, INITIALIZE, rawRequest } from './mcpWorld.ts';

const LIST = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };

t.test('MCP sessions are bounded per credential and per user, and a full pool keeps room for others', async (t) => {
  await eachBackend(t, ['mcplimits'], async (t, site) => {
    const w = await buildMcpWorld(t, site, { maxSessions: 4, maxSessionsPerCredential: 2, maxSessionsPerUser: 3 });
    const open = async (key: string) => {
      const res = await rawRequest(w.endpoint, 'POST', { authorization: `Bearer ${key}` }, INITIALIZE);
      return { status: res.status, id: String(res.headers['mcp-session-id'] ?? '') };
    };
    const use = async (key: string, id: string) => {
      const res = await rawRequest(w.endpoint, 'POST', { authorization: `Bearer ${key}`, 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' }, LIST);
      return { status: res.status, code: res.status === 200 ? null : JSON.parse(res.body).error.code };
    };
    const key1 = (await w.mintKey('owner', { scopes: ['data:read'] })).key;
    const key2 = (await w.mintKey('owner', { scopes: ['data:read'] })).key;
    const otherKey = (await w.mintKey('other')).key;
    const adminKey = (await w.mintKey('admin')).key;

    const first = [await open(key1), await open(key1), await open(key1)];
    t.same(first.map((s) => s.status), [200, 200, 200], 'a credential may open more sessions than its limit');
    t.same(await use(key1, first[0]!.id), { status: 404, code: 'MCP_SESSION_NOT_FOUND' }, 'its least recently used was closed');
    t.equal((await use(key1, first[2]!.id)).status, 200, 'its newest works');

    const second = [await open(key2), await open(key2)];
    t.same(second.map((s) => s.status), [200, 200], 'another key of the same user opens sessions');
    t.same(await use(key1, first[1]!.id), { status: 404, code: 'MCP_SESSION_NOT_FOUND' }, 'past the user limit, her least recently used closed');
    t.equal((await use(key2, second[1]!.id)).status, 200, 'her newest works');

    const other = await open(otherKey);
    t.equal(other.status, 200, 'another member opens a session');
    const admin = await open(adminKey);
    t.equal(admin.status, 200, 'in a full pool, an admin still opens a session (not 503)');
    t.equal((await use(adminKey, admin.id)).status, 200, 'and uses it');
    t.equal((await use(otherKey, other.id)).status, 200, 'the member holding one session keeps it');
    const ownerAlive = [first[2]!, ...second].map((s, i) => (i === 0 ? use(key1, s.id) : use(key2, s.id)));
    t.same((await Promise.all(ownerAlive)).map((r) => r.status).sort(), [200, 200, 404], 'the room came from the largest holder');
  });
});
