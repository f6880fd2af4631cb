/** Upkeep of OAuth rows: the start-up audience check and the hourly prune (docs/oauth.md). */
import type { InboxStore } from '../../../store/store.js';
import { UNUSED_CLIENT_KEEP_MS } from './oauth-limits.js';
import { oauthEndpoints } from './oauth-metadata.js';

/**
 * Tokens are issued for `<base>/mcp/owner`. When the instance's public URL changes, grants made for
 * the old one stop working: a token for another resource is refused (RFC 8707).
 */
export async function retireGrantsForOtherResources(store: InboxStore, publicBaseUrl: string, nowMs: number): Promise<number> {
  return store.oauth.revokeGrantsNotFor(oauthEndpoints(publicBaseUrl).resource, nowMs);
}

/** Deletes expired consent requests, codes and tokens, and registrations that never led anywhere. */
export async function pruneOAuth(store: InboxStore, nowMs: number): Promise<void> {
  await store.oauth.prune(nowMs, nowMs - UNUSED_CLIENT_KEEP_MS);
}
