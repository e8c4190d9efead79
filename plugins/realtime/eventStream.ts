import type { ServerResponse } from 'node:http';

/** One server-sent event: `event` type, optional `id`, JSON `data`. */
export interface StreamEvent {
  event: string;
  id?: string;
  data: unknown;
}

/** Frames already made: one event sent to every stream of a group is serialized once. */
const framed = new WeakMap<StreamEvent, string>();

/** `text/event-stream` framing of one event (data is JSON, so it holds no newline); made once per event object. */
export function frame(event: StreamEvent): string {
  let text = framed.get(event);
  if (text === undefined) {
    text = `${event.id ? `id: ${event.id}\n` : ''}event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`;
    framed.set(event, text);
  }
  return text;
}

/**
 * A server-sent-events connection with a bounded queue: events wait while the socket's buffer is
 * full; a subscriber whose queue passes `queueLimit` is sent `reset` and closed, so one slow reader
 * never holds the others up (nothing waits on it).
 */
export class EventStream {
  private readonly queue: string[] = [];
  private waiting = false;
  closed = false;
  private readonly closers: Array<() => void> = [];

  constructor(private readonly res: ServerResponse, private readonly queueLimit: number) {
    res.on('close', () => this.finish());
    res.on('drain', () => {
      this.waiting = false;
      this.flush();
    });
  }

  /** Runs once the connection ends, for whatever reason. */
  onClose(close: () => void): void {
    if (this.closed) close();
    else this.closers.push(close);
  }

  send(event: StreamEvent): void {
    if (this.closed) return;
    if (this.queue.length >= this.queueLimit) {
      this.end({ event: 'reset', data: { reason: 'slow_consumer', message: 'This stream fell behind and was closed: read again, then reconnect without Last-Event-ID.' } });
      return;
    }
    this.queue.push(frame(event));
    this.flush();
  }

  /** A comment line: keeps proxies and the browser from timing an idle connection out. */
  heartbeat(): void {
    if (this.closed || this.waiting) return;
    this.res.write(': keep-alive\n\n');
  }

  /** Sends a last event (whatever waits before it is dropped) and closes the connection. */
  end(last?: StreamEvent): void {
    if (this.closed) return;
    this.queue.length = 0;
    if (last) this.res.write(frame(last));
    this.res.end();
    // A reader that stopped reading never takes the rest of the buffer: its socket goes after a while.
    setTimeout(() => this.res.destroy(), 5_000).unref();
    this.finish();
  }

  get pending(): number {
    return this.queue.length;
  }

  private flush(): void {
    while (!this.waiting && !this.closed && this.queue.length > 0) {
      if (!this.res.write(this.queue.shift()!)) this.waiting = true;
    }
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.queue.length = 0;
    for (const close of this.closers.splice(0)) close();
    if (!this.res.destroyed && !this.res.writableEnded) this.res.destroy();
  }
}
