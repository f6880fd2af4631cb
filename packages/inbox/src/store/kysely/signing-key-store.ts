/** Signing keys and instance secrets in SQLite. */
import type { Kysely, Selectable } from 'kysely';
import type { Ed25519PublicJwk } from '@svc/shared';
import type { SigningKeyRecord, SigningKeyStore } from '../signing-key-store.js';
import type { SigningKeysTable } from './receipt-tables.js';
import type { Database } from './schema.js';

export class KyselySigningKeyStore implements SigningKeyStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async list(): Promise<SigningKeyRecord[]> {
    const rows = await this.#db.selectFrom('signing_keys').selectAll().execute();
    return rows.map(toRecord).sort((a, b) => (a.retiredAt === null ? -1 : b.retiredAt === null ? 1 : b.createdAt - a.createdAt || (a.kid < b.kid ? -1 : 1)));
  }

  async active(): Promise<SigningKeyRecord | null> {
    const row = await this.#db
      .selectFrom('signing_keys')
      .selectAll()
      .where('retired_at', 'is', null)
      .orderBy('created_at', 'desc')
      .orderBy('kid')
      .limit(1)
      .executeTakeFirst();
    return row ? toRecord(row) : null;
  }

  async insert(key: SigningKeyRecord): Promise<void> {
    await this.#db
      .insertInto('signing_keys')
      .values({
        kid: key.kid,
        public_jwk: JSON.stringify(key.publicJwk),
        sealed_private: key.sealedPrivate,
        created_at: key.createdAt,
        retired_at: key.retiredAt,
      })
      .execute();
  }

  async retire(kid: string, atMs: number): Promise<boolean> {
    const result = await this.#db.updateTable('signing_keys').set({ retired_at: atMs }).where('kid', '=', kid).where('retired_at', 'is', null).executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async getSecret(name: string): Promise<string | null> {
    const row = await this.#db.selectFrom('instance_secrets').select('sealed').where('name', '=', name).executeTakeFirst();
    return row?.sealed ?? null;
  }

  async addSecret(name: string, sealed: string, atMs: number): Promise<boolean> {
    const result = await this.#db
      .insertInto('instance_secrets')
      .values({ name, sealed, created_at: atMs })
      .onConflict((oc) => oc.column('name').doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  async replaceSecret(name: string, sealed: string, atMs: number): Promise<void> {
    await this.#db
      .insertInto('instance_secrets')
      .values({ name, sealed, created_at: atMs })
      .onConflict((oc) => oc.column('name').doUpdateSet({ sealed, created_at: atMs }))
      .execute();
  }
}

function toRecord(row: Selectable<SigningKeysTable>): SigningKeyRecord {
  return {
    kid: row.kid,
    publicJwk: JSON.parse(row.public_jwk) as Ed25519PublicJwk,
    sealedPrivate: row.sealed_private,
    createdAt: Number(row.created_at),
    retiredAt: row.retired_at === null ? null : Number(row.retired_at),
  };
}
