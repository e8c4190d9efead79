// `osr start --workers N` (docs: README, Scale-out): this process forks N workers with node's cluster
// module, each a whole runtime listening on the same port (the primary hands out connections). It
// loads nothing of the runtime itself, so it starts at once. The first worker boots alone (schema
// sync, first admin, statistics), the others once it serves. The primary relays events between
// the workers and keeps the rate limits' counts for them (plugins/events/workersChannel.ts).
import cluster from 'node:cluster';

const MAX_KEYS = 100_000;
/** A worker that dies this soon after it began serving is not started again more than RESTARTS times in a row. */
const RESTARTS = 5;
const STEADY_MS = 10_000;

/**
 * Runs the primary of `count` workers; resolves with the process's exit code once every worker has
 * stopped (a signal, or a first boot that failed).
 * `onServing` is called with each worker's ready message (the bench's cluster server reports its URL so).
 * `asked`: the count was asked for (`--workers N`), not the default; a worker refuses to serve an
 * in-memory database then, where it serves alone by default (cli/workersDatabase.ts).
 * @param {number} count
 * @param {(message: { osr: 'ready'; url?: string; alone?: boolean }, serving: number) => void} [onServing]
 * @param {boolean} [asked]
 * @returns {Promise<number>}
 */
export function runPrimary(count, onServing, asked = false) {
  /** @type {Map<string, { count: number; resetAt: number }>} */
  const windows = new Map();
  /** @param {string} key @param {number} windowMs @param {number} amount */
  const hit = (key, windowMs, amount) => {
    const at = Date.now();
    let window = windows.get(key);
    if (!window || window.resetAt <= at) {
      if (windows.size >= MAX_KEYS) {
        for (const [k, w] of windows) if (w.resetAt <= at) windows.delete(k);
        if (windows.size >= MAX_KEYS) windows.delete(/** @type {string} */ (windows.keys().next().value));
      }
      window = { count: 0, resetAt: at + windowMs };
      windows.set(key, window);
    }
    window.count += amount;
    return { count: window.count, ttlMs: window.resetAt - at };
  };

  return new Promise((resolve) => {
    let stopping = false;
    let exitCode = 0;
    let failures = 0;
    let served = 0;
    /** @type {Set<import('node:cluster').Worker>} */
    const workers = new Set();

    /** @param {boolean} first */
    const fork = (first) => {
      // A stop that came first (a signal may arrive before the first worker's ready message) starts nothing more.
      if (stopping) return;
      const worker = cluster.fork({ OSR_WORKERS: String(count), ...(asked ? { OSR_WORKERS_ASKED: '1' } : {}) });
      workers.add(worker);
      let serving = false;
      let servedAt = 0;
      worker.on('message', (/** @type {any} */ message) => {
        if (!message || typeof message !== 'object') return;
        if (message.osr === 'ready') {
          serving = true;
          servedAt = Date.now();
          // A worker whose database lives in its own process (in-memory SQLite) serves alone (cli/workersDatabase.ts).
          if (first && !message.alone) for (let i = 1; i < count; i++) fork(false);
          onServing?.(message, ++served);
        } else if (message.osr === 'bus' && typeof message.message === 'string') {
          for (const other of workers) if (other !== worker && other.isConnected()) other.send({ osr: 'bus', message: message.message });
        } else if (message.osr === 'counter' && typeof message.key === 'string') {
          const counted = hit(message.key, Number(message.windowMs), Number(message.amount ?? 1));
          if (worker.isConnected()) worker.send({ osr: 'counter', id: message.id, ...counted });
        }
      });
      worker.on('exit', (code, signal) => {
        workers.delete(worker);
        if (!stopping) {
          if (!serving && first) {
            // The first boot failed: its report is printed (stderr is shared); the primary ends with it.
            exitCode = code || 1;
            stop();
          } else {
            failures = serving && Date.now() - servedAt > STEADY_MS ? 0 : failures + 1;
            console.error(`osr: worker ${worker.process.pid} ended (${signal ?? `exit ${code}`})${failures > RESTARTS ? '; it keeps failing, stopping' : ', starting another'}`);
            if (failures > RESTARTS) {
              exitCode = 1;
              stop();
            } else fork(false);
          }
        }
        if (stopping && workers.size === 0) resolve(exitCode);
      });
    };

    const stop = () => {
      if (stopping) return;
      stopping = true;
      for (const worker of workers) worker.process.kill('SIGTERM');
      if (workers.size === 0) resolve(exitCode);
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
    fork(true);
  });
}
