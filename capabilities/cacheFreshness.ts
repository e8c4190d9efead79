import type { EventsBus } from './eventsBus.ts';

/**
 * When a cache of remembered state (verified credentials, grants, the objects with approval
 * processes) may serve and keep answers. One instance per cache, shared by all its environments:
 *
 * - An answer is kept only if nothing in its environment changed after the read began (`mark`
 *   before the read, `holds` before keeping): a check in flight when a change arrives never stores
 *   what it read before the change.
 * - Nothing is served or kept while the events bus is not trusted (a signal path down, or its
 *   heartbeat overdue): other processes' changes may be unheard, so the database answers.
 * - When the bus's epoch moved (trust was lost since), everything remembered is dropped (`reset`)
 *   before anything is served again: the messages sent meanwhile may be lost.
 */
export class CacheFreshness {
  private clock = 0;
  private allChangedAt = 0;
  private readonly changedAt = new Map<string, number>();
  private seenEpoch: number;

  constructor(private readonly bus: Pick<EventsBus, 'trusted' | 'epoch'> | undefined, private readonly reset: () => void) {
    this.seenEpoch = bus?.epoch() ?? 0;
  }

  /** Whether remembered answers may be served now (and, after a lapse, everything is dropped first). */
  usable(): boolean {
    if (!this.bus) return true;
    const epoch = this.bus.epoch();
    if (epoch !== this.seenEpoch) {
      this.seenEpoch = epoch;
      this.allChangedAt = ++this.clock;
      this.reset();
    }
    return this.bus.trusted();
  }

  /** Taken before a read whose answer may be kept: pass it to `holds`. */
  mark(): number {
    this.usable();
    return this.clock;
  }

  /** Whether an answer read since `mark` may be kept now: trusted, and no change in the environment (or everywhere) since. */
  holds(environmentId: string, mark: number): boolean {
    return this.usable() && this.allChangedAt <= mark && (this.changedAt.get(environmentId) ?? 0) <= mark;
  }

  /** The environment's state changed (here or in another process): answers read before now are not kept. */
  changed(environmentId: string): void {
    this.changedAt.set(environmentId, ++this.clock);
  }
}
