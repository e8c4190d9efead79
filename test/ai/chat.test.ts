/** Models, chat, complete and streaming against a local OpenAI-compatible server, on SQLite and PostgreSQL. */
import { request } from 'node:http';
import t from 'tap';
import { databaseCases } from '../harness/databases.ts';
import { bootAi, PROVIDER_KEY } from './aiFixture.ts';

/** The events of a text/event-stream body, in order. */
function events(text: string): Array<{ event: string; data: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  return text.split('\n\n').filter((b) => b.trim() !== '').map((block) => {
    const event = /^event: (.*)$/m.exec(block)?.[1] ?? '';
    const data = /^data: (.*)$/m.exec(block)?.[1] ?? 'null';
    return { event, data: JSON.parse(data) };
  });
}

for (const driver of await databaseCases()) {
  await t.test(`${driver.name}: models, chat, complete and stream`, { skip: driver.skip }, async (t) => {
    const s = await bootAi(t, driver.name, {});
    const { ada, plain } = s;

    const models = await s.send('GET', '/api/v1/ai/models', ada);
    t.equal(models.status, 200, models.text);
    t.same(models.body, { items: [{ id: 'fake/m1', provider: 'fake' }, { id: 'fake/m2', provider: 'fake' }], errors: [] }, 'asked from the provider');
    t.equal(s.fake.requests[0]!.headers.authorization, `Bearer ${PROVIDER_KEY}`, 'the key goes to the provider');

    const denied = await s.send('POST', '/api/v1/ai/chat', plain, { messages: [{ role: 'user', content: 'hi' }] });
    t.equal(denied.status, 403);
    t.equal(denied.body.error.code, 'PERMISSION_DENIED');
    t.equal(denied.body.error.details.permission, 'ai:chat');
    t.equal((await s.send('POST', '/api/v1/ai/chat', null, { messages: [{ role: 'user', content: 'hi' }] })).status, 401);

    s.fake.queue.push({ content: 'Hello Ada', usage: { prompt_tokens: 11, completion_tokens: 3 } });
    const chat = await s.send('POST', '/api/v1/ai/chat', ada, { model: 'fake/m2', messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'hi' }], temperature: 0.2, maxTokens: 50 });
    t.equal(chat.status, 200, chat.text);
    t.same(chat.body, { model: 'fake/m2', message: { role: 'assistant', content: 'Hello Ada' }, usage: { promptTokens: 11, completionTokens: 3, totalTokens: 14 } });
    const sent = s.fake.requests.at(-1)!;
    t.equal(sent.path, '/v1/chat/completions');
    t.same(sent.body, { model: 'm2', messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'hi' }], temperature: 0.2, max_tokens: 50 }, 'the provider got the wire request');

    const dflt = await s.send('POST', '/api/v1/ai/chat', ada, { messages: [{ role: 'user', content: 'hi' }] });
    t.equal(dflt.body.model, 'fake/m1', 'defaultModel applies');
    t.equal(s.fake.requests.at(-1)!.body.model, 'm1');

    const unknown = await s.send('POST', '/api/v1/ai/chat', ada, { model: 'fake/nope', messages: [{ role: 'user', content: 'hi' }] });
    t.equal(unknown.status, 400);
    t.equal(unknown.body.error.code, 'AI_MODEL_UNKNOWN');
    t.same(unknown.body.error.details.models, ['fake/m1', 'fake/m2'], 'the known models are named');
    t.match(unknown.body.error.message, /fake\/m1, fake\/m2/);
    t.equal((await s.send('POST', '/api/v1/ai/chat', ada, { model: 'other/m1', messages: [{ role: 'user', content: 'x' }] })).body.error.code, 'AI_MODEL_UNKNOWN');
    t.equal((await s.send('POST', '/api/v1/ai/chat', ada, { messages: [] })).status, 400, 'at least one message');

    const complete = await s.send('POST', '/api/v1/ai/complete', ada, { prompt: 'Once upon' });
    t.equal(complete.status, 200, complete.text);
    t.same(complete.body, { model: 'fake/m1', text: 'completed: Once upon', usage: { promptTokens: 7, completionTokens: 5, totalTokens: 12 } });
    t.equal(s.fake.requests.at(-1)!.path, '/v1/completions');

    s.fake.queue.push({ deltas: ['Hel', 'lo', ' wor', 'ld'] });
    const stream = await s.send('POST', '/api/v1/ai/chat/stream', ada, { messages: [{ role: 'user', content: 'hi' }] });
    t.equal(stream.status, 200);
    const got = events(stream.text);
    t.same(got.filter((e) => e.event === 'delta').map((e) => e.data.content), ['Hel', 'lo', ' wor', 'ld'], 'one event per delta, in order');
    t.same(got.at(-1), { event: 'usage', data: { model: 'fake/m1', usage: { promptTokens: 7, completionTokens: 5, totalTokens: 12 } } }, 'a final usage event');
    t.equal(s.fake.requests.at(-1)!.body.stream, true);

    s.fake.queue.push({ status: 500 });
    const failing = events((await s.send('POST', '/api/v1/ai/chat/stream', ada, { messages: [{ role: 'user', content: 'hi' }] })).text);
    t.equal(failing.length, 1);
    t.equal(failing[0]!.event, 'error');
    t.equal(failing[0]!.data.error.code, 'AI_PROVIDER_ERROR', 'an error event on provider failure');

    const all = s.logs.join('') + JSON.stringify([models, chat, complete, stream, unknown].map((r) => r.text));
    t.notOk(all.includes(PROVIDER_KEY), 'the provider key is in no response and no log line');
  });

  await t.test(`${driver.name}: provider down, failing, slow and malformed answers are coded errors`, { skip: driver.skip }, async (t) => {
    const s = await bootAi(t, driver.name, {
      ai: (fake) => ({
        requestTimeoutMs: 300,
        providers: [{ id: 'fake', baseURL: fake.baseURL, models: ['m1'] }, { id: 'gone', baseURL: 'http://127.0.0.1:9/v1' }],
      }),
    });
    const chat = () => s.send('POST', '/api/v1/ai/chat', s.ada, { messages: [{ role: 'user', content: 'hi' }] });

    s.fake.queue.push({ status: 503 });
    let r = await chat();
    t.equal(r.status, 502);
    t.equal(r.body.error.code, 'AI_PROVIDER_ERROR');
    t.equal(r.body.error.details.providerStatus, 503);

    s.fake.queue.push({ hang: true, ms: 2000 });
    const started = Date.now();
    r = await chat();
    t.equal(r.status, 504, 'a slow provider is a timeout: ' + r.text);
    t.equal(r.body.error.code, 'AI_TIMEOUT');
    t.ok(Date.now() - started < 1500, 'answered at the deadline');

    s.fake.queue.push({ raw: '{"choices": [' });
    r = await chat();
    t.equal(r.status, 502);
    t.equal(r.body.error.code, 'AI_PROVIDER_ERROR');
    s.fake.queue.push({ raw: '{"id":"x","choices":[]}' });
    r = await chat();
    t.equal(r.status, 502, 'no choice is malformed');
    t.match(r.body.error.message, /malformed/);
    s.fake.queue.push({ raw: 'not json at all', contentType: 'text/plain' });
    t.equal((await chat()).body.error.code, 'AI_PROVIDER_ERROR');

    s.fake.queue.push({ raw: '{"choices": [' });
    const c = await s.send('POST', '/api/v1/ai/complete', s.ada, { prompt: 'x' });
    t.equal(c.status, 502);

    const models = await s.send('GET', '/api/v1/ai/models', s.ada);
    t.equal(models.status, 200, 'a failing provider is reported, not fatal');
    t.same(models.body.items, [{ id: 'fake/m1', provider: 'fake' }], 'configured models are not asked');
    t.equal(models.body.errors.length, 1);
    t.equal(models.body.errors[0].provider, 'gone');
    t.equal(models.body.errors[0].error.code, 'AI_PROVIDER_ERROR');
    t.notOk(s.fake.requests.some((r) => r.path === '/v1/models'), 'the models endpoint of a provider with models is never asked');

    await s.fake.close();
    r = await chat();
    t.equal(r.status, 502, 'an unreachable provider');
    t.equal(r.body.error.code, 'AI_PROVIDER_ERROR');
    t.match(r.body.error.message, /unreachable/);
  });

  await t.test(`${driver.name}: per-user request and token limits`, { skip: driver.skip }, async (t) => {
    const s = await bootAi(t, driver.name, { ai: { limits: { requestsPerMinute: 2, tokensPerDay: 1000 } } });
    const chat = (who = s.ada) => s.send('POST', '/api/v1/ai/chat', who, { messages: [{ role: 'user', content: 'hi' }] });
    t.equal((await chat()).status, 200);
    t.equal((await chat()).status, 200);
    const limited = await chat();
    t.equal(limited.status, 429);
    t.equal(limited.body.error.code, 'RATE_LIMITED');
    t.equal(limited.body.error.details.limit, 'ai.requestsPerMinute');
    t.equal((await chat(s.bob)).status, 200, 'another user has their own count');
    s.fake.queue.push({ content: 'big', usage: { prompt_tokens: 900, completion_tokens: 200 } });
    t.equal((await chat(s.bob)).status, 200);
    const tokens = await chat(s.bob);
    t.equal(tokens.status, 429);
    t.equal(tokens.body.error.details.limit, 'ai.tokensPerDay');
  });
}

await t.test('a client that disconnects from the stream aborts the provider request', async (t) => {
  const s = await bootAi(t, 'sqlite', { config: { server: { listen: true, port: 0, host: '127.0.0.1' } } });
  s.fake.queue.push({ deltas: ['first'], thenHang: true });
  const url = new URL(`${s.rt.runtime.http().url()!}/api/v1/ai/chat/stream`);
  const body = JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] });
  const firstChunk = await new Promise<string>((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: `Bearer ${s.ada.token}` } }, (res) => {
      res.once('data', (d: Buffer) => { resolve(String(d)); req.destroy(); });
    });
    req.on('error', () => undefined);
    req.on('close', () => undefined);
    req.end(body);
    setTimeout(() => reject(new Error('no first chunk')), 5000).unref();
  });
  t.match(firstChunk, /event: delta\ndata: \{"content":"first"\}/, 'the first delta arrived');
  t.equal(await s.fake.waitClosedEarly(3000), true, 'the provider saw its request closed');
});
