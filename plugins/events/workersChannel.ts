import cluster from 'node:cluster';

/**
 * The processes of one `osr start --workers N` (node's cluster): each worker talks to the primary
 * over its IPC channel, and the primary relays events to every worker and keeps the rate limits'
 * counts (bin/clusterPrimary.js). A message is `{ osr: 'bus' | 'counter', ... }`.
 */
export interface WorkerMessage {
  osr: 'bus' | 'counter';
  [key: string]: unknown;
}

/** Whether this process is a worker of `osr start --workers N` (the primary marks its workers). */
export function inWorkers(): boolean {
  return cluster.isWorker && process.env.OSR_WORKERS !== undefined && typeof process.send === 'function';
}

/** Sends to the primary; false when the channel is closed (the primary is gone). */
export function toPrimary(message: WorkerMessage): boolean {
  if (!process.connected || !process.send) return false;
  process.send(message);
  return true;
}

/** Calls `listener` with each message of `kind` from the primary; answers the function that stops it. */
export function fromPrimary(kind: WorkerMessage['osr'], listener: (message: WorkerMessage) => void): () => void {
  const handler = (message: unknown) => {
    if (typeof message === 'object' && message !== null && (message as WorkerMessage).osr === kind) listener(message as WorkerMessage);
  };
  process.on('message', handler);
  return () => process.off('message', handler);
}
