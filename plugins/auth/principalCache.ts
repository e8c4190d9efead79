import type { Principal } from '../../capabilities/authSession.ts';
import { frozenPrincipal } from '../../capabilities/frozenPrincipal.ts';

interface Entry {
  principal: Principal;
  expiresAt: number;
}

/**
 * Verified credentials remembered briefly, per environment, so a burst of requests costs one
 * verification. Cleared per environment whenever sessions, keys or users may have changed.
 */
export class PrincipalCache {
  private environments = new Map<string, Map<string, Entry>>();

  constructor(private readonly ttlMs: number, private readonly maxEntries = 10_000, private readonly now: () => number = Date.now) {}

  /** The principal as remembered: frozen, and the same object on every hit while it is cached. */
  get(environmentId: string, key: string): Principal | undefined {
    const entries = this.environments.get(environmentId);
    const entry = entries?.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      entries!.delete(key);
      return undefined;
    }
    return entry.principal;
  }

  /** Remember until the TTL ends, or sooner when the credential itself expires (`notAfter`, ms). */
  set(environmentId: string, key: string, principal: Principal, notAfter: number | null): void {
    if (this.ttlMs <= 0) return;
    const expiresAt = Math.min(this.now() + this.ttlMs, notAfter ?? Number.POSITIVE_INFINITY);
    if (expiresAt <= this.now()) return;
    let entries = this.environments.get(environmentId);
    if (!entries) this.environments.set(environmentId, (entries = new Map()));
    if (entries.size >= this.maxEntries) entries.delete(entries.keys().next().value!);
    entries.set(key, { principal: frozenPrincipal(principal), expiresAt });
  }

  /**
   * Shares clears across processes: `announce` tells the others of a clear made here, and
   * `listen` registers the clear of what they announce (applied here without announcing again).
   */
  onClear(announce: (environmentId: string) => void, listen: (apply: (payload: { environmentId: string }) => void) => void): void {
    this.announce = announce;
    listen(({ environmentId }) => this.environments.delete(environmentId));
  }

  private announce: ((environmentId: string) => void) | null = null;

  clear(environmentId: string): void {
    this.announce?.(environmentId);
    this.environments.delete(environmentId);
  }
}
