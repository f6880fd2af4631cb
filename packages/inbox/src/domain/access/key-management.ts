/**
 * Listing, making and revoking keys (inbox spec §2 "API key", §4, §5). Owner keys come only from
 * first start and `npm run new-owner-key`; these operations make integration keys from a preset.
 * Who may do what:
 * - the owner (an owner key): everything, except revoking the last owner key that still works;
 * - the owner's AI: only with `security.aiMayCreateKeys` on, never a preset with settings:write,
 *   and it revokes only keys an AI made;
 * - an integration key: nothing (it never holds keys:write; refused by the scope check first).
 */
import { Problem, newId, notFound } from '@svc/shared';
import { loadSettings, type DomainContext } from '../context.js';
import type { Caller } from '../types.js';
import type { ApiKeyRecord, ScopeMissRecord } from '../../store/store.js';
import { PRESETS, newKeyValue, type PresetName } from './api-keys.js';

export interface ScopeMissView {
  operation: string;
  scope: string;
  /** Calls made outside the scopes (refused ones included). */
  calls: number;
  /** Of those, refused because scopes were enforced. */
  refused: number;
  first_at: string;
  last_at: string;
}

export interface KeyView {
  id: string;
  name: string;
  kind: ApiKeyRecord['kind'];
  preset: string | null;
  scopes: string[];
  status: 'active' | 'expired' | 'revoked';
  /** First and last characters, to tell keys apart; never the key. */
  hint: string;
  created_at: string;
  created_by: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
  calls_outside_scopes: ScopeMissView[];
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export function keyStatus(key: ApiKeyRecord, nowMs: number): KeyView['status'] {
  if (key.revokedAt !== null) return 'revoked';
  if (key.expiresAt !== null && key.expiresAt <= nowMs) return 'expired';
  return 'active';
}

export function keyView(key: ApiKeyRecord, misses: readonly ScopeMissRecord[], nowMs: number): KeyView {
  return {
    id: key.id,
    name: key.name,
    kind: key.kind,
    preset: key.preset,
    scopes: [...key.scopes],
    status: keyStatus(key, nowMs),
    hint: key.keyHint,
    created_at: new Date(key.createdAt).toISOString(),
    created_by: key.createdByKind,
    expires_at: iso(key.expiresAt),
    revoked_at: iso(key.revokedAt),
    last_used_at: iso(key.lastUsedAt),
    calls_outside_scopes: misses
      .filter((m) => m.principalId === key.id)
      .map((m) => ({
        operation: m.operation,
        scope: m.scope,
        calls: m.calls,
        refused: m.refused,
        first_at: new Date(m.firstAt).toISOString(),
        last_at: new Date(m.lastAt).toISOString(),
      })),
  };
}

/** A page of keys, newest first, each with its calls outside scopes. */
export async function listKeys(domain: DomainContext, page: { after?: string | undefined; limit: number }): Promise<{ keys: KeyView[]; last: string | null; full: boolean }> {
  const keys = await domain.store.apiKeys.listPage(page);
  const misses = await domain.store.apiKeys.listScopeMisses(keys.map((k) => k.id));
  const nowMs = domain.clock.now();
  return { keys: keys.map((k) => keyView(k, misses, nowMs)), last: keys.at(-1)?.id ?? null, full: keys.length === page.limit };
}

export async function getKey(domain: DomainContext, id: string): Promise<KeyView> {
  const key = await domain.store.apiKeys.get(id);
  if (!key) throw notFound(`The key ${id}`);
  return keyView(key, await domain.store.apiKeys.listScopeMisses([id]), domain.clock.now());
}

export interface NewKeyRequest {
  name: string;
  preset: PresetName;
  expiresAt: number | null;
}

/** Makes an integration key; the value is returned once and only its hash is kept. */
export async function createIntegrationKey(domain: DomainContext, caller: Caller, request: NewKeyRequest): Promise<{ view: KeyView; value: string }> {
  const actorKind = await assertMayManageKeys(domain, caller, 'create');
  const scopes: readonly string[] = PRESETS[request.preset];
  if (actorKind === 'owner_ai') assertAiMayGrant(request.preset, scopes);
  const nowMs = domain.clock.now();
  if (request.expiresAt !== null && request.expiresAt <= nowMs) {
    throw new Problem('invalid_input', 'expires_at must be in the future.', {
      fields: [{ path: 'expires_at', problem: 'invalid', message: 'Must be in the future.' }],
    });
  }
  const key = newKeyValue();
  const record: ApiKeyRecord = {
    id: newId(nowMs),
    name: request.name,
    kind: 'integration',
    preset: request.preset,
    scopes: [...scopes],
    keyHash: key.hash,
    keyHint: key.hint,
    createdByKind: actorKind,
    createdAt: nowMs,
    expiresAt: request.expiresAt,
    revokedAt: null,
    lastUsedAt: null,
  };
  await domain.store.apiKeys.insert(record);
  return { view: keyView(record, [], nowMs), value: key.value };
}

/** Revokes a key at once and for good; revoking a revoked key answers it as it is. */
export async function revokeKey(domain: DomainContext, caller: Caller, id: string): Promise<KeyView> {
  const actorKind = await assertMayManageKeys(domain, caller, 'revoke');
  const store = domain.store;
  const key = await store.apiKeys.get(id);
  if (!key) throw notFound(`The key ${id}`);
  if (actorKind === 'owner_ai' && key.createdByKind !== 'owner_ai') {
    throw new Problem('not_allowed', "The owner's AI may revoke only keys an AI made; ask the owner to revoke this one.");
  }
  const nowMs = domain.clock.now();
  if (key.revokedAt === null) {
    if (key.kind === 'owner' && keyStatus(key, nowMs) === 'active' && (await store.apiKeys.countActive('owner', nowMs)) <= 1) {
      throw new Problem('not_allowed', 'This is the last working owner key; make another first (npm run new-owner-key), then revoke this one.');
    }
    await store.apiKeys.revoke(id, nowMs);
  }
  return getKey(domain, id);
}

/** Scopes the owner's AI may never put on a key it makes (inbox spec §5). */
export const NEVER_GRANTED_BY_AI: readonly string[] = ['settings:write'];

export function assertAiMayGrant(preset: string, scopes: readonly string[]): void {
  const forbidden = scopes.filter((scope) => NEVER_GRANTED_BY_AI.includes(scope));
  if (forbidden.length > 0) {
    throw new Problem('not_allowed', `The owner's AI cannot make a key with ${forbidden.join(', ')} (preset ${preset}); ask the owner.`);
  }
}

/** The owner may; the owner's AI only with security.aiMayCreateKeys; nobody else. */
async function assertMayManageKeys(domain: DomainContext, caller: Caller, action: 'create' | 'revoke'): Promise<'owner' | 'owner_ai'> {
  if (caller.kind !== 'owner') throw new Problem('not_allowed', 'Only the owner manages keys.');
  const kind = caller.actor.kind;
  if (kind === 'owner') return 'owner';
  if (kind === 'owner_ai') {
    const { settings } = await loadSettings(domain.store);
    if (settings.security.aiMayCreateKeys) return 'owner_ai';
    throw new Problem('not_allowed', `The owner's AI may ${action} keys only when the owner turns on security.aiMayCreateKeys.`);
  }
  throw new Problem('not_allowed', `Only the owner (or, when the owner allows it, the owner's AI) may ${action} keys.`);
}
