/**
 * The token endpoint (RFC 6749 §4.1.3, §6; OAuth 2.1): authorization_code with the PKCE verifier,
 * and refresh_token with rotation. Clients are public: they name themselves with client_id (in the
 * body, or as the user of an HTTP Basic header with an empty password). Codes are single-use; a
 * code or a rotated refresh token presented again revokes the grant it made, since only a thief
 * would hold a second copy (OAuth 2.1 §4.3.1, RFC 9700 §4.14.2).
 */
import { newId, randomToken, sha256Hex } from '@svc/shared';
import type { OAuthClientRecord, OAuthStore } from '../../../store/oauth-store.js';
import { checkResource, optionalParam, requiredParam, type OAuthParams } from './form-params.js';
import { OAuthError } from './oauth-error.js';
import { ACCESS_TOKEN_LIFE_MS, ACCESS_TOKEN_PREFIX, REFRESH_TOKEN_LIFE_MS, REFRESH_TOKEN_PREFIX } from './oauth-limits.js';
import type { OAuthEndpoints } from './oauth-metadata.js';
import { CODE_VERIFIER_PATTERN, verifierMatches } from './pkce.js';
import { formatScope, parseScope } from './scopes.js';

export interface TokenAnswer {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

/** A refusal that may carry writes that must stay (a revoked grant), so it is returned, not thrown. */
export type TokenOutcome = { ok: true; answer: TokenAnswer } | { ok: false; error: OAuthError };

export async function exchangeToken(
  store: OAuthStore,
  endpoints: OAuthEndpoints,
  params: OAuthParams,
  basicClientId: string | undefined,
  nowMs: number,
): Promise<TokenOutcome> {
  try {
    const grantType = requiredParam(params, 'grant_type');
    const client = await resolveClient(store, params, basicClientId);
    if (grantType === 'authorization_code') return { ok: true, answer: await redeemCode(store, endpoints, client, params, nowMs) };
    if (grantType === 'refresh_token') return { ok: true, answer: await rotateRefreshToken(store, endpoints, client, params, nowMs) };
    throw new OAuthError('unsupported_grant_type', 'grant_type must be authorization_code or refresh_token.');
  } catch (error) {
    if (error instanceof OAuthError) return { ok: false, error };
    throw error;
  }
}

export async function resolveClient(store: OAuthStore, params: OAuthParams, basicClientId: string | undefined): Promise<OAuthClientRecord> {
  const bodyClientId = optionalParam(params, 'client_id');
  if (basicClientId !== undefined && bodyClientId !== undefined && basicClientId !== bodyClientId) {
    throw new OAuthError('invalid_request', 'client_id differs between the Authorization header and the body.');
  }
  const clientId = basicClientId ?? bodyClientId;
  if (clientId === undefined) throw new OAuthError('invalid_client', 'Name the client with client_id; clients here are public and use no secret.');
  const client = await store.getClient(clientId);
  if (!client) throw new OAuthError('invalid_client', 'Unknown client_id; register the client first.');
  return client;
}

async function redeemCode(store: OAuthStore, endpoints: OAuthEndpoints, client: OAuthClientRecord, params: OAuthParams, nowMs: number): Promise<TokenAnswer> {
  const code = requiredParam(params, 'code');
  const verifier = optionalParam(params, 'code_verifier');
  if (verifier === undefined) throw new OAuthError('invalid_request', 'code_verifier is missing (PKCE is required).');
  if (!CODE_VERIFIER_PATTERN.test(verifier)) throw new OAuthError('invalid_request', 'code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~.');
  const redirectUri = requiredParam(params, 'redirect_uri');
  checkResource(params, endpoints.resource);

  const stored = await store.getCode(sha256Hex(code));
  const refused = new OAuthError('invalid_grant', 'The code is unknown, used, expired, or was issued to another client or redirect URI.');
  if (!stored || stored.clientId !== client.id) throw refused;
  if (stored.usedAt !== null) {
    if (stored.grantId !== null) await store.revokeGrant(stored.grantId, 'code_reuse', nowMs);
    throw new OAuthError('invalid_grant', 'The code was used already; the access it gave is revoked.');
  }
  if (stored.expiresAt <= nowMs) throw new OAuthError('invalid_grant', 'The code expired; start the authorization again.');
  if (stored.redirectUri !== redirectUri) throw new OAuthError('invalid_grant', 'redirect_uri differs from the one of the authorization request.');
  if (!verifierMatches(verifier, stored.codeChallenge)) throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge.');
  checkResource(params, stored.resource);

  const grantId = newId(nowMs);
  if (!(await store.useCode(stored.codeHash, grantId, nowMs))) throw new OAuthError('invalid_grant', 'The code was used already.');
  // One connection per app: a new consent replaces the app's earlier one.
  for (const earlier of await store.activeGrantIdsOfClient(client.id)) await store.revokeGrant(earlier, 'superseded', nowMs);
  await store.insertGrant({
    id: grantId,
    clientId: client.id,
    scopes: stored.scopes,
    resource: stored.resource,
    approvedByKeyId: stored.approvedByKeyId,
    createdAt: nowMs,
    lastUsedAt: null,
    revokedAt: null,
    revokedReason: null,
  });
  return issueTokens(store, grantId, stored.scopes, stored.scopes, nowMs);
}

async function rotateRefreshToken(
  store: OAuthStore,
  endpoints: OAuthEndpoints,
  client: OAuthClientRecord,
  params: OAuthParams,
  nowMs: number,
): Promise<TokenAnswer> {
  const value = requiredParam(params, 'refresh_token');
  checkResource(params, endpoints.resource);
  const found = value.startsWith(REFRESH_TOKEN_PREFIX) ? await store.findToken(sha256Hex(value)) : null;
  const refused = new OAuthError('invalid_grant', 'The refresh token is unknown, revoked, expired, or was issued to another client.');
  if (!found || found.token.kind !== 'refresh' || found.grant.clientId !== client.id) throw refused;
  const { token, grant } = found;
  if (grant.revokedAt !== null) throw refused;
  const reused = new OAuthError('invalid_grant', 'The refresh token was used already; the access it gave is revoked. Connect the app again.');
  if (token.usedAt !== null) {
    await store.revokeGrant(grant.id, 'refresh_reuse', nowMs);
    throw reused;
  }
  if (token.expiresAt <= nowMs) throw new OAuthError('invalid_grant', 'The refresh token expired; connect the app again.');
  checkResource(params, grant.resource);
  const asked = optionalParam(params, 'scope');
  const accessScopes = asked === undefined ? token.scopes : parseScope(asked);
  const beyond = accessScopes.filter((s) => !token.scopes.includes(s));
  if (beyond.length > 0) throw new OAuthError('invalid_scope', `The grant does not include ${beyond.join(', ')}.`);
  if (accessScopes.length === 0) throw new OAuthError('invalid_scope', 'scope names no scope.');

  // Only a request that passed every check spends the token; losing the race to a twin is reuse.
  if (!(await store.useRefreshToken(token.tokenHash, nowMs))) {
    await store.revokeGrant(grant.id, 'refresh_reuse', nowMs);
    throw reused;
  }
  // The new refresh token carries the grant's scopes unchanged (RFC 6749 §6); only the access token narrows.
  return issueTokens(store, grant.id, accessScopes, token.scopes, nowMs);
}

async function issueTokens(
  store: OAuthStore,
  grantId: string,
  accessScopes: readonly string[],
  refreshScopes: readonly string[],
  nowMs: number,
): Promise<TokenAnswer> {
  const access = `${ACCESS_TOKEN_PREFIX}${randomToken(32)}`;
  const refresh = `${REFRESH_TOKEN_PREFIX}${randomToken(32)}`;
  await store.insertToken({
    tokenHash: sha256Hex(access),
    grantId,
    kind: 'access',
    scopes: [...accessScopes],
    createdAt: nowMs,
    expiresAt: nowMs + ACCESS_TOKEN_LIFE_MS,
    usedAt: null,
  });
  await store.insertToken({
    tokenHash: sha256Hex(refresh),
    grantId,
    kind: 'refresh',
    scopes: [...refreshScopes],
    createdAt: nowMs,
    expiresAt: nowMs + REFRESH_TOKEN_LIFE_MS,
    usedAt: null,
  });
  return {
    access_token: access,
    token_type: 'Bearer',
    expires_in: Math.floor(ACCESS_TOKEN_LIFE_MS / 1000),
    refresh_token: refresh,
    scope: formatScope(accessScopes),
  };
}

/**
 * Token revocation (RFC 7009). Revoking either token ends the whole grant: the app is disconnected,
 * which is what a client revoking on sign-out means. An unknown token is answered 200 as the RFC asks.
 */
export async function revokeToken(store: OAuthStore, params: OAuthParams, basicClientId: string | undefined, nowMs: number): Promise<void> {
  const value = requiredParam(params, 'token');
  const namesClient = basicClientId !== undefined || optionalParam(params, 'client_id') !== undefined;
  const client = namesClient ? await resolveClient(store, params, basicClientId) : null;
  if (!value.startsWith(ACCESS_TOKEN_PREFIX) && !value.startsWith(REFRESH_TOKEN_PREFIX)) return;
  const found = await store.findToken(sha256Hex(value));
  if (!found) return;
  if (client !== null && found.grant.clientId !== client.id) {
    throw new OAuthError('unauthorized_client', 'That token was issued to another client.');
  }
  await store.revokeGrant(found.grant.id, 'client', nowMs);
}
