import type { Principal } from '../../capabilities/authSession.ts';

/** The identity a session is bound to: a request of another user, environment, credential kind or scope set cannot use it. */
export function ownerOf(principal: Principal): string {
  return JSON.stringify([principal.environmentId, principal.kind, principal.userId, principal.scopes ? [...principal.scopes].sort() : null]);
}

/** The user a session counts against, whatever credential opened it. */
export function userOf(principal: Principal): string {
  return JSON.stringify([principal.environmentId, principal.userId]);
}

export interface StoredSession {
  id: string;
  owner: string;
  /** `userOf` the opener. */
  user: string;
  /** The credential that opened it (a digest, never the secret). */
  credential: string;
  close(): Promise<void>;
}

export interface SessionLimits {
  /** Open sessions at most in this process. */
  max: number;
  /** Open sessions at most per credential; one more closes that credential's least recently used. */
  perCredential: number;
  /** Open sessions at most per user, across her credentials; one more closes her least recently used. */
  perUser: number;
  /** A session unused this long (ms) is closed. */
  idleMs: number;
}

interface Entry<S> {
  session: S;
  lastSeen: number;
}

/**
 * Open MCP sessions of this process, each bound to its owner and closed when idle. A lookup by a
 * different owner answers nothing, exactly like an unknown id. Bounded three ways, so that one
 * caller cannot take the pool from the others: a new session of a credential (or user) at its
 * limit closes that credential's (or user's) least recently used one, and a new session in a full
 * pool closes the least recently used session of the user holding the most.
 */
export class SessionStore<S extends StoredSession> {
  private sessions = new Map<string, Entry<S>>();

  constructor(private readonly limits: SessionLimits, private readonly now: () => number = Date.now) {}

  get size(): number {
    return this.sessions.size;
  }

  /** Keep a new session, first closing the sessions it displaces (answers them). */
  add(session: S): S[] {
    const evicted: S[] = [];
    const evictOldest = (entries: Entry<S>[]) => {
      const oldest = entries.reduce((a, b) => (b.lastSeen < a.lastSeen ? b : a));
      this.sessions.delete(oldest.session.id);
      evicted.push(oldest.session);
    };
    const all = () => [...this.sessions.values()];
    while (true) {
      const ofCredential = all().filter((e) => e.session.credential === session.credential);
      if (ofCredential.length < this.limits.perCredential) break;
      evictOldest(ofCredential);
    }
    while (true) {
      const ofUser = all().filter((e) => e.session.user === session.user);
      if (ofUser.length < this.limits.perUser) break;
      evictOldest(ofUser);
    }
    while (this.sessions.size >= this.limits.max) evictOldest(this.ofLargestHolder());
    this.sessions.set(session.id, { session, lastSeen: this.now() });
    for (const s of evicted) void s.close().catch(() => undefined);
    return evicted;
  }

  /** The sessions of the user holding the most (ties: the one whose oldest session is oldest). */
  private ofLargestHolder(): Entry<S>[] {
    const byUser = new Map<string, Entry<S>[]>();
    for (const entry of this.sessions.values()) {
      const list = byUser.get(entry.session.user);
      if (list) list.push(entry);
      else byUser.set(entry.session.user, [entry]);
    }
    let best: Entry<S>[] = [];
    for (const list of byUser.values()) if (list.length > best.length) best = list;
    return best;
  }

  /** The session when `owner` opened it (its use is noted), else null. */
  get(id: string, owner: string): S | null {
    const entry = this.sessions.get(id);
    if (!entry || entry.session.owner !== owner) return null;
    entry.lastSeen = this.now();
    return entry.session;
  }

  remove(id: string | undefined): void {
    if (id !== undefined) this.sessions.delete(id);
  }

  /** Close the sessions idle past the limit; answers how many. */
  async sweep(): Promise<number> {
    const cutoff = this.now() - this.limits.idleMs;
    const idle = [...this.sessions.values()].filter((e) => e.lastSeen <= cutoff).map((e) => e.session);
    for (const session of idle) this.sessions.delete(session.id);
    await Promise.all(idle.map((s) => s.close().catch(() => undefined)));
    return idle.length;
  }

  async closeAll(): Promise<void> {
    const all = [...this.sessions.values()].map((e) => e.session);
    this.sessions.clear();
    await Promise.all(all.map((s) => s.close().catch(() => undefined)));
  }
}
