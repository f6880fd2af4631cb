/** OAuth 2.1 for the owner's MCP (docs/oauth.md): clients, consent requests, codes, grants, tokens. */
import { columnTypes } from '@svc/shared';
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable('oauth_clients')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('name', t.text)
    .addColumn('redirect_uris', t.text, (c) => c.notNull())
    .addColumn('grant_types', t.text, (c) => c.notNull())
    .addColumn('response_types', t.text, (c) => c.notNull())
    .addColumn('scope', t.text)
    .addColumn('client_uri', t.text)
    .addColumn('created_at', t.bigint, (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('oauth_requests')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('csrf_hash', t.text, (c) => c.notNull())
    .addColumn('client_id', t.text, (c) => c.notNull().references('oauth_clients.id').onDelete('cascade'))
    .addColumn('redirect_uri', t.text, (c) => c.notNull())
    .addColumn('scopes', t.text, (c) => c.notNull())
    .addColumn('state', t.text)
    .addColumn('code_challenge', t.text, (c) => c.notNull())
    .addColumn('resource', t.text, (c) => c.notNull())
    .addColumn('created_at', t.bigint, (c) => c.notNull())
    .addColumn('expires_at', t.bigint, (c) => c.notNull())
    .addColumn('failed_attempts', t.integer, (c) => c.notNull().defaultTo(0))
    .addColumn('closed_at', t.bigint)
    .execute();
  await db.schema
    .createTable('oauth_grants')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('client_id', t.text, (c) => c.notNull().references('oauth_clients.id'))
    .addColumn('scopes', t.text, (c) => c.notNull())
    .addColumn('resource', t.text, (c) => c.notNull())
    .addColumn('approved_by_key_id', t.text, (c) => c.notNull())
    .addColumn('created_at', t.bigint, (c) => c.notNull())
    .addColumn('last_used_at', t.bigint)
    .addColumn('revoked_at', t.bigint)
    .addColumn('revoked_reason', t.text)
    .execute();
  await db.schema.createIndex('oauth_grants_client').on('oauth_grants').columns(['client_id', 'revoked_at']).execute();
  await db.schema
    .createTable('oauth_codes')
    .addColumn('code_hash', t.text, (c) => c.primaryKey())
    .addColumn('client_id', t.text, (c) => c.notNull().references('oauth_clients.id').onDelete('cascade'))
    .addColumn('redirect_uri', t.text, (c) => c.notNull())
    .addColumn('scopes', t.text, (c) => c.notNull())
    .addColumn('code_challenge', t.text, (c) => c.notNull())
    .addColumn('resource', t.text, (c) => c.notNull())
    .addColumn('approved_by_key_id', t.text, (c) => c.notNull())
    .addColumn('created_at', t.bigint, (c) => c.notNull())
    .addColumn('expires_at', t.bigint, (c) => c.notNull())
    .addColumn('used_at', t.bigint)
    .addColumn('grant_id', t.text)
    .execute();
  await db.schema
    .createTable('oauth_tokens')
    .addColumn('token_hash', t.text, (c) => c.primaryKey())
    .addColumn('grant_id', t.text, (c) => c.notNull().references('oauth_grants.id').onDelete('cascade'))
    .addColumn('kind', t.text, (c) => c.notNull())
    .addColumn('scopes', t.text, (c) => c.notNull())
    .addColumn('created_at', t.bigint, (c) => c.notNull())
    .addColumn('expires_at', t.bigint, (c) => c.notNull())
    .addColumn('used_at', t.bigint)
    .execute();
  await db.schema.createIndex('oauth_tokens_expiry').on('oauth_tokens').column('expires_at').execute();
}
