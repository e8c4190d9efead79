import type { RecordChange } from './recordChange.ts';

/** A change and what each access group that saw it live was sent (group key -> event type, or null: nothing). */
export interface BufferedChange {
  change: RecordChange;
  outcomes: Map<string, string | null>;
  /** When this process learned of it. */
  received: number;
}

/**
 * The last changes this process learned of, in the order it learned of them, bounded by count and
 * by age: what a reconnecting client resumes from (`Last-Event-ID`).
 */
export class ReplayBuffer {
  private readonly items: BufferedChange[] = [];
  private readonly byId = new Map<string, BufferedChange>();

  constructor(private readonly size: number, private readonly ageMs: number) {}

  add(change: RecordChange, now = Date.now()): BufferedChange {
    const entry: BufferedChange = { change, outcomes: new Map(), received: now };
    this.items.push(entry);
    this.byId.set(change.id, entry);
    this.trim(now);
    return entry;
  }

  /** Whether the change is kept (learned already). */
  has(id: string): boolean {
    return this.byId.has(id);
  }

  /**
   * The changes after the one with id `lastId`, in this process's order, plus those learned within
   * `overlapMs` before it (another process may have learned of them in another order): undefined
   * when `lastId` is no longer (or never was) in the buffer.
   */
  after(lastId: string, overlapMs: number, now = Date.now()): BufferedChange[] | undefined {
    this.trim(now);
    const last = this.byId.get(lastId);
    if (!last) return undefined;
    const index = this.items.indexOf(last);
    const before = this.items.slice(0, index).filter((entry) => entry.received >= last.received - overlapMs);
    return [...before, ...this.items.slice(index + 1)];
  }

  private trim(now: number): void {
    let drop = Math.max(0, this.items.length - this.size);
    while (drop < this.items.length && this.items[drop]!.received < now - this.ageMs) drop++;
    for (const entry of this.items.splice(0, drop)) this.byId.delete(entry.change.id);
  }
}
