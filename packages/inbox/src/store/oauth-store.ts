/**
 * Storage of OAuth 2.1 for the owner's MCP (docs/oauth.md): registered clients, pending consent
 * requests, authorization codes, grants (one per connected AI app) and their tokens. Secrets
 * (codes, tokens, the consent page's CSRF token) are kept as SHA-256 hashes only. No rules here.
 */

export interface OAuthClientRecord {
  id: string;
  /** Self-asserted by the client at registration; shown on the consent page as such. */
  name: string | null;
  redirectUris: string[];
  grantTypes: string[];
  responseTypes: string[];
  /** The scope the client registered for, space-separated; null when it named none. */
  scope: string | null;
  clientUri: string | null;
  createdAt: number;
}

/** A consent page on its way: what the client asked for, until the owner approves or denies. */
export interface OAuthRequestRecord {
  id: string;
  csrfHash: string;
  clientId: string;
  redirectUri: string;
  scopes: string[];
  state: string | null;
  codeChallenge: string;
  resource: string;
  createdAt: number;
  expiresAt: number;
  failedAttempts: number;
  closedAt: number | null;
}

export interface OAuthCodeRecord {
  codeHash: string;
  clientId: string;
  redirectUri: string;
  scopes: string[];
  codeChallenge: string;
  resource: string;
  /** The owner key that approved the consent page. */
  approvedByKeyId: string;
  createdAt: number;
  expiresAt: number;
  usedAt: number | null;
  /** The grant the code was exchanged for, once used. */
  grantId: string | null;
}

/** What the owner approved for one client: the AI app of list_ai_apps. */
export interface OAuthGrantRecord {
  id: string;
  clientId: string;
  scopes: string[];
  resource: string;
  approvedByKeyId: string;
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
  /** Why it ended: `owner`, `client`, `refresh_reuse`, `code_reuse`, `superseded`, `resource_changed`. */
  revokedReason: string | null;
}

/** A grant with the client it belongs to, as callers and lists need it. */
export interface OAuthGrantView extends OAuthGrantRecord {
  client: OAuthClientRecord;
}

export type OAuthTokenKind = 'access' | 'refresh';

export interface OAuthTokenRecord {
  tokenHash: string;
  grantId: string;
  kind: OAuthTokenKind;
  scopes: string[];
  createdAt: number;
  expiresAt: number;
  /** A refresh token is used once: set when it was rotated. */
  usedAt: number | null;
}

export interface OAuthStore {
  insertClient(client: OAuthClientRecord): Promise<void>;
  getClient(id: string): Promise<OAuthClientRecord | null>;

  insertRequest(request: OAuthRequestRecord): Promise<void>;
  getRequest(id: string): Promise<OAuthRequestRecord | null>;
  /** Counts a wrong owner key on the consent page; answers the new count. */
  recordFailedAttempt(id: string): Promise<number>;
  /** Closes an open request; false when it was closed already (a double submit). */
  closeRequest(id: string, nowMs: number): Promise<boolean>;

  insertCode(code: OAuthCodeRecord): Promise<void>;
  getCode(codeHash: string): Promise<OAuthCodeRecord | null>;
  /** Marks an unused code used by `grantId`; false when it was used already. */
  useCode(codeHash: string, grantId: string, nowMs: number): Promise<boolean>;

  insertGrant(grant: OAuthGrantRecord): Promise<void>;
  getGrant(id: string): Promise<OAuthGrantView | null>;
  /** Newest first, ids below `after`. */
  listGrants(options: { after?: string | undefined; limit: number; includeRevoked: boolean }): Promise<OAuthGrantView[]>;
  /** Active grants of one client, for superseding on a new consent. */
  activeGrantIdsOfClient(clientId: string): Promise<string[]>;
  /** Revokes an active grant; false when it was revoked already or does not exist. */
  revokeGrant(id: string, reason: string, nowMs: number): Promise<boolean>;
  /** Revokes every active grant whose resource is not `resource`; answers how many. */
  revokeGrantsNotFor(resource: string, nowMs: number): Promise<number>;
  touchGrant(id: string, nowMs: number): Promise<void>;

  insertToken(token: OAuthTokenRecord): Promise<void>;
  /** A token with its grant and client. */
  findToken(tokenHash: string): Promise<{ token: OAuthTokenRecord; grant: OAuthGrantView } | null>;
  /** Marks an unused refresh token used; false when it was used already (reuse after rotation). */
  useRefreshToken(tokenHash: string, nowMs: number): Promise<boolean>;

  /** Deletes expired requests, codes and tokens, and clients never approved that are older than `unusedClientBeforeMs`. */
  prune(nowMs: number, unusedClientBeforeMs: number): Promise<void>;
}
