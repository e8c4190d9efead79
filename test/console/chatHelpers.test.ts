/**
 * The chat's pure helpers: the server-sent events of a turn read piece by piece as the network
 * hands them over, the stored messages as the chat shows them, and tool calls in words.
 */
import t from 'tap';
import { logItems, toolText, type ChatMessage } from '../../plugins/console/app/chat/chatModel.ts';
import { sseEvents } from '../../plugins/console/app/chat/sseEvents.ts';

t.test('events are read across pieces, whatever their cut', async (t) => {
  const body = 'event: delta\ndata: {"content":"Hel"}\n\nevent: tool\ndata: {"name":"query_data","rows":2}\n\n: a comment\n\nevent: done\ndata: {"pendingActions":[]}\n\n';
  const whole = sseEvents();
  const all = [...whole.push(body), ...whole.end()];
  t.same(all, [
    { event: 'delta', data: { content: 'Hel' } },
    { event: 'tool', data: { name: 'query_data', rows: 2 } },
    { event: 'done', data: { pendingActions: [] } },
  ], 'three events, the comment skipped');
  for (let size = 1; size <= 7; size++) {
    const parser = sseEvents();
    const got = [];
    for (let i = 0; i < body.length; i += size) got.push(...parser.push(body.slice(i, i + size)));
    got.push(...parser.end());
    t.same(got, all, `the same events from pieces of ${size} characters`);
  }
  const crlf = sseEvents();
  t.same([...crlf.push('event: delta\r'), ...crlf.push('\ndata: {"content":"x"}\r\n\r'), ...crlf.push('\n')], [{ event: 'delta', data: { content: 'x' } }], 'CRLF lines, even cut between CR and LF');
  const partial = sseEvents();
  t.same(partial.push('event: delta\ndata: {"content":"x"}'), [], 'an event is told only once complete');
  t.same(partial.end(), [{ event: 'delta', data: { content: 'x' } }], 'or when the body ends');
  const bad = sseEvents();
  t.same(bad.push('event: delta\ndata: not json\n\n'), [{ event: 'delta', data: null }], 'data that is not JSON is null');
});

t.test('stored messages as the chat shows them', async (t) => {
  const m = (id: string, role: string, content: string | null, extra: Partial<ChatMessage> = {}): ChatMessage => ({ id, role, content, createdAt: '2026-01-01T00:00:00Z', ...extra });
  const tool = { callId: 'c1', name: 'query_data', object: 'project', rows: 3 };
  const items = logItems([
    m('1', 'user', 'How many?'),
    m('2', 'assistant', null),
    m('3', 'tool', '{"items":[{"name":"SECRET"}]}', { toolCallId: 'c1', tool }),
    m('4', 'assistant', 'Three.'),
    m('5', 'system', 'never shown'),
  ]);
  t.same(items, [
    { kind: 'user', key: '1', text: 'How many?' },
    { kind: 'tool', key: '3', tool },
    { kind: 'assistant', key: '4', text: 'Three.' },
  ], 'text of the user and the model, tool calls by their summary; an empty assistant message and other roles left out');
  t.notMatch(JSON.stringify(items), /SECRET/, "a tool message's rows are never shown");
});

t.test('tool calls in words', async (t) => {
  const labels = (object: string) => (object === 'project' ? { label: 'Project', plural: 'Projects' } : { label: object, plural: object });
  const base = { callId: 'c', object: 'project' };
  t.equal(toolText({ ...base, name: 'query_data', rows: 3 }, labels), 'Queried Projects: 3 rows');
  t.equal(toolText({ ...base, name: 'query_data', rows: 1, more: true }, labels), 'Queried Projects: 1 row (more matched)');
  t.equal(toolText({ ...base, name: 'validate_expression', valid: false }, labels), 'Checked an expression on Projects: not valid');
  t.equal(toolText({ ...base, name: 'create_record', kind: 'create', pendingActionId: 'p' }, labels), 'Proposed: Create Project');
  t.equal(toolText({ ...base, name: 'delete_record', kind: 'delete', pendingActionId: 'p', recordId: 'r' }, labels), 'Proposed: Delete Project');
  t.equal(toolText({ ...base, name: 'action_close', kind: 'action', pendingActionId: 'p' }, labels), 'Proposed: run close on a Project');
  t.equal(toolText({ ...base, name: 'query_data', error: { code: 'NOT_FOUND', message: 'No such object.' } }, labels), 'query_data on Projects was refused: No such object.');
  t.equal(toolText({ callId: 'c', name: '', object: null }, labels), 'Called a tool');
});
