import type { Principal } from '../../capabilities/authSession.ts';
import { CacheFreshness } from '../../capabilities/cacheFreshness.ts';
import type { EventsBus } from '../../capabilities/eventsBus.ts';
import { frozenPrincipal } from '../../capabilities/frozenPrincipal.ts';

interface Entry {
  principal: Principal;
  expiresAt: number;
}

/**
 * Verified credentials remembered briefly, per environment, so a burst of requests costs one
 * verification. Cleared per environment whenever sessions, keys or users may have changed (here or,
 * through the events bus, in another process). A check keeps its answer only if no clear came
 * after it began (`mark` before the check, passed to `set`), and nothing is served or kept while
 * the bus cannot vouch for having heard the other processes (cacheFreshness.ts).
 */
export class PrincipalCache {
  private environments = new Map<string, Map<string, Entry>>();
  private freshness = new CacheFreshness(undefined, () => this.environments.clear());

  constructor(private readonly ttlMs: number, private readonly maxEntries = 10_000, private readonly now: () => number = Date.now) {}

  /** The principal as remembered: frozen, and the same object on every hit while it is cached. */
  get(environmentId: string, key: string): Principal | undefined {
    if (!this.freshness.usable()) return undefined;
    const entries = this.environments.get(environmentId);
    const entry = entries?.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      entries!.delete(key);
      return undefined;
    }
    return entry.principal;
  }

  /** Taken before a check begins: `set` keeps the check's answer only if no clear came since. */
  mark(): number {
    return this.freshness.mark();
  }

  /** Remember until the TTL ends, or sooner when the credential itself expires (`notAfter`, ms), unless cleared since `mark`. */
  set(environmentId: string, key: string, principal: Principal, notAfter: number | null, mark: number): void {
    if (this.ttlMs <= 0 || !this.freshness.holds(environmentId, mark)) return;
    const expiresAt = Math.min(this.now() + this.ttlMs, notAfter ?? Number.POSITIVE_INFINITY);
    if (expiresAt <= this.now()) return;
    let entries = this.environments.get(environmentId);
    if (!entries) this.environments.set(environmentId, (entries = new Map()));
    if (entries.size >= this.maxEntries) entries.delete(entries.keys().next().value!);
    entries.set(key, { principal: frozenPrincipal(principal), expiresAt });
  }

  /**
   * Shares clears across processes: a clear made here is published on the bus, what other
   * processes publish is applied here (without publishing again), and the bus's trust decides
   * whether anything is served.
   */
  share(bus: EventsBus): void {
    this.bus = bus;
    this.freshness = new CacheFreshness(bus, () => this.environments.clear());
    bus.subscribe('principals.changed', ({ environmentId }) => this.drop(environmentId));
  }

  private bus: EventsBus | null = null;

  clear(environmentId: string): void {
    this.bus?.publish('principals.changed', { environmentId });
    this.drop(environmentId);
  }

  private drop(environmentId: string): void {
    this.freshness.changed(environmentId);
    this.environments.delete(environmentId);
  }
}
