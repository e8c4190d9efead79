/**
 * Whether a signal path (a LISTEN connection, a Redis subscriber) is proven live: every
 * `intervalMs` this process sends a heartbeat to itself through the path (a NOTIFY or PUBLISH
 * on a channel only it listens on), and the path is trusted while the latest heartbeat that came
 * back was sent within `trustMs`. Messages on one path arrive in the order the server took them,
 * so a heartbeat back means everything sent before it was delivered: a message sent at `t` has
 * arrived, or the path is distrusted, by `t + trustMs`. A connection that died without a close (a
 * half-open TCP connection) never says so; its missing heartbeat does, and after `reconnectMs`
 * without one, `overdue` asks the transport to connect anew.
 */
export interface Heartbeat {
  /** The path listens (again): beating starts; it is trusted once the first heartbeat is back. */
  connected(): void;
  /** The path was lost: not trusted until connected and heard again. */
  lost(): void;
  /** A heartbeat came back (the token sent). */
  echo(token: string): void;
  /** Whether the path is proven live now. */
  live(): boolean;
  /** Moves each time the path was not proven live for a while: messages may have been missed. */
  epoch(): number;
  state(): HeartbeatState;
  stop(): void;
}

export interface HeartbeatState {
  path: string;
  live: boolean;
  /** Milliseconds since the latest heartbeat that came back was sent; null if none did. */
  lastHeardMs: number | null;
}

export interface HeartbeatOptions {
  intervalMs: number;
  trustMs: number;
  reconnectMs: number;
  now?: () => number;
}

/** Defaults: beat four times a second, trust for 750 ms (a revocation holds within a second), reconnect after 2 s. */
export const HEARTBEAT: HeartbeatOptions = { intervalMs: 250, trustMs: 750, reconnectMs: 2_000 };

/** Heartbeats sent and not back yet, kept at most. */
const PENDING = 64;

export function createHeartbeat(
  path: string,
  send: (token: string) => Promise<void>,
  handlers: { overdue(): void; changed(live: boolean, state: HeartbeatState): void },
  options: HeartbeatOptions = HEARTBEAT,
): Heartbeat {
  const now = options.now ?? Date.now;
  const pending = new Map<number, number>();
  let sequence = 0;
  let connectedAt: number | null = null;
  let heardSentAt: number | null = null;
  let epoch = 0;
  let reported = false;
  let timer: NodeJS.Timeout | null = null;

  const live = () => connectedAt !== null && heardSentAt !== null && now() - heardSentAt <= options.trustMs;
  const state = (): HeartbeatState => ({ path, live: live(), lastHeardMs: heardSentAt === null ? null : now() - heardSentAt });
  const report = () => {
    const current = live();
    if (current === reported) return;
    reported = current;
    handlers.changed(current, state());
  };
  const beat = () => {
    report();
    if (connectedAt === null) return;
    if (now() - (heardSentAt ?? connectedAt) > options.reconnectMs && now() - connectedAt > options.reconnectMs) {
      handlers.overdue();
      return;
    }
    const token = ++sequence;
    pending.set(token, now());
    if (pending.size > PENDING) pending.delete(pending.keys().next().value!);
    send(String(token)).catch(() => undefined);
  };
  const start = () => {
    timer ??= setInterval(beat, options.intervalMs);
    timer.unref();
  };
  start();

  return {
    connected() {
      connectedAt = now();
      heardSentAt = null;
      pending.clear();
      epoch++;
      beat();
    },
    lost() {
      if (connectedAt === null) return;
      connectedAt = null;
      heardSentAt = null;
      pending.clear();
      epoch++;
      report();
    },
    echo(token) {
      const sentAt = pending.get(Number(token));
      if (sentAt === undefined || connectedAt === null) return;
      for (const key of pending.keys()) {
        if (key > Number(token)) break;
        pending.delete(key);
      }
      // Heard again after a lapse: what was sent during it may have been lost.
      if (heardSentAt !== null && now() - heardSentAt > options.trustMs) epoch++;
      heardSentAt = Math.max(heardSentAt ?? 0, sentAt);
      report();
    },
    live,
    epoch: () => epoch,
    state,
    stop() {
      if (timer) clearInterval(timer);
      timer = null;
      connectedAt = null;
    },
  };
}
