/** Idempotency answers, API keys, durable jobs and versioned documents (SQLite or PostgreSQL). */
import { WriteConflict, compileOnce, conditionalWriteMissed } from '@svc/shared';
import type { Kysely, Selectable } from 'kysely';
import type { ActorKind } from '../../domain/types.js';
import type {
  AnswerToStore,
  ApiKeyRecord,
  ApiKeyStore,
  DocumentCodec,
  DocumentStore,
  IdempotencyStore,
  PageRequest,
  ScopeMissEvent,
  ScopeMissRecord,
  StoredAnswer,
  VersionedDocument,
} from '../store.js';
import type { ApiKeysTable, Database, IdempotencyKeysTable } from './schema.js';

// Read on every create and move (the profile, the settings, the idempotency key, the caller's key): compiled once.
const documentOf = {
  business: compileOnce((db: Kysely<Database>) => db.selectFrom('business').select(['document', 'version']).where('id', '=', 'self')),
  settings: compileOnce((db: Kysely<Database>) => db.selectFrom('settings').select(['document', 'version']).where('id', '=', 'self')),
};
const findIdempotencyKey = compileOnce((db: Kysely<Database>, p: { scopeKey: string; nowMs: number }) =>
  db.selectFrom('idempotency_keys').selectAll().where('scope_key', '=', p.scopeKey).where('expires_at', '>', p.nowMs),
);
const saveIdempotencyKey = compileOnce((db: Kysely<Database>, row: IdempotencyKeysTable) => {
  const values = { scope_key: row.scope_key, request_hash: row.request_hash, status: row.status, response: row.response, created_at: row.created_at, expires_at: row.expires_at };
  // An expired row with the same key is replaced (its expiry is before this answer's making); a live one changes nothing (save says why).
  // The update takes the row as proposed (excluded), so the answer, the largest value, is sent once.
  return db
    .insertInto('idempotency_keys')
    .values(values)
    .onConflict((oc) =>
      oc
        .column('scope_key')
        .doUpdateSet((eb) => ({
          request_hash: eb.ref('excluded.request_hash'),
          status: eb.ref('excluded.status'),
          response: eb.ref('excluded.response'),
          created_at: eb.ref('excluded.created_at'),
          expires_at: eb.ref('excluded.expires_at'),
        }))
        .where('idempotency_keys.expires_at', '<=', row.created_at),
    );
});
const keyByHash = compileOnce((db: Kysely<Database>, p: { hash: string }) => db.selectFrom('api_keys').selectAll().where('key_hash', '=', p.hash));
const touchKey = compileOnce((db: Kysely<Database>, p: { id: string; nowMs: number }) => db.updateTable('api_keys').set({ last_used_at: p.nowMs }).where('id', '=', p.id));

export class KyselyDocumentStore implements DocumentStore {
  readonly #db: Kysely<Database>;
  readonly #table: 'business' | 'settings';
  readonly #codec: DocumentCodec | null;
  constructor(db: Kysely<Database>, table: 'business' | 'settings', codec: DocumentCodec | null = null) {
    this.#db = db;
    this.#table = table;
    this.#codec = codec;
  }

  async get(): Promise<VersionedDocument | null> {
    const row = await documentOf[this.#table].first(this.#db, {});
    if (!row) return null;
    const stored = JSON.parse(row.document) as Record<string, unknown>;
    if (!this.#codec) return { document: stored, version: row.version };
    const { document, outdated } = this.#codec.fromStored(stored);
    if (outdated) {
      // Kept the old way (a secret in clear, from before sealing): written again in the new form, same version.
      await this.#db
        .updateTable(this.#table)
        .set({ document: JSON.stringify(this.#codec.toStored(document)) })
        .where('id', '=', 'self')
        .where('version', '=', row.version)
        .execute();
    }
    return { document, version: row.version };
  }

  async put(document: Record<string, unknown>, expectedVersion: number | null, nowMs: number): Promise<boolean> {
    const text = JSON.stringify(this.#codec ? this.#codec.toStored(document) : document);
    if (expectedVersion === null) {
      const result = await this.#db
        .insertInto(this.#table)
        .values({ id: 'self', document: text, version: 1, updated_at: nowMs })
        .onConflict((oc) => oc.column('id').doNothing())
        .executeTakeFirst();
      if (Number(result.numInsertedOrUpdatedRows ?? 0) === 1) return true;
      conditionalWriteMissed(this.#db, `the ${this.#table} document was made meanwhile`);
      return false;
    }
    const result = await this.#db
      .updateTable(this.#table)
      .set({ document: text, version: expectedVersion + 1, updated_at: nowMs })
      .where('id', '=', 'self')
      .where('version', '=', expectedVersion)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 1) return true;
    conditionalWriteMissed(this.#db, `the ${this.#table} document moved on from version ${expectedVersion} meanwhile`);
    return false;
  }
}

export class KyselyIdempotencyStore implements IdempotencyStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async find(scopeKey: string, nowMs: number): Promise<StoredAnswer | null> {
    const row = await findIdempotencyKey.first(this.#db, { scopeKey, nowMs });
    return row ? { requestHash: row.request_hash, status: row.status, response: JSON.parse(row.response) } : null;
  }

  async save(scopeKey: string, answer: AnswerToStore, nowMs: number, keepMs: number): Promise<void> {
    const stored = await saveIdempotencyKey.run(this.#db, {
      scope_key: scopeKey,
      request_hash: answer.requestHash,
      status: answer.status,
      response: answer.responseJson,
      created_at: nowMs,
      expires_at: nowMs + keepMs,
    });
    // An expired row with the same key is replaced. A live one means another transaction stored an
    // answer under this key after this one looked (PostgreSQL: several processes write at once; the
    // unique key made this INSERT wait for it): this one lost, is rolled back and runs again, and
    // then replays that answer. On SQLite the one writer never gets here.
    if (stored !== 1) throw new WriteConflict('an answer was stored under this idempotency key meanwhile');
  }

  async prune(nowMs: number): Promise<number> {
    const result = await this.#db.deleteFrom('idempotency_keys').where('expires_at', '<=', nowMs).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

export class KyselyApiKeyStore implements ApiKeyStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async insert(k: ApiKeyRecord): Promise<void> {
    await this.#db
      .insertInto('api_keys')
      .values({
        id: k.id,
        name: k.name,
        kind: k.kind,
        preset: k.preset,
        scopes: JSON.stringify(k.scopes),
        key_hash: k.keyHash,
        key_hint: k.keyHint,
        created_by_kind: k.createdByKind,
        created_at: k.createdAt,
        expires_at: k.expiresAt,
        revoked_at: k.revokedAt,
        last_used_at: k.lastUsedAt,
      })
      .execute();
  }

  async findByHash(hash: string): Promise<ApiKeyRecord | null> {
    const row = await keyByHash.first(this.#db, { hash });
    return row ? toKey(row) : null;
  }

  async list(): Promise<ApiKeyRecord[]> {
    return (await this.#db.selectFrom('api_keys').selectAll().orderBy('id').execute()).map(toKey);
  }

  async countActive(kind: ApiKeyRecord['kind'], nowMs: number): Promise<number> {
    const row = await this.#db
      .selectFrom('api_keys')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('kind', '=', kind)
      .where('revoked_at', 'is', null)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', nowMs)]))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async touch(id: string, nowMs: number): Promise<void> {
    await touchKey.run(this.#db, { id, nowMs });
  }

  async revoke(id: string, nowMs: number): Promise<boolean> {
    const result = await this.#db
      .updateTable('api_keys')
      .set({ revoked_at: nowMs })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async get(id: string): Promise<ApiKeyRecord | null> {
    const row = await this.#db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toKey(row) : null;
  }

  async listPage(page: PageRequest): Promise<ApiKeyRecord[]> {
    let query = this.#db.selectFrom('api_keys').selectAll().orderBy('id', 'desc').limit(page.limit);
    if (page.after !== undefined) query = query.where('id', '<', page.after);
    return (await query.execute()).map(toKey);
  }

  async recordScopeMiss(miss: ScopeMissEvent): Promise<void> {
    const refused = miss.refused ? 1 : 0;
    await this.#db
      .insertInto('scope_misses')
      .values({
        principal_id: miss.principalId,
        principal_kind: miss.principalKind,
        operation: miss.operation,
        scope: miss.scope,
        calls: 1,
        refused,
        first_at: miss.atMs,
        last_at: miss.atMs,
      })
      .onConflict((oc) =>
        oc.columns(['principal_id', 'operation', 'scope']).doUpdateSet((eb) => ({
          calls: eb('scope_misses.calls', '+', 1),
          refused: eb('scope_misses.refused', '+', refused),
          last_at: miss.atMs,
        })),
      )
      .execute();
  }

  async listScopeMisses(principalIds: readonly string[]): Promise<ScopeMissRecord[]> {
    if (principalIds.length === 0) return [];
    const rows = await this.#db
      .selectFrom('scope_misses')
      .selectAll()
      .where('principal_id', 'in', [...principalIds])
      .orderBy('last_at', 'desc')
      .orderBy('operation')
      .execute();
    return rows.map((r) => ({
      principalId: r.principal_id,
      principalKind: r.principal_kind as ActorKind,
      operation: r.operation,
      scope: r.scope,
      calls: Number(r.calls),
      refused: Number(r.refused),
      firstAt: Number(r.first_at),
      lastAt: Number(r.last_at),
    }));
  }
}

function toKey(r: Selectable<ApiKeysTable>): ApiKeyRecord {
  return {
    id: r.id,
    name: r.name,
    kind: r.kind as ApiKeyRecord['kind'],
    preset: r.preset,
    scopes: JSON.parse(r.scopes) as string[],
    keyHash: r.key_hash,
    keyHint: r.key_hint,
    createdByKind: r.created_by_kind as ActorKind,
    createdAt: Number(r.created_at),
    expiresAt: r.expires_at === null ? null : Number(r.expires_at),
    revokedAt: r.revoked_at === null ? null : Number(r.revoked_at),
    lastUsedAt: r.last_used_at === null ? null : Number(r.last_used_at),
  };
}
