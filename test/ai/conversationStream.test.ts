/**
 * A conversation turn over server-sent events (POST /ai/conversations/:id/messages/stream), on
 * SQLite and PostgreSQL: the model's text arrives while the turn runs, each tool call is told with
 * its object and row count (never its rows), a write with its pending action; the turn is stored
 * as the JSON route stores it and the stored tool messages carry the same summaries. Refusals
 * answer before the stream starts; a failed turn ends with an `error` event and stores nothing; a
 * client that goes away aborts the turn.
 */
import { request } from 'node:http';
import t from 'tap';
import { databaseCases } from '../harness/databases.ts';
import { bootAi, type AiRuntime, type Person } from './aiFixture.ts';

type Event = { event: string; data: any }; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The events of a text/event-stream body, in order. */
function events(text: string): Event[] {
  return text.split('\n\n').filter((b) => b.trim() !== '').map((block) => {
    const event = /^event: (.*)$/m.exec(block)?.[1] ?? '';
    const data = /^data: (.*)$/m.exec(block)?.[1] ?? 'null';
    return { event, data: JSON.parse(data) };
  });
}

/** A streamed turn read as it arrives: `next(event)` waits for that event; `rest()` waits for the end. */
function openStream(s: AiRuntime, conversation: string, who: Person, content: string) {
  const url = new URL(`${s.rt.runtime.http().url()!}/api/v1/ai/conversations/${conversation}/messages/stream`);
  const body = JSON.stringify({ content });
  let text = '';
  let ended = false;
  const listeners: Array<() => void> = [];
  const changed = () => { for (const l of listeners.splice(0)) l(); };
  let status = 0;
  let contentType = '';
  const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: `Bearer ${who.token}` } }, (res) => {
    status = res.statusCode ?? 0;
    contentType = String(res.headers['content-type'] ?? '');
    res.on('data', (d: Buffer) => { text += String(d); changed(); });
    res.on('end', () => { ended = true; changed(); });
  });
  req.on('error', () => { ended = true; changed(); });
  req.end(body);
  const until = (ready: () => boolean, what: string) => new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}; got: ${text}`)), 15_000);
    const check = () => { if (ready()) { clearTimeout(timer); resolve(); } else listeners.push(check); };
    check();
  });
  return {
    status: () => status,
    contentType: () => contentType,
    events: () => events(text.slice(0, text.lastIndexOf('\n\n') + 2)),
    ended: () => ended,
    async next(event: string) {
      await until(() => events(text.slice(0, text.lastIndexOf('\n\n') + 2)).some((e) => e.event === event), `a '${event}' event`);
    },
    async rest() {
      await until(() => ended, 'the end of the stream');
      return events(text);
    },
    close: () => req.destroy(),
  };
}

async function conversation(s: AiRuntime, who: Person): Promise<string> {
  const res = await s.send('POST', '/api/v1/ai/conversations', who, { agent: 'helper', title: 'Notes' });
  if (res.status !== 201) throw new Error(`conversation: ${res.text}`);
  return res.body.id as string;
}

const listen = { config: { server: { listen: true, port: 0, host: '127.0.0.1' } } } as const;

for (const driver of await databaseCases()) {
  await t.test(`${driver.name}: a streamed turn: text as it arrives, tool calls with their object and rows, the proposal, then the stored turn`, { skip: driver.skip }, async (t) => {
    const s = await bootAi(t, driver.name, listen);
    for (const [who, title] of [[s.ada, 'ADA-1'], [s.ada, 'ADA-2'], [s.bob, 'BOB-1']] as const) {
      const made = await s.send('POST', '/api/v1/data/note', who, { title });
      t.equal(made.status, 201, `${title} created`);
    }
    const id = await conversation(s, s.ada);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => { release = resolve; });
    s.fake.queue.push(
      { toolCalls: [{ name: 'query_data', args: { object: 'note' } }] },
      { toolCalls: [{ name: 'create_record', args: { object: 'note', values: { title: 'NEW-1' } } }] },
      { deltas: ['You have two notes; ', 'I proposed ', 'NEW-1.'], hold: { after: 1, until: gate } },
    );
    const stream = openStream(s, id, s.ada, 'Count my notes and add one');
    await stream.next('delta');
    t.equal(stream.status(), 200);
    t.equal(stream.contentType(), 'text/event-stream; charset=utf-8');
    const early = stream.events();
    t.same(early.map((e) => e.event), ['tool', 'tool', 'delta'], 'the tool calls, then the first piece of text, while the model still writes');
    t.same(early[2]!.data, { content: 'You have two notes; ' });
    t.equal(stream.ended(), false, 'the turn has not ended');
    t.same((await s.send('GET', `/api/v1/ai/conversations/${id}`, s.ada)).body.messages, [], 'nothing is stored before the turn ends');

    const [query, proposal] = [early[0]!.data, early[1]!.data];
    t.match(query.callId, /^call_\d+$/, 'each tool event names its call');
    t.same(query, { callId: query.callId, name: 'query_data', object: 'note', rows: 2 }, "the query: its object and the rows the model received (ada's two notes, not bob's)");
    t.notMatch(JSON.stringify(early), /ADA-1|ADA-2|BOB-1/, 'no row is in the events');
    t.match(proposal, { name: 'create_record', object: 'note', kind: 'create', pendingActionId: /\S/ }, 'the write: its pending action');
    const action = await s.send('GET', `/api/v1/ai/pending-actions/${proposal.pendingActionId}`, s.approver);
    t.equal(action.body.status, 'pending', 'the pending action the event names is in the queue');

    release();
    const all = await stream.rest();
    t.same(all.map((e) => e.event), ['tool', 'tool', 'delta', 'delta', 'delta', 'done'], 'then the rest of the text and the end');
    t.equal(all.filter((e) => e.event === 'delta').map((e) => e.data.content).join(''), 'You have two notes; I proposed NEW-1.');
    const done = all.at(-1)!.data;
    t.same(done.messages.map((m: { role: string }) => m.role), ['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant'], 'done: the turn as the JSON route answers it');
    t.same(done.pendingActions, [proposal.pendingActionId]);
    t.equal(done.stepLimitReached, false);
    t.same(done.messages.filter((m: { role: string }) => m.role === 'tool').map((m: { tool: unknown }) => m.tool), [query, proposal], 'its tool messages carry the summaries the stream sent');

    const stored = await s.send('GET', `/api/v1/ai/conversations/${id}`, s.ada);
    t.same(stored.body.messages.map((m: { id: string }) => m.id), done.messages.map((m: { id: string }) => m.id), 'the turn is stored');
    t.same(stored.body.messages.filter((m: { role: string }) => m.role === 'tool').map((m: { tool: unknown }) => m.tool), [query, proposal], 'reopened, the conversation tells the same tool calls');
    t.equal(stored.body.messages.at(-1).content, 'You have two notes; I proposed NEW-1.');

    // The JSON route's tool messages carry their summaries too, errors included.
    s.fake.queue.push({ toolCalls: [{ name: 'query_data', args: { object: 'no_such_object' } }] }, { content: 'Sorry.' });
    const json = await s.send('POST', `/api/v1/ai/conversations/${id}/messages`, s.ada, { content: 'And the others?' });
    t.equal(json.status, 200, 'the JSON route answers');
    t.match(json.body.messages[2].tool, { name: 'query_data', object: 'no_such_object', error: { code: /\S/, message: /\S/ } }, 'a refused query: its error');
    t.notOk('rows' in json.body.messages[2].tool, 'and no rows');
  });

  await t.test(`${driver.name}: refusals answer before the stream; a failed turn ends with an error event and stores nothing`, { skip: driver.skip }, async (t) => {
    const s = await bootAi(t, driver.name);
    const id = await conversation(s, s.ada);
    const url = `/api/v1/ai/conversations/${id}/messages/stream`;
    for (const who of [s.bob, s.admin]) {
      const other = await s.send('POST', url, who, { content: 'x' });
      t.same([other.status, other.body?.error?.code], [404, 'NOT_FOUND'], `${who.email}: another user's conversation is not found`);
    }
    const plain = await s.send('POST', url, s.plain, { content: 'x' });
    t.same([plain.status, plain.body?.error?.details?.permission], [403, 'ai:chat'], 'without ai:chat: 403');
    t.equal((await s.send('POST', url, null, { content: 'x' })).status, 401, 'anonymous: 401');
    t.equal((await s.send('POST', url, s.ada, {})).status, 400, 'no content: 400');
    t.equal(s.fake.requests.filter((r) => r.path === '/v1/chat/completions').length, 0, 'the provider was never asked');

    s.fake.queue.push({ toolCalls: [{ name: 'create_record', args: { object: 'note', values: { title: 'LOST' } } }] }, { status: 500 });
    const failed = await s.send('POST', url, s.ada, { content: 'go' });
    t.equal(failed.status, 200, 'the stream had started');
    const got = events(failed.text);
    t.same(got.map((e) => e.event), ['tool', 'error'], 'the tool call, then the error');
    t.equal(got[1]!.data.error.code, 'AI_PROVIDER_ERROR');
    t.same((await s.send('GET', `/api/v1/ai/conversations/${id}`, s.ada)).body.messages, [], 'no message stored');
    const queued = await s.send('GET', `/api/v1/ai/pending-actions/${got[0]!.data.pendingActionId}`, s.approver);
    t.equal(queued.status, 404, 'the proposal of the failed turn is withdrawn');
  });
}

await t.test('a client that goes away aborts the turn: the provider request is closed, nothing is stored', async (t) => {
  const s = await bootAi(t, 'sqlite', listen);
  const id = await conversation(s, s.ada);
  s.fake.queue.push({ deltas: ['first'], thenHang: true });
  const stream = openStream(s, id, s.ada, 'hi');
  await stream.next('delta');
  stream.close();
  t.equal(await s.fake.waitClosedEarly(5000), true, 'the provider saw its request closed');
  await new Promise((r) => setTimeout(r, 300));
  t.same((await s.send('GET', `/api/v1/ai/conversations/${id}`, s.ada)).body.messages, [], 'no message stored');
});
