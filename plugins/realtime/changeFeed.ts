import { randomBytes } from 'node:crypto';
import type { EventsBus } from '../../capabilities/eventsBus.ts';
import { changeFrom, type RecordChange } from './recordChange.ts';
import { ReplayBuffer, type BufferedChange } from './replayBuffer.ts';

export interface ChangeFeedOptions {
  replaySize: number;
  replayAgeMs: number;
  /** How often a process says which objects its streams follow (others keep it three times as long). */
  announceMs: number;
}

/**
 * The changes of every process, in the order this process learns of them: its own writes once
 * committed, and other processes' through the events bus. Writers announce a change only while a
 * stream somewhere follows its object (each process announces what its streams follow).
 */
export class ChangeFeed {
  readonly buffer: ReplayBuffer;
  private readonly tag = randomBytes(4).toString('hex');
  private seq = 0;
  private readonly remoteInterest = new Map<string, number>();
  private readonly listeners: Array<(entry: BufferedChange) => void> = [];

  constructor(
    private readonly bus: EventsBus | undefined, private readonly options: ChangeFeedOptions,
    private readonly localInterest: (environmentId: string, object: string) => boolean,
    private readonly localAny: (environmentId: string) => boolean,
  ) {
    this.buffer = new ReplayBuffer(options.replaySize, options.replayAgeMs);
    bus?.subscribe('records.changed', (payload) => {
      const change = changeFrom(payload.environmentId, payload.data);
      if (change) this.learn(change);
    });
    bus?.subscribe('realtime.interest', (payload) => {
      const objects = payload.data?.objects;
      if (!Array.isArray(objects)) return;
      const until = Date.now() + 3 * this.options.announceMs;
      for (const object of objects.slice(0, 1000)) if (typeof object === 'string') this.remoteInterest.set(`${payload.environmentId}\u0000${object}`, until);
    });
  }

  onChange(listener: (entry: BufferedChange) => void): void {
    this.listeners.push(listener);
  }

  /** Whether a write of this object must be announced: a stream of this process or of another follows it. */
  interested(environmentId: string, object: string): boolean {
    if (this.localInterest(environmentId, object)) return true;
    const until = this.remoteInterest.get(`${environmentId}\u0000${object}`);
    return until !== undefined && until > Date.now();
  }

  /** Whether any stream, here or elsewhere, follows an object of this environment. */
  interestedInAny(environmentId: string): boolean {
    if (this.localAny(environmentId)) return true;
    const now = Date.now();
    for (const [key, until] of this.remoteInterest) if (until > now && key.startsWith(`${environmentId}\u0000`)) return true;
    return false;
  }

  /** A write of this process committed. */
  committed(environmentId: string, object: string, recordId: string, op: RecordChange['op'], version: number | null, token?: string): void {
    const now = Date.now();
    const change: RecordChange = { id: `${now.toString(36)}-${this.tag}-${(this.seq++).toString(36)}`, environmentId, object, recordId, op, version, at: now, ...(token !== undefined ? { token } : {}) };
    const { environmentId: _env, ...data } = change;
    this.bus?.publish('records.changed', { environmentId, data });
    this.learn(change);
  }

  /** Tells other processes what this process's streams follow. */
  announce(followed: Map<string, string[]>): void {
    for (const [environmentId, objects] of followed) this.bus?.publish('realtime.interest', { environmentId, data: { objects } });
  }

  private learn(change: RecordChange): void {
    // A transport that delivers a message twice: the second is dropped (the hub also drops a version sent before).
    if (this.buffer.has(change.id)) return;
    const entry = this.buffer.add(change);
    for (const listener of this.listeners) listener(entry);
  }
}
