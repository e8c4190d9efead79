/** The pure parts of the ai plugin: providers from config and environment, the per-user limits, and the summaries of tool calls. */
import t from 'tap';
import { isCodedError } from '../../kernel/errors.ts';
import { resolveProviders } from '../../plugins/ai/resolveProviders.ts';
import { summarizeTool } from '../../plugins/ai/toolSummary.ts';
import { createUsageLimiter } from '../../plugins/ai/usageLimiter.ts';

t.test('providers from config and OPENAI_API_KEY', async (t) => {
  t.same(resolveProviders({ providers: [] }, {}), [], 'nothing configured: no provider');
  t.same(resolveProviders({ providers: [] }, { OPENAI_API_KEY: 'sk-1' }), [{ id: 'openai', baseURL: 'https://api.openai.com/v1', apiKey: 'sk-1', models: null }]);
  t.same(resolveProviders({ providers: [] }, { OPENAI_API_KEY: 'sk-1', OPENAI_BASE_URL: 'http://127.0.0.1:8080/v1/' })[0]!.baseURL, 'http://127.0.0.1:8080/v1');
  const both = resolveProviders({ providers: [{ id: 'local', baseURL: 'http://h/v1', models: ['a'] }, { id: 'openai', baseURL: 'http://proxy/v1', apiKeyEnv: 'PROXY_KEY' }] }, { OPENAI_API_KEY: 'sk-1', PROXY_KEY: 'pk' });
  t.same(both.map((p) => [p.id, p.baseURL, p.apiKey, p.models]), [['local', 'http://h/v1', null, ['a']], ['openai', 'http://proxy/v1', 'pk', null]], 'a configured openai wins over OPENAI_API_KEY');

  let error: unknown;
  try {
    resolveProviders({ providers: [{ id: 'x', baseURL: 'http://h/v1', apiKeyEnv: 'X_KEY' }] }, { OTHER: 'sk-secret-value' });
  } catch (e) {
    error = e;
  }
  t.ok(isCodedError(error));
  t.equal((error as { code: string }).code, 'AI_NOT_CONFIGURED');
  t.match((error as Error).message, /X_KEY, which is not set/, 'names the variable');
  t.throws(() => resolveProviders({ providers: [{ id: 'x', baseURL: 'http://h/v1' }, { id: 'x', baseURL: 'http://g/v1' }] }, {}), { code: 'AI_NOT_CONFIGURED' }, 'ids are unique');
});

t.test('the limiter counts requests per minute and tokens per day, per user', async (t) => {
  let now = Date.UTC(2026, 0, 1, 10, 0, 30);
  const limiter = createUsageLimiter({ requestsPerMinute: 2, tokensPerDay: 100 }, () => now);
  limiter.admit('a');
  limiter.admit('a');
  t.throws(() => limiter.admit('a'), { code: 'RATE_LIMITED', details: { retryAfter: 30, limit: 'ai.requestsPerMinute' } });
  limiter.admit('b');
  now += 30_000;
  limiter.admit('a');
  limiter.spend('a', 100);
  t.throws(() => limiter.admit('a'), { code: 'RATE_LIMITED', details: { limit: 'ai.tokensPerDay' } });
  now = Date.UTC(2026, 0, 2, 0, 0, 1);
  limiter.admit('a');
  t.pass('a new day and minute start afresh');
});

t.test('a tool call is summarized by its object, rows, validity or pending action, never its rows', async (t) => {
  const call = (name: string, args: unknown) => ({ id: 'c1', name, arguments: JSON.stringify(args) });
  const rows = { items: [{ id: '1', title: 'SECRET-ROW' }, { id: '2', title: 'x' }], more: true };
  const query = summarizeTool('c1', call('query_data', { object: 'note', where: { title: 'x' } }), JSON.stringify(rows));
  t.same(query, { callId: 'c1', name: 'query_data', object: 'note', rows: 2, more: true }, 'the rows counted, more told');
  t.notMatch(JSON.stringify(query), /SECRET-ROW/, 'no row in it');
  t.same(summarizeTool('c1', call('validate_expression', { object: 'note', expression: '1' }), { valid: false, errors: ['x'] }), { callId: 'c1', name: 'validate_expression', object: 'note', valid: false });
  t.same(summarizeTool('c1', call('update_record', { object: 'note', id: 'r1', values: {} }), { pendingActionId: 'p1', status: 'pending' }),
    { callId: 'c1', name: 'update_record', object: 'note', pendingActionId: 'p1', kind: 'update', recordId: 'r1' }, 'an update: its record and pending action');
  t.same(summarizeTool('c1', call('create_record', { object: 'note', id: 'ignored', values: {} }), { pendingActionId: 'p2' }),
    { callId: 'c1', name: 'create_record', object: 'note', pendingActionId: 'p2', kind: 'create' }, 'a create names no record');
  t.same(summarizeTool('c1', call('action_close_note', { recordId: 'r2' }), { pendingActionId: 'p3' }, (name) => (name === 'close_note' ? 'note' : null)),
    { callId: 'c1', name: 'action_close_note', object: 'note', pendingActionId: 'p3', kind: 'action', recordId: 'r2' }, "an action: its action's object");
  t.same(summarizeTool('c1', call('query_data', { object: 'note' }), { error: { code: 'NOT_FOUND', message: 'gone' }, items: [1] }),
    { callId: 'c1', name: 'query_data', object: 'note', error: { code: 'NOT_FOUND', message: 'gone' } }, 'an error, and nothing else');
  t.same(summarizeTool('c9', undefined, 'not json'), { callId: 'c9', name: '', object: null }, 'a call the history no longer holds, an unreadable answer');
  t.same(summarizeTool('c1', { id: 'c1', name: 'query_data', arguments: '{bad' }, { items: [] }), { callId: 'c1', name: 'query_data', object: null, rows: 0 }, 'arguments that are not JSON');
});
