/**
 * Owner and integration keys (inbox spec §5): `svc_own_` + random, only a SHA-256 kept. A key
 * authenticates owner calls until revoked or past its `expires_at`.
 */
import { Problem, newId, randomToken, sha256Hex, storageFailureKind } from '@svc/shared';
import type { InboxStore } from '../../store/store.js';
import type { Caller, Channel } from '../types.js';
import { authenticateOAuthAccessToken, isOAuthAccessToken } from './oauth/access-tokens.js';

export const OWNER_KEY_PREFIX = 'svc_own_';
const LAST_USE_RESOLUTION_MS = 60_000;

export const ALL_SCOPES = [
  'inbox:read',
  'inbox:write',
  'events:read',
  'catalogue:write',
  'availability:write',
  'settings:read',
  'settings:write',
  'setup:run',
  'integrations:write',
  'keys:write',
] as const;

export const PRESETS = {
  automation: ['inbox:read', 'inbox:write', 'events:read'],
  shop_sync: ['catalogue:write', 'inbox:read', 'inbox:write', 'events:read'],
  calendar_sync: ['availability:write', 'inbox:read', 'inbox:write', 'events:read'],
  read_only: ['inbox:read', 'events:read', 'settings:read'],
} as const satisfies Record<string, readonly (typeof ALL_SCOPES)[number][]>;

export type PresetName = keyof typeof PRESETS;
export type Scope = (typeof ALL_SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (ALL_SCOPES as readonly string[]).includes(value);
}

export function isPresetName(value: string): value is PresetName {
  return Object.hasOwn(PRESETS, value);
}

export function newKeyValue(): { value: string; hash: string; hint: string } {
  const value = `${OWNER_KEY_PREFIX}${randomToken(32)}`;
  return { value, hash: sha256Hex(value), hint: `${value.slice(0, OWNER_KEY_PREFIX.length + 4)}…${value.slice(-4)}` };
}

/** Makes an owner key (all scopes); used at first start and by `npm run new-owner-key`. */
export async function createOwnerKey(store: InboxStore, name: string, nowMs: number): Promise<{ id: string; value: string }> {
  const key = newKeyValue();
  const id = newId(nowMs);
  await store.apiKeys.insert({
    id,
    name,
    kind: 'owner',
    preset: null,
    scopes: [...ALL_SCOPES],
    keyHash: key.hash,
    keyHint: key.hint,
    createdByKind: 'owner',
    createdAt: nowMs,
    expiresAt: null,
    revokedAt: null,
    lastUsedAt: null,
  });
  return { id, value: key.value };
}

/** Resolves a Bearer token into an owner-side caller, or refuses with 401. */
export async function authenticateBearer(store: InboxStore, header: string | undefined, channel: Channel, nowMs: number): Promise<Caller> {
  const challenge = { 'www-authenticate': 'Bearer realm="owner"' };
  if (!header) throw new Problem('unauthorized', 'Owner operations need Authorization: Bearer <key>.', { headers: challenge });
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match?.[1]) throw new Problem('unauthorized', 'The Authorization header must be "Bearer <key>".', { headers: challenge });
  // OAuth access tokens of AI apps (docs/oauth.md) resolve to the app, with the scopes the owner granted.
  if (isOAuthAccessToken(match[1])) return authenticateOAuthAccessToken(store, match[1], channel, nowMs);
  const record = await store.apiKeys.findByHash(sha256Hex(match[1]));
  if (!record || record.revokedAt !== null || (record.expiresAt !== null && record.expiresAt <= nowMs)) {
    throw new Problem('unauthorized', 'That key is unknown, revoked or expired.', { headers: { 'www-authenticate': 'Bearer realm="owner", error="invalid_token"' } });
  }
  // "Last use" to the minute: a busy integration does not write on every read.
  if (record.lastUsedAt === null || nowMs - record.lastUsedAt >= LAST_USE_RESOLUTION_MS) await touchKey(store, record.id, nowMs);
  return {
    kind: 'owner',
    actor: { kind: record.kind === 'owner' ? 'owner' : 'integration', id: record.id, name: record.name },
    channel,
    keyId: record.id,
    // An owner key is the owner: every scope, including ones added after it was made.
    scopes: record.kind === 'owner' ? [...ALL_SCOPES] : record.scopes,
  };
}

/** Notes a key's last use; a disk that refuses the write (full) does not refuse the call: reads go on. */
async function touchKey(store: InboxStore, keyId: string, nowMs: number): Promise<void> {
  try {
    await store.apiKeys.touch(keyId, nowMs);
  } catch (error) {
    if (storageFailureKind(error) === null) throw error;
  }
}
