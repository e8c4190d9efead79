import type { AuthDatabase } from '../openAuthDatabase.ts';

/** Table of the authorization server's state: clients, grants, codes, tokens, interactions, sessions. */
export const OAUTH_TABLE = 'sys_oauth_store';

type Payload = Record<string, unknown> & { grantId?: string; uid?: string; userCode?: string; consumed?: number };

/** Expired rows are swept at most this often, by the write that finds the time has come. */
const SWEEP_EVERY_MS = 60_000;

export async function createOAuthTable(database: AuthDatabase): Promise<void> {
  const big = database.dialect === 'postgres' ? 'bigint' : 'integer';
  await database.query(`create table if not exists ${OAUTH_TABLE} (
    model varchar(40) not null, id varchar(255) not null, payload text not null,
    grant_id varchar(255), uid varchar(255), user_code varchar(255), expires_at ${big},
    primary key (model, id))`);
  await database.query(`create index if not exists ${OAUTH_TABLE}_grant on ${OAUTH_TABLE} (grant_id)`);
  await database.query(`create index if not exists ${OAUTH_TABLE}_uid on ${OAUTH_TABLE} (model, uid)`);
}

/**
 * The storage adapter the authorization server asks for (one instance per model name): rows in the
 * environment's identity database, so codes and tokens survive restarts and are shared by every
 * process of the environment. Expired rows are never answered.
 */
export function oauthAdapter(database: AuthDatabase, now: () => number = Date.now) {
  let sweptAt = 0;
  const live = (row: Record<string, unknown> | undefined): Payload | undefined => {
    if (!row) return undefined;
    const expires = row.expires_at === null || row.expires_at === undefined ? null : Number(row.expires_at);
    if (expires !== null && expires <= now()) return undefined;
    return JSON.parse(String(row.payload)) as Payload;
  };
  return class OAuthStore {
    constructor(private readonly model: string) {}

    async upsert(id: string, payload: Payload, expiresIn?: number): Promise<void> {
      const expires = expiresIn ? now() + expiresIn * 1000 : null;
      await database.query(
        `insert into ${OAUTH_TABLE} (model, id, payload, grant_id, uid, user_code, expires_at) values (?, ?, ?, ?, ?, ?, ?)
         on conflict (model, id) do update set payload = excluded.payload, grant_id = excluded.grant_id, uid = excluded.uid, user_code = excluded.user_code, expires_at = excluded.expires_at`,
        [this.model, id, JSON.stringify(payload), payload.grantId ?? null, payload.uid ?? null, payload.userCode ?? null, expires],
      );
      if (now() - sweptAt > SWEEP_EVERY_MS) {
        sweptAt = now();
        await database.query(`delete from ${OAUTH_TABLE} where expires_at is not null and expires_at <= ?`, [now()]);
      }
    }

    async find(id: string): Promise<Payload | undefined> {
      return live((await database.query(`select payload, expires_at from ${OAUTH_TABLE} where model = ? and id = ?`, [this.model, id]))[0]);
    }

    async findByUid(uid: string): Promise<Payload | undefined> {
      return live((await database.query(`select payload, expires_at from ${OAUTH_TABLE} where model = ? and uid = ?`, [this.model, uid]))[0]);
    }

    async findByUserCode(userCode: string): Promise<Payload | undefined> {
      return live((await database.query(`select payload, expires_at from ${OAUTH_TABLE} where model = ? and user_code = ?`, [this.model, userCode]))[0]);
    }

    /** Marks a one-time artifact (an authorization code) used; the server refuses it from then on. */
    async consume(id: string): Promise<void> {
      const found = await this.find(id);
      if (!found) return;
      await database.query(`update ${OAUTH_TABLE} set payload = ? where model = ? and id = ?`, [JSON.stringify({ ...found, consumed: Math.floor(now() / 1000) }), this.model, id]);
    }

    async destroy(id: string): Promise<void> {
      await database.query(`delete from ${OAUTH_TABLE} where model = ? and id = ?`, [this.model, id]);
    }

    /** A revoked grant takes every code and token issued under it along. */
    async revokeByGrantId(grantId: string): Promise<void> {
      await database.query(`delete from ${OAUTH_TABLE} where grant_id = ?`, [grantId]);
    }
  };
}
