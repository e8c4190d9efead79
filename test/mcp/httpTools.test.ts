import t from 'tap';
import { eachBackend } from '../auth/authHarness.ts';
import type { FastifyRequest } from 'fastify';
import type { AccessGrants, ActionsRegistry, AuthSession, DataEngine, MetadataRegistry, SearchIndex } from '../../capabilities/index.ts';
import { silentLogger } from '../../kernel/logger.ts';
import { createToolbox } from '../../plugins/mcp/createToolbox.ts';
import { createObjectView } from '../../plugins/mcp/objectView.ts';
import { sendAs } from '../access/accessWorld.ts';
import { answerOf, buildMcpWorld } from './mcpWorld.ts';

/**
 * The SDK's own client over Streamable HTTP: initialize, tools/list, tools/call of each tool,
 * resources; every call runs as the key's user through the data engine.
 */
t.test('the SDK client lists and calls every tool over Streamable HTTP', async (t) => {
  await eachBackend(t, ['mcphttp'], async (t, site) => {
    const w = await buildMcpWorld(t, site);
    const admin = await w.mintKey('admin');
    const client = await w.connect({ authorization: `Bearer ${admin.key}` });
    t.equal(client.getServerVersion()?.name, 'osr-runtime', 'initialize answered the server info');

    const tools = (await client.listTools()).tools.map((tool) => tool.name).sort();
    t.same(tools, ['action_add_note', 'create_record', 'delete_record', 'describe_object', 'get_record', 'list_objects', 'query_records', 'search', 'update_record'], 'tools/list: the data tools, search and the declared action');
    const addNote = (await client.listTools()).tools.find((tool) => tool.name === 'action_add_note')!;
    t.same(addNote.inputSchema.required, ['title'], 'the action tool carries its input schema');

    const objects = answerOf(await client.callTool({ name: 'list_objects', arguments: {} }));
    t.ok(objects.body.objects.some((o: { name: string }) => o.name === 'note'), 'list_objects names note');
    const described = answerOf(await client.callTool({ name: 'describe_object', arguments: { object: 'note' } }));
    t.same(described.body.fields.map((f: { name: string }) => f.name), ['title', 'stage'], 'describe_object lists the fields');

    const created = answerOf(await client.callTool({ name: 'create_record', arguments: { object: 'note', values: { title: 'alpha plan', stage: 'draft' } } }));
    t.equal(created.isError, false, 'create_record succeeded');
    t.equal(created.body.title, 'alpha plan', 'create_record answered the record');
    const id = String(created.body.id);

    const got = answerOf(await client.callTool({ name: 'get_record', arguments: { object: 'note', id } }));
    t.equal(got.body.title, 'alpha plan', 'get_record reads it back');

    const updated = answerOf(await client.callTool({ name: 'update_record', arguments: { object: 'note', id, values: { stage: 'final' }, expectedVersion: created.body.version } }));
    t.equal(updated.body.stage, 'final', 'update_record with the current version');
    const stale = answerOf(await client.callTool({ name: 'update_record', arguments: { object: 'note', id, values: { stage: 'draft' }, expectedVersion: created.body.version } }));
    t.equal(stale.isError, true, 'a stale expectedVersion is a tool error');
    t.equal(stale.body.error.code, 'CONCURRENT_UPDATE', 'carrying the coded error');

    for (let i = 0; i < 3; i++) await client.callTool({ name: 'create_record', arguments: { object: 'note', values: { title: `bulk ${i}` } } });
    const page1 = answerOf(await client.callTool({ name: 'query_records', arguments: { object: 'note', where: { title: { $startsWith: 'bulk' } }, orderBy: [{ field: 'title', order: 'asc' }], fields: ['title'], limit: 2 } }));
    t.equal(page1.isError, false, `query_records succeeded: ${JSON.stringify(page1.body).slice(0, 300)}`);
    t.same(page1.body.items.map((r: { title: string }) => r.title), ['bulk 0', 'bulk 1'], 'query_records: where, orderBy, fields, limit');
    t.type(page1.body.nextCursor, 'string', 'a further page has a cursor');
    const page2 = answerOf(await client.callTool({ name: 'query_records', arguments: { object: 'note', where: { title: { $startsWith: 'bulk' } }, orderBy: [{ field: 'title', order: 'asc' }], fields: ['title'], limit: 2, cursor: page1.body.nextCursor } }));
    t.same(page2.body.items.map((r: { title: string }) => r.title), ['bulk 2'], 'the cursor reads the next page');
    const capped = answerOf(await client.callTool({ name: 'query_records', arguments: { object: 'note', limit: 101 } }));
    t.equal(capped.body.error.code, 'VALIDATION_ERROR', 'a limit over the tool cap is refused');
    t.match(capped.body.error.details.errors[0].path, 'limit', 'naming the argument');
    const badWhere = answerOf(await client.callTool({ name: 'query_records', arguments: { object: 'note', where: { nope: 1 } } }));
    t.equal(badWhere.isError, true, 'an unknown field in where is a tool error');
    t.equal(badWhere.body.error.code, 'VALIDATION_ERROR', 'validated like POST /data/:object/query');

    const found = answerOf(await client.callTool({ name: 'search', arguments: { q: 'alpha', objects: ['note'] } }));
    t.same(found.body.items.map((h: { record: { title: string } }) => h.record.title), ['alpha plan'], 'search finds the record');

    const ran = answerOf(await client.callTool({ name: 'action_add_note', arguments: { title: 'from action' } }));
    t.equal(ran.body.result.title, '[agent] from action', 'action_add_note ran the declared action');
    const badAction = answerOf(await client.callTool({ name: 'action_add_note', arguments: {} }));
    t.equal(badAction.body.error.code, 'VALIDATION_ERROR', 'an action input is validated by its schema');

    const deleted = answerOf(await client.callTool({ name: 'delete_record', arguments: { object: 'note', id } }));
    t.same(deleted.body, { deleted: true, object: 'note', id }, 'delete_record');
    const gone = answerOf(await client.callTool({ name: 'get_record', arguments: { object: 'note', id } }));
    t.equal(gone.body.error.code, 'NOT_FOUND', 'the deleted record is not found');

    const unknown = answerOf(await client.callTool({ name: 'drop_tables', arguments: {} }));
    t.equal(unknown.body.error.code, 'NOT_FOUND', 'an unknown tool is a coded tool error');

    const resources = (await client.listResources()).resources.map((r) => r.uri);
    t.ok(resources.includes('osr://objects/note'), 'resources: object schemas');
    const schema = await client.readResource({ uri: 'osr://objects/note' });
    t.equal(JSON.parse(String((schema.contents[0] as { text: string }).text)).name, 'note', 'reading a schema resource');
    t.same(await client.ping(), {}, 'ping');

    const openapi = await sendAs(w.rt, w.users.admin.token, 'GET', '/api/v1/openapi.json');
    t.equal(openapi.status, 200, 'the API description builds with the MCP routes');
    t.same(Object.keys(openapi.body.paths['/mcp'] ?? {}).sort(), ['delete', 'get', 'post'], 'and documents POST, GET and DELETE /api/v1/mcp');

    await t.test('a credential limited to scopes holds only those tools (fails closed)', async (t) => {
      const kernel = w.rt.runtime.kernel;
      const service = <T>(token: string) => kernel.service<T>(token)!;
      const metadata = service<MetadataRegistry>('metadata.registry');
      const grants = service<AccessGrants>('access.grants');
      const objects = createObjectView(metadata, grants);
      const toolbox = createToolbox({
        engine: service<DataEngine>('data.engine'), metadata, objects, search: service<SearchIndex>('search.index'),
        actions: service<ActionsRegistry>('actions.registry'), log: silentLogger(), maxResultChars: 200_000,
      });
      const request = { headers: { authorization: `Bearer ${admin.key}` }, environmentId: site.ids[0], method: 'POST', protocol: 'http', host: 'localhost' } as unknown as FastifyRequest;
      const base = await grants.resolve((await service<AuthSession>('auth.session').authenticate(request))!);
      const as = (scopes: string[]) => ({ environmentId: site.ids[0]!, principal: { ...base, scopes } });

      const reader = as(['data:read']);
      t.same(toolbox.list(reader.principal).map((tool) => tool.name).sort(), ['describe_object', 'get_record', 'list_objects', 'query_records', 'search'], 'data:read lists the read tools only');
      const read = answerOf(await toolbox.call('query_records', { object: 'note' }, reader));
      t.equal(read.isError, false, 'data:read may query');
      const create = answerOf(await toolbox.call('create_record', { object: 'note', values: { title: 'nope' } }, reader));
      t.equal(create.isError, true, 'data:read cannot create: a tool error');
      t.equal(create.body.error.code, 'SCOPE_DENIED', 'carrying the shared SCOPE_DENIED');
      t.equal(create.body.error.details.scope, 'data:write', 'the error names the missing scope');
      t.equal(create.body.error.details.operation, 'the MCP tool create_record', 'and the tool');
      t.same(create.body.error.details.granted, ['data:read'], 'and what the credential holds');
      t.match(create.body.error.message, 'data:write', 'in its message too');
      const action = answerOf(await toolbox.call('action_add_note', { title: 'nope' }, reader));
      t.equal(action.body.error.code, 'SCOPE_DENIED', 'an action outside the scopes: SCOPE_DENIED');
      t.equal(action.body.error.details.scope, 'actions:execute', 'an action needs actions:execute');
      const after = answerOf(await toolbox.call('query_records', { object: 'note', where: { title: 'nope' } }, reader));
      t.same(after.body.items, [], 'nothing was written');

      const writer = as(['data:write']);
      const list = answerOf(await toolbox.call('list_objects', {}, writer));
      t.equal(list.body.error.code, 'SCOPE_DENIED', 'data:write alone cannot read');
      t.equal(list.body.error.details.scope, 'data:read', 'naming data:read');
      const none = as([]);
      t.same(toolbox.list(none.principal), [], 'no scope: no tool');
      t.equal(answerOf(await toolbox.call('get_record', { object: 'note', id: 'x' }, none)).body.error.code, 'SCOPE_DENIED', 'no scope: every call refused');
      const runner = as(['actions:execute']);
      t.same(toolbox.list(runner.principal).map((tool) => tool.name), ['action_add_note'], 'actions:execute lists the actions');
      const ran = answerOf(await toolbox.call('action_add_note', { title: 'scoped' }, runner)).body.result;
      t.same(Object.keys(ran).sort(), ['id', 'version'], 'and runs them, answered the id and version of the record (no data:read)');

      // Over HTTP with a key minted with a scope ceiling: the same shared code, as a tool result for tools
      // and as a protocol error (its data carrying the coded error) for resources.
      const readKey = await w.mintKey('admin', { name: 'mcp-read-only', scopes: ['data:read'] });
      const readClient = await w.connect({ authorization: `Bearer ${readKey.key}` });
      const overHttp = answerOf(await readClient.callTool({ name: 'create_record', arguments: { object: 'note', values: { title: 'over http' } } }));
      t.equal(overHttp.isError, true, 'over HTTP: a tool error result');
      t.equal(overHttp.body.error.code, 'SCOPE_DENIED', 'over HTTP: SCOPE_DENIED');
      t.equal(overHttp.body.error.details.operation, 'the MCP tool create_record', 'over HTTP: naming the tool');
      const writeKey = await w.mintKey('admin', { name: 'mcp-write-only', scopes: ['data:write'] });
      const writeClient = await w.connect({ authorization: `Bearer ${writeKey.key}` });
      t.same((await writeClient.listResources()).resources, [], 'data:write alone lists no resource');
      const resourceError = await writeClient.readResource({ uri: 'osr://objects/note' }).then(() => null, (error: { data?: { error?: { code?: string; details?: { operation?: string } } } }) => error);
      t.equal(resourceError?.data?.error?.code, 'SCOPE_DENIED', 'reading a resource without data:read: SCOPE_DENIED in the protocol error');
      t.equal(resourceError?.data?.error?.details?.operation, 'MCP resources/read', 'naming the operation');
      const written = answerOf(await writeClient.callTool({ name: 'create_record', arguments: { object: 'note', values: { title: 'write-only', stage: 'draft' } } }));
      t.same(written.body, { id: written.body.id, version: 1 }, 'create_record without data:read: the id and version, nothing more');
      const patched = answerOf(await writeClient.callTool({ name: 'update_record', arguments: { object: 'note', id: written.body.id, values: {} } }));
      t.same(patched.body, { id: written.body.id, version: 2 }, 'update_record (an empty patch): the id and version, not the stored record');

      const small = createToolbox({
        engine: service<DataEngine>('data.engine'), metadata, objects, search: undefined, actions: undefined, log: silentLogger(), maxResultChars: 1_000,
      });
      const big = answerOf(await small.call('list_objects', {}, { environmentId: site.ids[0]!, principal: base }));
      t.equal(big.body.error.code, 'MCP_RESULT_TOO_LARGE', 'an answer over maxResultChars is refused');
      t.match(big.body.error.message, 'fewer fields or a smaller limit', 'saying what to ask for instead');
      t.notOk(small.list(base).some((tool) => tool.name === 'search'), 'without the search plugin there is no search tool');
    });
  });
});
