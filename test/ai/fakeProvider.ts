/**
 * A local OpenAI-compatible server for the AI tests: the real wire format (JSON, and SSE chunks
 * with content and tool_calls deltas, then a usage chunk and [DONE]). Each request is recorded;
 * the test scripts the answers.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** Set when the client closed the connection before the answer was complete. */
  closedEarly: boolean;
}

export type Scripted =
  | { content: string; usage?: { prompt_tokens: number; completion_tokens: number } }
  | { toolCalls: Array<{ name: string; args: unknown }> }
  | { status: number; body?: string }
  | { raw: string; contentType?: string }
  /** Headers then nothing until the client goes away (or `ms` passes). */
  | { hang: true; ms?: number }
  /** Stream these deltas, `gapMs` apart; `hold` pauses after its first `after` deltas until `until` settles. */
  | { deltas: string[]; gapMs?: number; thenHang?: boolean; hold?: { after: number; until: Promise<unknown> } };

export interface FakeProvider {
  baseURL: string;
  requests: Recorded[];
  /** Answers for the next chat completions, in order; when empty, a default reply. */
  queue: Scripted[];
  models: string[];
  modelsStatus: number;
  close(): Promise<void>;
  /** Resolves when a request was closed early by its client. */
  waitClosedEarly(ms: number): Promise<boolean>;
}

const usageOf = (u?: { prompt_tokens: number; completion_tokens: number }) => {
  const p = u?.prompt_tokens ?? 7;
  const c = u?.completion_tokens ?? 5;
  return { prompt_tokens: p, completion_tokens: c, total_tokens: p + c };
};

let callSeq = 0;

export async function startFakeProvider(): Promise<FakeProvider> {
  const requests: Recorded[] = [];
  const waiters: Array<() => void> = [];
  const state: FakeProvider = {
    baseURL: '', requests, queue: [], models: ['m1', 'm2'], modelsStatus: 200,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
    waitClosedEarly: (ms) => new Promise((resolve) => {
      if (requests.some((r) => r.closedEarly)) return resolve(true);
      const timer = setTimeout(() => resolve(false), ms);
      waiters.push(() => { clearTimeout(timer); resolve(true); });
    }),
  };

  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const chunk = (res: ServerResponse, model: string, delta: object, finish: string | null = null, usage?: object) => {
    res.write(`data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 0, model, choices: usage ? [] : [{ index: 0, delta, finish_reason: finish }], ...(usage ? { usage } : {}) })}\n\n`);
  };

  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (d: Buffer) => parts.push(d));
    req.on('end', () => {
      const text = Buffer.concat(parts).toString('utf8');
      const record: Recorded = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: text ? JSON.parse(text) : null, closedEarly: false };
      requests.push(record);
      res.on('close', () => {
        if (!res.writableFinished) {
          record.closedEarly = true;
          for (const w of waiters.splice(0)) w();
        }
      });
      if (req.url === '/v1/models') {
        if (state.modelsStatus !== 200) return json(res, state.modelsStatus, { error: { message: 'down' } });
        return json(res, 200, { object: 'list', data: state.models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'fake' })) });
      }
      if (req.url === '/v1/completions') {
        const next = state.queue.shift() ?? { content: `completed: ${record.body.prompt}` };
        if ('status' in next) return json(res, next.status, { error: { message: next.body ?? 'failure' } });
        if ('raw' in next) { res.writeHead(200, { 'content-type': next.contentType ?? 'application/json' }); return res.end(next.raw); }
        if ('hang' in next) { res.writeHead(200, { 'content-type': 'application/json' }); setTimeout(() => res.end('{}'), next.ms ?? 60_000).unref(); return; }
        const content = 'content' in next ? next.content : '';
        return json(res, 200, { id: 'cmpl-1', object: 'text_completion', created: 0, model: record.body.model, choices: [{ index: 0, text: content, finish_reason: 'stop', logprobs: null }], usage: usageOf() });
      }
      if (req.url !== '/v1/chat/completions') return json(res, 404, { error: { message: 'no such path' } });
      const model = record.body.model as string;
      const next = state.queue.shift() ?? { content: 'default answer' };
      if ('status' in next) return json(res, next.status, { error: { message: next.body ?? 'failure' } });
      if ('raw' in next) { res.writeHead(200, { 'content-type': next.contentType ?? 'application/json' }); return res.end(next.raw); }
      if ('hang' in next) {
        res.writeHead(200, { 'content-type': record.body.stream ? 'text/event-stream' : 'application/json' });
        res.flushHeaders();
        setTimeout(() => res.end(), next.ms ?? 60_000).unref();
        return;
      }
      if (record.body.stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        const deltas = 'deltas' in next ? next.deltas : 'content' in next ? [next.content] : [];
        const gap = 'deltas' in next ? next.gapMs ?? 0 : 0;
        void (async () => {
          chunk(res, model, { role: 'assistant', content: '' });
          for (const [i, d] of deltas.entries()) {
            if ('deltas' in next && next.hold && i === next.hold.after) await next.hold.until.catch(() => undefined);
            if (res.destroyed) return;
            chunk(res, model, { content: d });
            if (gap) await new Promise((r) => setTimeout(r, gap));
          }
          if ('deltas' in next && next.thenHang) return;
          if ('toolCalls' in next) {
            next.toolCalls.forEach((call, index) => {
              const args = JSON.stringify(call.args);
              chunk(res, model, { tool_calls: [{ index, id: `call_${++callSeq}`, type: 'function', function: { name: call.name, arguments: '' } }] });
              chunk(res, model, { tool_calls: [{ index, function: { arguments: args.slice(0, 5) } }] });
              chunk(res, model, { tool_calls: [{ index, function: { arguments: args.slice(5) } }] });
            });
          }
          chunk(res, model, {}, 'toolCalls' in next ? 'tool_calls' : 'stop');
          chunk(res, model, {}, null, usageOf('content' in next ? next.usage : undefined));
          res.end('data: [DONE]\n\n');
        })();
        return;
      }
      const message = 'toolCalls' in next
        ? { role: 'assistant', content: null, tool_calls: next.toolCalls.map((c) => ({ id: `call_${++callSeq}`, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.args) } })) }
        : { role: 'assistant', content: 'content' in next ? next.content : (next as { deltas: string[] }).deltas.join('') };
      return json(res, 200, {
        id: 'chatcmpl-1', object: 'chat.completion', created: 0, model,
        choices: [{ index: 0, message, finish_reason: 'toolCalls' in next ? 'tool_calls' : 'stop', logprobs: null }],
        usage: usageOf('content' in next ? next.usage : undefined),
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return state;
}
