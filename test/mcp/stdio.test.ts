import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import t from 'tap';
import { eachBackend, SECRET, type Site } from '../auth/authHarness.ts';
import { sendAs } from '../access/accessWorld.ts';
import { POSTGRES_URL } from '../harness/databases.ts';
import { answerOf, buildMcpWorld } from './mcpWorld.ts';

const ROOT = resolve(new URL('../..', import.meta.url).pathname);
const OSR = join(ROOT, 'bin/osr.js');
const run = promisify(execFile);

/** A config file for a second process over the same databases as the test's runtime. */
function configFor(site: Site): string {
  const file = join(site.dataDir, 'stdio.config.json');
  writeFileSync(file, JSON.stringify({
    apps: [join(ROOT, 'test/access/fixtures/app'), join(ROOT, 'test/mcp/fixtures/app')],
    dataDir: site.dataDir,
    environments: site.ids.map((id) => ({ id })),
    auth: { secret: SECRET },
    plugins: { email: { enabled: false }, lifecycle: { enabled: false } },
    ...(site.backend === 'postgres' ? { database: { url: POSTGRES_URL } } : {}),
  }));
  return file;
}

const baseEnv = (extra: Record<string, string>): Record<string, string> => ({
  PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', OSR_FROM_SOURCE: '1', LOG_LEVEL: 'warn', ...extra,
});

/** The command run to its end: exit code, stdout and stderr. */
async function osr(args: string[], env: Record<string, string>) {
  return run('node', [OSR, ...args], { cwd: ROOT, env, timeout: 120_000 }).then(
    (ok) => ({ code: 0, stdout: ok.stdout, stderr: ok.stderr }),
    (error: { code?: number; stdout?: string; stderr?: string }) => ({ code: error.code ?? -1, stdout: error.stdout ?? '', stderr: error.stderr ?? '' }),
  );
}

t.test('osr mcp --stdio serves the tools as the key\'s user, and fails closed', async (t) => {
  await eachBackend(t, ['mcpstdio'], async (t, site) => {
    const w = await buildMcpWorld(t, site);
    const config = configFor(site);
    const minted = await w.mintKey('owner');

    const off = await osr(['mcp', '--stdio', '--config', config], baseEnv({ OS_MCP_STDIO_API_KEY: minted.key }));
    t.not(off.code, 0, 'without OS_MCP_STDIO_ENABLED: exits non-zero');
    t.match(off.stderr, '[MCP_STDIO_DISABLED]', 'with the coded message');
    t.equal(off.stdout, '', 'and serves nothing');
    const bogus = await osr(['mcp', '--stdio', '--config', config], baseEnv({ OS_MCP_STDIO_ENABLED: 'true', OS_MCP_STDIO_API_KEY: 'osk_not_a_real_key' }));
    t.not(bogus.code, 0, 'an invalid key: exits non-zero');
    t.match(bogus.stderr, '[MCP_STDIO_KEY_INVALID]', 'with the coded message');
    t.equal(bogus.stdout, '', 'and serves nothing');

    const transport = new StdioClientTransport({
      command: 'node', args: [OSR, 'mcp', '--stdio', '--config', config], cwd: ROOT, stderr: 'pipe',
      env: baseEnv({ OS_MCP_STDIO_ENABLED: 'true', OS_MCP_STDIO_API_KEY: minted.key }),
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new Client({ name: 'osr-stdio-test', version: '1.0.0' });
    t.teardown(() => client.close());
    await client.connect(transport);
    t.equal(client.getServerVersion()?.name, 'osr-runtime', `initialize over stdio ${stderr.slice(0, 500)}`);
    const tools = (await client.listTools()).tools.map((tool) => tool.name).sort();
    t.same(tools, ['action_add_note', 'create_record', 'delete_record', 'describe_object', 'get_record', 'list_objects', 'query_records', 'search', 'update_record'], 'tools/list over stdio');

    const call = async (name: string, args: Record<string, unknown>) => answerOf(await client.callTool({ name, arguments: args }));
    t.ok((await call('list_objects', {})).body.objects.some((o: { name: string }) => o.name === 'doc'), 'list_objects');
    t.notOk((await call('describe_object', { object: 'doc' })).body.fields.some((f: { name: string }) => f.name === 'secret'), 'describe_object: the member does not see the hidden field');
    const docs = await call('query_records', { object: 'doc' });
    t.same(docs.body.items.map((r: { title: string }) => r.title), ['DOC-A'], 'query_records: only the member\'s rows');
    t.notOk(JSON.stringify(docs.body).includes('SECRET'), 'and no hidden value');
    const created = await call('create_record', { object: 'note', values: { title: 'stdio note' } });
    t.equal(created.body.created_by, w.users.owner.id, 'create_record runs as the key\'s user');
    const id = String(created.body.id);
    t.equal((await call('get_record', { object: 'note', id })).body.title, 'stdio note', 'get_record');
    t.equal((await call('update_record', { object: 'note', id, values: { stage: 'final' }, expectedVersion: 1 })).body.stage, 'final', 'update_record');
    t.same((await call('search', { q: 'stdio', objects: ['note'] })).body.items.map((h: { id: string }) => h.id), [id], 'search');
    t.equal((await call('action_add_note', { title: 'via stdio' })).body.result.title, '[agent] via stdio', 'action_add_note');
    const denied = await call('delete_record', { object: 'note', id });
    t.equal(denied.isError, true, 'delete_record: the member baseline does not grant deletion');
    t.equal(denied.body.error.code, 'PERMISSION_DENIED', 'a coded tool error');

    const revoked = await sendAs(w.rt, w.users.owner.token, 'DELETE', `/api/v1/keys/${minted.id}`);
    t.equal(revoked.status, 204, 'the key is revoked through the HTTP runtime');
    const after = await call('list_objects', {});
    t.equal(after.isError, true, 'the next stdio call is refused');
    t.equal(after.body.error.code, 'UNAUTHENTICATED', 'as unauthenticated');
    await client.close();
  });
});
