/** A local stand-in for the SMS providers' HTTP APIs: records each request and answers as told. */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SinkRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body, and its form fields (both providers are sent forms). */
  raw: string;
  form: Record<string, string>;
}

export interface SmsSink {
  url: string;
  requests: SinkRequest[];
  /** The answer to the following requests (default: Twilio's 201). */
  answer: { status: number; json: unknown; delayMs?: number };
  /** The last code texted to `to` (digits of the message body), or null. */
  codeFor(to: string): string | null;
  close(): Promise<void>;
}

export async function startSmsSink(): Promise<SmsSink> {
  const sink: Omit<SmsSink, 'url' | 'close'> = {
    requests: [],
    answer: { status: 201, json: { sid: 'SM00000000000000000000000000000000', status: 'queued' } },
    codeFor(to) {
      for (let i = sink.requests.length - 1; i >= 0; i--) {
        const f = sink.requests[i]!.form;
        const recipient = f.To ?? (f.to ? `+${f.to}` : undefined);
        const body = f.Body ?? f.text ?? '';
        const code = /^(\d{6,10}) is your/.exec(body);
        if (recipient === to && code) return code[1]!;
      }
      return null;
    },
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      sink.requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, raw, form: Object.fromEntries(new URLSearchParams(raw)) });
      const { status, json, delayMs } = sink.answer;
      setTimeout(() => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(json));
      }, delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    ...sink,
    get requests() { return sink.requests; },
    get answer() { return sink.answer; },
    set answer(value) { sink.answer = value; },
    codeFor: sink.codeFor,
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
