/** Making integration keys through the owner API, and calling with them, for tests. */
import { randomBytes, randomUUID } from 'node:crypto';
import { sha256Hex } from '@svc/shared';
import { expect } from 'vitest';
import type { DomainContext } from '../../src/domain/context.js';
import type { Caller } from '../../src/domain/types.js';
import type { TestInbox } from './harness.js';
import { setSecurityInApp } from './owner-app.js';

export interface MadeKey {
  id: string;
  key: string;
  body: any;
}

export async function makeKey(t: Pick<TestInbox, 'owner'>, preset: string, name = `${preset} key`, extra: Record<string, unknown> = {}): Promise<MadeKey> {
  const r = await t.owner('POST', '/v1/owner/api-keys', { body: { name, preset, ...extra } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return { id: r.body.id, key: r.body.key, body: r.body };
}

/** A request with a given Bearer key. */
export function withKey(t: Pick<TestInbox, 'request'>, key: string) {
  return <T = any>(method: string, path: string, options: { body?: unknown; headers?: Record<string, string> } = {}) =>
    t.request<T>(method, path, { ...options, headers: { authorization: `Bearer ${key}`, ...(options.headers ?? {}) } });
}

/** Sets the security section the only way it can be set: by the owner in the owner app (inbox spec §5, docs/web.md). */
export async function setSecurity(t: Pick<TestInbox, 'owner' | 'baseUrl' | 'ownerKey'>, security: { enforceScopes?: boolean; aiMayCreateKeys?: boolean }): Promise<void> {
  const current = await t.owner('GET', '/v1/owner/settings');
  expect(current.status).toBe(200);
  const r = await setSecurityInApp(t.baseUrl, t.ownerKey, security, current.body.settings.security);
  expect(r.status, r.text.slice(0, 2000)).toBe(303);
  const after = await t.owner('GET', '/v1/owner/settings');
  expect(after.body.settings.security).toMatchObject(security);
}

/**
 * The caller an AI app's OAuth access token resolves to (actor owner_ai, keyId = the grant id,
 * scopes = the granted ones), for checking the domain rules the runner applies to it.
 */
export function aiCaller(grantId: string, scopes: readonly string[]): Caller {
  return { kind: 'owner', actor: { kind: 'owner_ai', id: grantId, name: 'Test AI app' }, channel: 'mcp_owner', keyId: grantId, scopes };
}

export function domainOf(t: TestInbox): DomainContext {
  return { store: t.inbox.store, clock: t.clock };
}

/**
 * Connects an AI app as the OAuth flow ends (docs/oauth.md): a client, the owner's grant and an
 * access token, written through the OAuth store. The token then authenticates like any other.
 */
export async function connectAiApp(t: TestInbox, scopes: readonly string[], name = 'Test AI app'): Promise<{ token: string; grantId: string }> {
  const nowMs = t.clock.now();
  const store = t.inbox.store;
  const clientId = `client-${randomUUID()}`;
  const grantId = `grant-${randomUUID()}`;
  const [owner] = (await store.apiKeys.list()).filter((k) => k.kind === 'owner');
  await store.oauth.insertClient({
    id: clientId,
    name,
    redirectUris: ['http://127.0.0.1/callback'],
    grantTypes: ['authorization_code', 'refresh_token'],
    responseTypes: ['code'],
    scope: scopes.join(' '),
    clientUri: null,
    createdAt: nowMs,
  });
  await store.oauth.insertGrant({
    id: grantId,
    clientId,
    scopes: [...scopes],
    resource: 'http://127.0.0.1/mcp/owner',
    approvedByKeyId: owner!.id,
    createdAt: nowMs,
    lastUsedAt: null,
    revokedAt: null,
    revokedReason: null,
  });
  const token = `svc_oat_${randomBytes(32).toString('base64url')}`;
  await store.oauth.insertToken({ tokenHash: sha256Hex(token), grantId, kind: 'access', scopes: [...scopes], createdAt: nowMs, expiresAt: nowMs + 3_600_000, usedAt: null });
  return { token, grantId };
}
