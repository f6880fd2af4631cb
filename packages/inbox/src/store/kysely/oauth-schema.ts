/** Table shapes of OAuth 2.1 (migration 0005-oauth); lists are JSON TEXT, times milliseconds. */

export interface OAuthClientsTable {
  id: string;
  name: string | null;
  redirect_uris: string; // JSON array
  grant_types: string; // JSON array
  response_types: string; // JSON array
  scope: string | null;
  client_uri: string | null;
  created_at: number;
}

export interface OAuthRequestsTable {
  id: string;
  csrf_hash: string;
  client_id: string;
  redirect_uri: string;
  scopes: string; // JSON array
  state: string | null;
  code_challenge: string;
  resource: string;
  created_at: number;
  expires_at: number;
  failed_attempts: number;
  closed_at: number | null;
}

export interface OAuthGrantsTable {
  id: string;
  client_id: string;
  scopes: string; // JSON array
  resource: string;
  approved_by_key_id: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
  revoked_reason: string | null;
}

export interface OAuthCodesTable {
  code_hash: string;
  client_id: string;
  redirect_uri: string;
  scopes: string; // JSON array
  code_challenge: string;
  resource: string;
  approved_by_key_id: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
  grant_id: string | null;
}

export interface OAuthTokensTable {
  token_hash: string;
  grant_id: string;
  kind: string; // access | refresh
  scopes: string; // JSON array
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface OAuthTables {
  oauth_clients: OAuthClientsTable;
  oauth_requests: OAuthRequestsTable;
  oauth_grants: OAuthGrantsTable;
  oauth_codes: OAuthCodesTable;
  oauth_tokens: OAuthTokensTable;
}
