import type { Principal } from '../../capabilities/authSession.ts';

/** The identity a session is bound to: a request of another user, environment, credential kind or scope set cannot use it. */
export function ownerOf(principal: Principal): string {
  return JSON.stringify([principal.environmentId, principal.kind, principal.userId, principal.scopes ? [...principal.scopes].sort() : null]);
}

export interface StoredSession {
  id: string;
  owner: string;
  close(): Promise<void>;
}

/**
 * Open MCP sessions of this process, each bound to its owner, bounded in number and closed when
 * idle. A lookup by a different owner answers nothing, exactly like an unknown id.
 */
export class SessionStore<S extends StoredSession> {
  private sessions = new Map<string, { session: S; lastSeen: number }>();

  constructor(private readonly max: number, private readonly idleMs: number, private readonly now: () => number = Date.now) {}

  get size(): number {
    return this.sessions.size;
  }

  full(): boolean {
    return this.sessions.size >= this.max;
  }

  add(session: S): void {
    this.sessions.set(session.id, { session, lastSeen: this.now() });
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
    const cutoff = this.now() - this.idleMs;
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
