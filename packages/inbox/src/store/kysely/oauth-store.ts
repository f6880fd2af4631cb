/** OAuthStore over Kysely (SQLite): rows in, rows out; the rules live in domain/access/oauth. */
import type { Kysely, Selectable } from 'kysely';
import type {
  OAuthClientRecord,
  OAuthCodeRecord,
  OAuthGrantRecord,
  OAuthGrantView,
  OAuthRequestRecord,
  OAuthStore,
  OAuthTokenKind,
  OAuthTokenRecord,
} from '../oauth-store.js';
import type { OAuthClientsTable, OAuthGrantsTable } from './oauth-schema.js';
import type { Database } from './schema.js';

const list = (text: string): string[] => JSON.parse(text) as string[];

function toClient(row: Selectable<OAuthClientsTable>): OAuthClientRecord {
  return {
    id: row.id,
    name: row.name,
    redirectUris: list(row.redirect_uris),
    grantTypes: list(row.grant_types),
    responseTypes: list(row.response_types),
    scope: row.scope,
    clientUri: row.client_uri,
    createdAt: Number(row.created_at),
  };
}

function toGrant(row: Selectable<OAuthGrantsTable>): OAuthGrantRecord {
  return {
    id: row.id,
    clientId: row.client_id,
    scopes: list(row.scopes),
    resource: row.resource,
    approvedByKeyId: row.approved_by_key_id,
    createdAt: Number(row.created_at),
    lastUsedAt: row.last_used_at === null ? null : Number(row.last_used_at),
    revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
    revokedReason: row.revoked_reason,
  };
}

export class KyselyOAuthStore implements OAuthStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async insertClient(c: OAuthClientRecord): Promise<void> {
    await this.#db
      .insertInto('oauth_clients')
      .values({
        id: c.id,
        name: c.name,
        redirect_uris: JSON.stringify(c.redirectUris),
        grant_types: JSON.stringify(c.grantTypes),
        response_types: JSON.stringify(c.responseTypes),
        scope: c.scope,
        client_uri: c.clientUri,
        created_at: c.createdAt,
      })
      .execute();
  }

  async getClient(id: string): Promise<OAuthClientRecord | null> {
    const row = await this.#db.selectFrom('oauth_clients').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toClient(row) : null;
  }

  async insertRequest(r: OAuthRequestRecord): Promise<void> {
    await this.#db
      .insertInto('oauth_requests')
      .values({
        id: r.id,
        csrf_hash: r.csrfHash,
        client_id: r.clientId,
        redirect_uri: r.redirectUri,
        scopes: JSON.stringify(r.scopes),
        state: r.state,
        code_challenge: r.codeChallenge,
        resource: r.resource,
        created_at: r.createdAt,
        expires_at: r.expiresAt,
        failed_attempts: r.failedAttempts,
        closed_at: r.closedAt,
      })
      .execute();
  }

  async getRequest(id: string): Promise<OAuthRequestRecord | null> {
    const row = await this.#db.selectFrom('oauth_requests').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) return null;
    return {
      id: row.id,
      csrfHash: row.csrf_hash,
      clientId: row.client_id,
      redirectUri: row.redirect_uri,
      scopes: list(row.scopes),
      state: row.state,
      codeChallenge: row.code_challenge,
      resource: row.resource,
      createdAt: Number(row.created_at),
      expiresAt: Number(row.expires_at),
      failedAttempts: row.failed_attempts,
      closedAt: row.closed_at === null ? null : Number(row.closed_at),
    };
  }

  async recordFailedAttempt(id: string): Promise<number> {
    await this.#db
      .updateTable('oauth_requests')
      .set((eb) => ({ failed_attempts: eb('failed_attempts', '+', 1) }))
      .where('id', '=', id)
      .execute();
    const row = await this.#db.selectFrom('oauth_requests').select('failed_attempts').where('id', '=', id).executeTakeFirst();
    return row?.failed_attempts ?? 0;
  }

  async closeRequest(id: string, nowMs: number): Promise<boolean> {
    const result = await this.#db
      .updateTable('oauth_requests')
      .set({ closed_at: nowMs })
      .where('id', '=', id)
      .where('closed_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async insertCode(c: OAuthCodeRecord): Promise<void> {
    await this.#db
      .insertInto('oauth_codes')
      .values({
        code_hash: c.codeHash,
        client_id: c.clientId,
        redirect_uri: c.redirectUri,
        scopes: JSON.stringify(c.scopes),
        code_challenge: c.codeChallenge,
        resource: c.resource,
        approved_by_key_id: c.approvedByKeyId,
        created_at: c.createdAt,
        expires_at: c.expiresAt,
        used_at: c.usedAt,
        grant_id: c.grantId,
      })
      .execute();
  }

  async getCode(codeHash: string): Promise<OAuthCodeRecord | null> {
    const row = await this.#db.selectFrom('oauth_codes').selectAll().where('code_hash', '=', codeHash).executeTakeFirst();
    if (!row) return null;
    return {
      codeHash: row.code_hash,
      clientId: row.client_id,
      redirectUri: row.redirect_uri,
      scopes: list(row.scopes),
      codeChallenge: row.code_challenge,
      resource: row.resource,
      approvedByKeyId: row.approved_by_key_id,
      createdAt: Number(row.created_at),
      expiresAt: Number(row.expires_at),
      usedAt: row.used_at === null ? null : Number(row.used_at),
      grantId: row.grant_id,
    };
  }

  async useCode(codeHash: string, grantId: string, nowMs: number): Promise<boolean> {
    const result = await this.#db
      .updateTable('oauth_codes')
      .set({ used_at: nowMs, grant_id: grantId })
      .where('code_hash', '=', codeHash)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async insertGrant(g: OAuthGrantRecord): Promise<void> {
    await this.#db
      .insertInto('oauth_grants')
      .values({
        id: g.id,
        client_id: g.clientId,
        scopes: JSON.stringify(g.scopes),
        resource: g.resource,
        approved_by_key_id: g.approvedByKeyId,
        created_at: g.createdAt,
        last_used_at: g.lastUsedAt,
        revoked_at: g.revokedAt,
        revoked_reason: g.revokedReason,
      })
      .execute();
  }

  async getGrant(id: string): Promise<OAuthGrantView | null> {
    const grant = await this.#db.selectFrom('oauth_grants').selectAll().where('id', '=', id).executeTakeFirst();
    if (!grant) return null;
    const client = await this.getClient(grant.client_id);
    return client ? { ...toGrant(grant), client } : null;
  }

  async listGrants(options: { after?: string | undefined; limit: number; includeRevoked: boolean }): Promise<OAuthGrantView[]> {
    let query = this.#db.selectFrom('oauth_grants').selectAll().orderBy('id', 'desc').limit(options.limit);
    if (options.after !== undefined) query = query.where('id', '<', options.after);
    if (!options.includeRevoked) query = query.where('revoked_at', 'is', null);
    const grants = await query.execute();
    const clientIds = [...new Set(grants.map((g) => g.client_id))];
    const clients =
      clientIds.length === 0 ? [] : await this.#db.selectFrom('oauth_clients').selectAll().where('id', 'in', clientIds).execute();
    const byId = new Map(clients.map((c) => [c.id, toClient(c)]));
    return grants.flatMap((g) => {
      const client = byId.get(g.client_id);
      return client ? [{ ...toGrant(g), client }] : [];
    });
  }

  async activeGrantIdsOfClient(clientId: string): Promise<string[]> {
    const rows = await this.#db
      .selectFrom('oauth_grants')
      .select('id')
      .where('client_id', '=', clientId)
      .where('revoked_at', 'is', null)
      .execute();
    return rows.map((r) => r.id);
  }

  async revokeGrant(id: string, reason: string, nowMs: number): Promise<boolean> {
    const result = await this.#db
      .updateTable('oauth_grants')
      .set({ revoked_at: nowMs, revoked_reason: reason })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async revokeGrantsNotFor(resource: string, nowMs: number): Promise<number> {
    const result = await this.#db
      .updateTable('oauth_grants')
      .set({ revoked_at: nowMs, revoked_reason: 'resource_changed' })
      .where('resource', '!=', resource)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  async touchGrant(id: string, nowMs: number): Promise<void> {
    await this.#db.updateTable('oauth_grants').set({ last_used_at: nowMs }).where('id', '=', id).execute();
  }

  async insertToken(t: OAuthTokenRecord): Promise<void> {
    await this.#db
      .insertInto('oauth_tokens')
      .values({
        token_hash: t.tokenHash,
        grant_id: t.grantId,
        kind: t.kind,
        scopes: JSON.stringify(t.scopes),
        created_at: t.createdAt,
        expires_at: t.expiresAt,
        used_at: t.usedAt,
      })
      .execute();
  }

  async findToken(tokenHash: string): Promise<{ token: OAuthTokenRecord; grant: OAuthGrantView } | null> {
    const row = await this.#db.selectFrom('oauth_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
    if (!row) return null;
    const grant = await this.getGrant(row.grant_id);
    if (!grant) return null;
    return {
      token: {
        tokenHash: row.token_hash,
        grantId: row.grant_id,
        kind: row.kind as OAuthTokenKind,
        scopes: list(row.scopes),
        createdAt: Number(row.created_at),
        expiresAt: Number(row.expires_at),
        usedAt: row.used_at === null ? null : Number(row.used_at),
      },
      grant,
    };
  }

  async useRefreshToken(tokenHash: string, nowMs: number): Promise<boolean> {
    const result = await this.#db
      .updateTable('oauth_tokens')
      .set({ used_at: nowMs })
      .where('token_hash', '=', tokenHash)
      .where('kind', '=', 'refresh')
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async prune(nowMs: number, unusedClientBeforeMs: number): Promise<void> {
    await this.#db.deleteFrom('oauth_requests').where('expires_at', '<=', nowMs).execute();
    await this.#db.deleteFrom('oauth_codes').where('expires_at', '<=', nowMs).execute();
    // A used refresh token is kept until it expires, so its reuse is still recognised as theft.
    await this.#db.deleteFrom('oauth_tokens').where('expires_at', '<=', nowMs).execute();
    await this.#db
      .deleteFrom('oauth_clients')
      .where('created_at', '<', unusedClientBeforeMs)
      .where(({ not, exists, selectFrom }) => not(exists(selectFrom('oauth_grants').select('id').whereRef('oauth_grants.client_id', '=', 'oauth_clients.id'))))
      .where(({ not, exists, selectFrom }) => not(exists(selectFrom('oauth_requests').select('id').whereRef('oauth_requests.client_id', '=', 'oauth_clients.id'))))
      .where(({ not, exists, selectFrom }) => not(exists(selectFrom('oauth_codes').select('code_hash').whereRef('oauth_codes.client_id', '=', 'oauth_clients.id'))))
      .execute();
  }
}
