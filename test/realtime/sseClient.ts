/** A server-sent-events reader over fetch, for the realtime tests: every event kept, waits by predicate. */

export interface SseEvent {
  event: string;
  id?: string;
  data: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** The event's text as it travelled (its lines, without the blank line that ends it). */
  raw: string;
  /** When it was read (performance.now()). */
  at: number;
}

export interface SseStream {
  status: number;
  events: SseEvent[];
  /** The first event from `from` on (default: the next unread one) that `match` accepts; rejects after `timeoutMs`. */
  next(match?: (event: SseEvent) => boolean, timeoutMs?: number): Promise<SseEvent>;
  /** Resolves when the server ended the stream. */
  ended: Promise<void>;
  close(): void;
  /** The error body of a refused stream. */
  body?: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export async function openStream(url: string, headers: Record<string, string> = {}, options: { read?: boolean } = {}): Promise<SseStream> {
  const controller = new AbortController();
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: controller.signal });
  const events: SseEvent[] = [];
  let cursor = 0;
  const waiters = new Set<() => void>();
  let endedResolve!: () => void;
  const ended = new Promise<void>((resolve) => (endedResolve = resolve));
  let done = false;
  const stream: SseStream = {
    status: res.status,
    events,
    ended,
    close: () => controller.abort(),
    next(match = () => true, timeoutMs = 5_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          while (cursor < events.length) {
            const event = events[cursor++]!;
            if (match(event)) {
              waiters.delete(check);
              clearTimeout(timer);
              resolve(event);
              return;
            }
          }
          if (done) {
            waiters.delete(check);
            clearTimeout(timer);
            reject(new Error(`the stream ended; events: ${JSON.stringify(events.map((e) => e.event))}; last: ${events.at(-1)?.raw ?? ""}`));
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no matching event within ${timeoutMs} ms; events: ${JSON.stringify(events.slice(-20).map((e) => [e.event, e.data?.record?.id ?? e.data?.id]))}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
  };
  if (res.status !== 200) {
    stream.body = await res.json().catch(() => null);
    done = true;
    endedResolve();
    return stream;
  }
  if (options.read === false) return stream;
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let at: number;
        while ((at = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, at);
          buffer = buffer.slice(at + 2);
          const event: SseEvent = { event: 'message', data: null, raw: block, at: performance.now() };
          let data = '';
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) continue;
            const colon = line.indexOf(':');
            const field = colon < 0 ? line : line.slice(0, colon);
            const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
            if (field === 'event') event.event = value;
            else if (field === 'id') event.id = value;
            else if (field === 'data') data += value;
          }
          if (!data && event.event === 'message') continue;
          event.data = data ? JSON.parse(data) : null;
          events.push(event);
          for (const waiter of [...waiters]) waiter();
        }
      }
    } catch {
      // aborted by close()
    }
    done = true;
    for (const waiter of [...waiters]) waiter();
    endedResolve();
  })();
  return stream;
}
