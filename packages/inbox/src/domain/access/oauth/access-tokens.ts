/**
 * Owner calls with an OAuth access token (`svc_oat_…`): the caller is the AI app, with the scopes
 * the owner granted (inbox spec §5). Tokens are checked by their SHA-256 only. The audience is the
 * owner MCP of this instance: grants for another resource are revoked at start (maintenance.ts),
 * so a live token is always one for this server.
 */
import { Problem, sha256Hex, storageFailureKind } from '@svc/shared';
import type { InboxStore } from '../../../store/store.js';
import type { Caller, Channel } from '../../types.js';
import { ACCESS_TOKEN_PREFIX } from './oauth-limits.js';

/** "Last use" to the minute, as for keys: a busy app does not write on every read. */
const LAST_USE_RESOLUTION_MS = 60_000;
/** An app that registered no name is still named in every event it causes. */
export const UNNAMED_APP = 'AI app';

export function isOAuthAccessToken(token: string): boolean {
  return token.startsWith(ACCESS_TOKEN_PREFIX);
}

export async function authenticateOAuthAccessToken(store: InboxStore, token: string, channel: Channel, nowMs: number): Promise<Caller> {
  const found = await store.oauth.findToken(sha256Hex(token));
  if (!found || found.token.kind !== 'access' || found.token.expiresAt <= nowMs || found.grant.revokedAt !== null) {
    throw new Problem('unauthorized', 'That access token is unknown, expired or revoked; refresh it or connect the app again.', {
      headers: { 'www-authenticate': 'Bearer realm="owner", error="invalid_token"' },
    });
  }
  const { grant, token: record } = found;
  if (grant.lastUsedAt === null || nowMs - grant.lastUsedAt >= LAST_USE_RESOLUTION_MS) {
    // A disk that refuses this note (full) does not refuse the call: reads go on.
    await store.oauth.touchGrant(grant.id, nowMs).catch((error: unknown) => {
      if (storageFailureKind(error) === null) throw error;
    });
  }
  return {
    kind: 'owner',
    actor: { kind: 'owner_ai', id: grant.id, name: grant.client.name ?? UNNAMED_APP },
    channel,
    keyId: grant.id,
    scopes: record.scopes,
  };
}
