/** Owner app sessions in SQLite (table owner_sessions, migration 0016). */
import type { Kysely, Selectable } from 'kysely';
import type { OwnerSessionRecord, OwnerSessionStore } from '../owner-session-store.js';
import type { Database, OwnerSessionsTable } from './schema.js';

export class KyselyOwnerSessionStore implements OwnerSessionStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async insert(s: OwnerSessionRecord): Promise<void> {
    await this.#db
      .insertInto('owner_sessions')
      .values({
        token_hash: s.tokenHash,
        key_id: s.keyId,
        created_at: s.createdAt,
        last_seen_at: s.lastSeenAt,
        expires_at: s.expiresAt,
        user_agent: s.userAgent,
      })
      .execute();
  }

  async find(tokenHash: string): Promise<OwnerSessionRecord | null> {
    const row = await this.#db.selectFrom('owner_sessions').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
    return row ? toRecord(row) : null;
  }

  async touch(tokenHash: string, nowMs: number): Promise<void> {
    await this.#db.updateTable('owner_sessions').set({ last_seen_at: nowMs }).where('token_hash', '=', tokenHash).execute();
  }

  async delete(tokenHash: string): Promise<void> {
    await this.#db.deleteFrom('owner_sessions').where('token_hash', '=', tokenHash).execute();
  }

  async deleteAll(): Promise<number> {
    const result = await this.#db.deleteFrom('owner_sessions').executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async prune(nowMs: number, idleBeforeMs: number): Promise<number> {
    const result = await this.#db
      .deleteFrom('owner_sessions')
      .where((eb) => eb.or([eb('expires_at', '<=', nowMs), eb('last_seen_at', '<', idleBeforeMs)]))
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async count(): Promise<number> {
    const row = await this.#db.selectFrom('owner_sessions').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return Number(row.n);
  }
}

function toRecord(row: Selectable<OwnerSessionsTable>): OwnerSessionRecord {
  return {
    tokenHash: row.token_hash,
    keyId: row.key_id,
    createdAt: Number(row.created_at),
    lastSeenAt: Number(row.last_seen_at),
    expiresAt: Number(row.expires_at),
    userAgent: row.user_agent,
  };
}
