/**
 * A TCP proxy that can stop forwarding without closing anything: the connections it marks
 * (those whose client sent something matching `marks`, such as a LISTEN or a SUBSCRIBE) go silent
 * both ways while it is frozen, as a half-open connection does (a peer gone without a reset).
 * Connections frozen once stay frozen; new ones flow again after `thaw`.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { Test } from 'tap';

export interface FreezeProxy {
  port: number;
  /** Marked connections, open now and made from now on, stop forwarding. */
  freeze(): void;
  /** New connections flow again (those frozen stay silent). */
  thaw(): void;
  /** How many connections are frozen now. */
  frozen(): number;
}

interface Pair {
  client: Socket;
  server: Socket;
  marked: boolean;
  frozen: boolean;
  seen: string;
}

export async function freezeProxy(t: Test, target: { host: string; port: number }, marks: RegExp): Promise<FreezeProxy> {
  const pairs = new Set<Pair>();
  const sockets = new Set<Socket>();
  let freezing = false;
  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    const pair: Pair = { client, server: upstream, marked: false, frozen: false, seen: '' };
    sockets.add(client);
    sockets.add(upstream);
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      if (!pair.frozen) {
        client.destroy();
        upstream.destroy();
      }
    };
    client.on('data', (chunk: Buffer) => {
      if (pair.frozen) return;
      if (!pair.marked) {
        pair.seen = (pair.seen + chunk.toString('latin1')).slice(-4096);
        if (marks.test(pair.seen)) pair.marked = true;
      }
      if (pair.marked && freezing) {
        pair.frozen = true;
        return;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!pair.frozen) client.write(chunk);
    });
    client.on('error', () => undefined);
    upstream.on('error', () => undefined);
    client.on('close', end);
    upstream.on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  return {
    port: (server.address() as { port: number }).port,
    freeze() {
      freezing = true;
      for (const pair of pairs) if (pair.marked) pair.frozen = true;
    },
    thaw() {
      freezing = false;
    },
    frozen: () => [...pairs].filter((p) => p.frozen).length,
  };
}
