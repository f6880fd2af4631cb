/**
 * The owner's view of connected AI apps (list_ai_apps, revoke_ai_app): one per grant, i.e. per
 * consent still in force. Revoking ends its access and refresh tokens at once. An AI app may
 * disconnect itself but not another app; owner keys may disconnect any.
 */
import { Problem, notFound } from '@svc/shared';
import type { OAuthGrantView } from '../../../store/oauth-store.js';
import type { InboxStore, ScopeMissRecord } from '../../../store/store.js';
import type { Caller } from '../../types.js';
import { UNNAMED_APP } from './access-tokens.js';

export interface AiAppView {
  id: string;
  client_id: string;
  name: string;
  client_uri: string | null;
  redirect_hosts: string[];
  scopes: string[];
  active: boolean;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  revoked_reason: string | null;
  calls_outside_scopes: { operation: string; scope: string; calls: number; refused: number; first_at: string; last_at: string }[];
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export function aiAppView(grant: OAuthGrantView, misses: readonly ScopeMissRecord[] = []): AiAppView {
  return {
    id: grant.id,
    client_id: grant.clientId,
    name: grant.client.name ?? UNNAMED_APP,
    client_uri: grant.client.clientUri,
    redirect_hosts: [...new Set(grant.client.redirectUris.map((uri) => new URL(uri).host))],
    scopes: grant.scopes,
    active: grant.revokedAt === null,
    created_at: new Date(grant.createdAt).toISOString(),
    last_used_at: iso(grant.lastUsedAt),
    revoked_at: iso(grant.revokedAt),
    revoked_reason: grant.revokedReason,
    calls_outside_scopes: misses
      .filter((miss) => miss.principalId === grant.id)
      .map((miss) => ({
        operation: miss.operation,
        scope: miss.scope,
        calls: miss.calls,
        refused: miss.refused,
        first_at: new Date(miss.firstAt).toISOString(),
        last_at: new Date(miss.lastAt).toISOString(),
      })),
  };
}

export async function listAiApps(
  store: InboxStore,
  page: { after?: string | undefined; limit: number; includeRevoked: boolean },
): Promise<{ apps: AiAppView[]; last: string | null }> {
  const grants = await store.oauth.listGrants({ ...page, limit: page.limit + 1 });
  const shown = grants.slice(0, page.limit);
  const misses = await store.apiKeys.listScopeMisses(shown.map((grant) => grant.id));
  return { apps: shown.map((grant) => aiAppView(grant, misses)), last: grants.length > page.limit ? (shown[shown.length - 1]?.id ?? null) : null };
}

export async function revokeAiApp(store: InboxStore, caller: Caller, id: string, nowMs: number): Promise<AiAppView> {
  const grant = await store.oauth.getGrant(id);
  if (!grant) throw notFound(`The AI app ${id}`);
  if (caller.kind === 'owner' && caller.actor.kind === 'owner_ai' && caller.keyId !== grant.id) {
    throw new Problem('not_allowed', 'An AI app may disconnect itself, not another app; the owner can.');
  }
  // Revoking twice is not an error: the app is disconnected either way (DELETE is idempotent).
  await store.oauth.revokeGrant(grant.id, 'owner', nowMs);
  const after = (await store.oauth.getGrant(id)) ?? grant;
  return aiAppView(after, await store.apiKeys.listScopeMisses([after.id]));
}
