import { createHash, randomUUID } from 'node:crypto';

/** Key prefix of an environment's queues: environments never share a job. */
export const bullmqPrefix = (environmentId: string) => `osr:${environmentId}`;

/** A job id names its queue: `<job name>~<BullMQ id>`, so get, cancel and retry need no search. */
export function jobIdFor(name: string, idempotencyKey: string | null): { id: string; bullId: string } {
  const bullId = idempotencyKey === null ? randomUUID() : `k-${createHash('sha256').update(`${name}\0${idempotencyKey}`).digest('hex').slice(0, 40)}`;
  return { id: `${name}~${bullId}`, bullId };
}

export function parseJobId(id: string): { name: string; bullId: string } | null {
  const at = id.indexOf('~');
  if (at <= 0 || at === id.length - 1) return null;
  return { name: id.slice(0, at), bullId: id.slice(at + 1) };
}
