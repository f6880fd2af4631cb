/**
 * list_api_keys, get_api_key, create_api_key, revoke_api_key over real HTTP (inbox spec §2 "API key",
 * §4, §5, §9): presets and scopes, the key shown once and stored only as a hash (checked in the
 * database), revocation and expiry at once, who may manage keys (integration keys never, the
 * owner's AI only when allowed), and idempotent creation that never keeps the key in clear.
 */
import { sha256Hex } from '@svc/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createOwnerKey, PRESETS } from '../src/domain/access/api-keys.js';
import { assertAiMayGrant, createIntegrationKey, revokeKey } from '../src/domain/access/key-management.js';
import { startInbox, type TestInbox } from './support/harness.js';
import { rawRows as storedRows } from '../../../test-support/test-database.js';
import { aiCaller, connectAiApp, domainOf, makeKey, setSecurity, withKey } from './support/integration-keys.js';

const HOUR_MS = 3_600_000;

/** What the database holds, whichever engine the run uses. */
function rawRows(t: TestInbox, sql: string): Promise<Record<string, unknown>[]> {
  return storedRows('inbox', t.dataDir, sql);
}

function expectProblem(r: { status: number; body: any; headers: Headers }, status: number, code: string) {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.headers.get('content-type')).toContain('application/problem+json');
  expect(r.body).toMatchObject({ status, code });
}

describe('api keys', () => {
  let t: TestInbox;
  beforeEach(async () => {
    t = await startInbox({ seed: false });
  });
  afterEach(() => t.close());

  it.each(Object.entries(PRESETS))('creates a %s key with exactly its scopes, shown once, stored as a hash', async (preset, scopes) => {
    const r = await t.owner('POST', '/v1/owner/api-keys', { body: { name: `  My ${preset}  `, preset } });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.headers.get('location')).toBe(`/v1/owner/api-keys/${r.body.id}`);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.body).toMatchObject({
      name: `My ${preset}`,
      kind: 'integration',
      preset,
      scopes: [...scopes],
      status: 'active',
      created_by: 'owner',
      created_at: new Date(t.clock.now()).toISOString(),
      expires_at: null,
      revoked_at: null,
      last_used_at: null,
      calls_outside_scopes: [],
    });
    expect(r.body.scopes).not.toContain('keys:write');
    const key: string = r.body.key;
    expect(key).toMatch(/^svc_own_[A-Za-z0-9_-]{43}$/);
    expect(r.body.hint.startsWith(key.slice(0, 12))).toBe(true);
    expect(r.body.hint.endsWith(key.slice(-4))).toBe(true);

    // Never again: not in the list, not in the single read.
    const list = await t.owner('GET', '/v1/owner/api-keys');
    expect(list.status).toBe(200);
    expect(JSON.stringify(list.body)).not.toContain(key);
    const one = await t.owner('GET', `/v1/owner/api-keys/${r.body.id}`);
    expect(one.status).toBe(200);
    expect(one.body.key).toBeUndefined();
    expect(one.body).toEqual(list.body.items.find((k: any) => k.id === r.body.id));

    // The database holds its SHA-256 and nowhere the key itself.
    const [row] = await rawRows(t, `SELECT * FROM api_keys WHERE id = '${r.body.id}'`);
    expect(row?.key_hash).toBe(sha256Hex(key));
    for (const table of ['api_keys', 'idempotency_keys', 'scope_misses']) {
      expect(JSON.stringify(await rawRows(t, `SELECT * FROM ${table}`))).not.toContain(key.slice('svc_own_'.length));
    }

    // And it works at once, as an integration key.
    const items = await withKey(t, key)('GET', '/v1/owner/items');
    expect(items.status).toBe(200);
  });

  it('lists keys newest first with last use, paged, never a key', async () => {
    const a = await makeKey(t, 'automation', 'First');
    t.clock.advance(1_000);
    const b = await makeKey(t, 'read_only', 'Second');
    t.clock.advance(60_000);
    expect((await withKey(t, b.key)('GET', '/v1/owner/items')).status).toBe(200);

    const page1 = await t.owner('GET', '/v1/owner/api-keys?limit=2');
    expect(page1.status).toBe(200);
    expect(page1.body.items.map((k: any) => k.name)).toEqual(['Second', 'First']);
    expect(page1.body.items[0].last_used_at).toBe(new Date(t.clock.now()).toISOString());
    expect(page1.body.items[1].last_used_at).toBeNull();
    expect(page1.body.next_cursor).toEqual(expect.any(String));
    const page2 = await t.owner('GET', `/v1/owner/api-keys?limit=2&cursor=${encodeURIComponent(page1.body.next_cursor)}`);
    // The owner key made by the harness is the oldest.
    expect(page2.body.items.map((k: any) => [k.name, k.kind, k.preset])).toEqual([['test owner', 'owner', null]]);
    expect(page2.body.next_cursor).toBeNull();
    for (const item of [...page1.body.items, ...page2.body.items]) expect(item).not.toHaveProperty('key');
    expect([a.id, b.id]).toEqual(expect.arrayContaining(page1.body.items.map((k: any) => k.id)));
    expectProblem(await t.owner('GET', '/v1/owner/api-keys?cursor=bogus'), 422, 'invalid_input');
  });

  it('refuses bad input with fields and stores nothing', async () => {
    const cases: [unknown, string][] = [
      [{ preset: 'automation' }, 'name'],
      [{ name: '   ', preset: 'automation' }, 'name'],
      [{ name: 'x'.repeat(101), preset: 'automation' }, 'name'],
      [{ name: 'Sync' }, 'preset'],
      [{ name: 'Sync', preset: 'admin' }, 'preset'],
      [{ name: 'Sync', preset: 'automation', expires_at: 'tomorrow' }, 'expires_at'],
      [{ name: 'Sync', preset: 'automation', expires_at: new Date(t.clock.now() - 1).toISOString() }, 'expires_at'],
      [{ name: 'Sync', preset: 'automation', expires_at: new Date(t.clock.now()).toISOString() }, 'expires_at'],
    ];
    for (const [body, path] of cases) {
      const r = await t.owner('POST', '/v1/owner/api-keys', { body });
      expectProblem(r, 422, 'invalid_input');
      expect(r.body.fields.map((f: any) => f.path), JSON.stringify(body)).toContain(path);
    }
    expect(await t.inbox.store.apiKeys.list()).toHaveLength(1);
    expectProblem(await t.request('POST', '/v1/owner/api-keys', { body: { name: 'Sync', preset: 'automation' } }), 401, 'unauthorized');
    expect(await t.inbox.store.apiKeys.list()).toHaveLength(1);
  });

  it('revokes at once and for good; revoking again answers it unchanged; unknown ids are 404', async () => {
    const k = await makeKey(t, 'automation');
    const call = withKey(t, k.key);
    expect((await call('GET', '/v1/owner/items')).status).toBe(200);

    t.clock.advance(5_000);
    const revoked = await t.owner('DELETE', `/v1/owner/api-keys/${k.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ id: k.id, status: 'revoked', revoked_at: new Date(t.clock.now()).toISOString() });
    expect(revoked.body.key).toBeUndefined();

    const refused = await call('GET', '/v1/owner/items');
    expectProblem(refused, 401, 'unauthorized');
    expect(refused.headers.get('www-authenticate')).toContain('invalid_token');
    expectProblem(await t.request('POST', '/mcp/owner', { body: { jsonrpc: '2.0', id: 1, method: 'tools/list' }, headers: { authorization: `Bearer ${k.key}`, accept: 'application/json, text/event-stream' } }), 401, 'unauthorized');

    t.clock.advance(5_000);
    const again = await t.owner('DELETE', `/v1/owner/api-keys/${k.id}`);
    expect(again.status).toBe(200);
    expect(again.body.revoked_at).toBe(revoked.body.revoked_at);
    expectProblem(await t.owner('DELETE', '/v1/owner/api-keys/01JUNKNOWNKEY0000000000000'), 404, 'not_found');
    expectProblem(await t.owner('GET', '/v1/owner/api-keys/01JUNKNOWNKEY0000000000000'), 404, 'not_found');
    expect((await call('GET', '/v1/owner/items')).status).toBe(401);
  });

  it('an expired key is refused from the instant it expires', async () => {
    const expiresAt = new Date(t.clock.now() + HOUR_MS).toISOString();
    const k = await makeKey(t, 'read_only', 'Short', { expires_at: expiresAt.replace('Z', '+00:00') });
    expect(k.body.expires_at).toBe(expiresAt);
    const call = withKey(t, k.key);
    t.clock.advance(HOUR_MS - 1);
    expect((await call('GET', '/v1/owner/items')).status).toBe(200);
    t.clock.advance(1);
    expectProblem(await call('GET', '/v1/owner/items'), 401, 'unauthorized');
    expect((await t.owner('GET', `/v1/owner/api-keys/${k.id}`)).body.status).toBe('expired');
  });

  it('an integration key can neither see nor make nor revoke keys, even with scopes only recorded', async () => {
    const k = await makeKey(t, 'automation');
    const other = await makeKey(t, 'read_only');
    const call = withKey(t, k.key);
    expectProblem(await call('POST', '/v1/owner/api-keys', { body: { name: 'Mine', preset: 'automation' } }), 403, 'not_allowed');
    expectProblem(await call('GET', '/v1/owner/api-keys'), 403, 'not_allowed');
    expectProblem(await call('DELETE', `/v1/owner/api-keys/${other.id}`), 403, 'not_allowed');
    const refused = await call('POST', '/v1/owner/api-keys', { body: { name: 'Mine', preset: 'automation' } });
    expect(refused.body.scope).toBe('keys:write');
    expect(refused.body.detail).toContain('keys:write');

    expect(await t.inbox.store.apiKeys.list()).toHaveLength(3);
    expect((await t.owner('GET', `/v1/owner/api-keys/${other.id}`)).body.status).toBe('active');
    const view = (await t.owner('GET', `/v1/owner/api-keys/${k.id}`)).body;
    expect(view.calls_outside_scopes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ operation: 'create_api_key', scope: 'keys:write', calls: 2, refused: 2 }),
        expect.objectContaining({ operation: 'list_api_keys', scope: 'keys:write', calls: 1, refused: 1 }),
        expect.objectContaining({ operation: 'revoke_api_key', scope: 'keys:write', calls: 1, refused: 1 }),
      ]),
    );
  });

  it('refuses to revoke the last working owner key; with a second one it may go', async () => {
    const [owner] = await t.inbox.store.apiKeys.list();
    expectProblem(await t.owner('DELETE', `/v1/owner/api-keys/${owner!.id}`), 403, 'not_allowed');
    expect((await t.owner('GET', '/v1/owner/items')).status).toBe(200);

    const second = await createOwnerKey(t.inbox.store, 'spare', t.clock.now());
    const r = await t.owner('DELETE', `/v1/owner/api-keys/${owner!.id}`);
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('revoked');
    expectProblem(await t.owner('GET', '/v1/owner/items'), 401, 'unauthorized');
    expect((await withKey(t, second.value)('GET', '/v1/owner/api-keys')).status).toBe(200);
  });

  describe('idempotent creation', () => {
    it('a retry with the same key returns the same key; nothing is kept in clear', async () => {
      const body = { name: 'Shop', preset: 'shop_sync' };
      const first = await t.owner('POST', '/v1/owner/api-keys', { body, headers: { 'idempotency-key': 'make-shop-key' } });
      expect(first.status).toBe(201);
      const replay = await t.owner('POST', '/v1/owner/api-keys', { body, headers: { 'idempotency-key': 'make-shop-key' } });
      expect(replay.status).toBe(200);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.headers.get('location')).toBe(first.headers.get('location'));
      expect(replay.body).toEqual(first.body);
      expect(await t.inbox.store.apiKeys.list()).toHaveLength(2);

      const stored = await rawRows(t, 'SELECT * FROM idempotency_keys');
      expect(stored).toHaveLength(1);
      const text = JSON.stringify(stored);
      expect(text).not.toContain(first.body.key.slice('svc_own_'.length));
      expect(text).not.toContain('Shop');

      const mismatch = await t.owner('POST', '/v1/owner/api-keys', { body: { ...body, name: 'Other' }, headers: { 'idempotency-key': 'make-shop-key' } });
      expectProblem(mismatch, 422, 'idempotency_mismatch');
      expect(await t.inbox.store.apiKeys.list()).toHaveLength(2);
    });

    it('is shown again only to the key that made the first request', async () => {
      const spare = await createOwnerKey(t.inbox.store, 'spare', t.clock.now());
      const body = { name: 'Cal', preset: 'calendar_sync', idempotency_key: 'make-cal-key' };
      const first = await t.owner('POST', '/v1/owner/api-keys', { body });
      expect(first.status).toBe(201);
      const other = await withKey(t, spare.value)('POST', '/v1/owner/api-keys', { body });
      expectProblem(other, 422, 'idempotency_mismatch');
      expect(JSON.stringify(other.body)).not.toContain(first.body.key);
      expect(await t.inbox.store.apiKeys.list()).toHaveLength(3);
      const again = await t.owner('POST', '/v1/owner/api-keys', { body });
      expect(again.body.key).toBe(first.body.key);
    });

    it('other stored answers are sealed too, and still replay', async () => {
      const k = await makeKey(t, 'automation');
      const body = { idempotency_key: 'revoke-1' };
      const first = await t.owner('DELETE', `/v1/owner/api-keys/${k.id}`, { body });
      const replay = await t.owner('DELETE', `/v1/owner/api-keys/${k.id}`, { body });
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body).toEqual(first.body);
      expect(JSON.stringify(await rawRows(t, 'SELECT response FROM idempotency_keys'))).not.toContain(k.id);
    });
  });

  describe("the owner's AI (an AI app's grant)", () => {
    const ai = aiCaller('grant-1', ['keys:write', 'inbox:read']);

    it('makes keys only when security.aiMayCreateKeys is on, marked as made by an AI', async () => {
      await expect(createIntegrationKey(domainOf(t), ai, { name: 'AI made', preset: 'automation', expiresAt: null })).rejects.toMatchObject({
        code: 'not_allowed',
      });
      expect(await t.inbox.store.apiKeys.list()).toHaveLength(1);

      await setSecurity(t, { aiMayCreateKeys: true });
      const made = await createIntegrationKey(domainOf(t), ai, { name: 'AI made', preset: 'automation', expiresAt: null });
      expect(made.view.created_by).toBe('owner_ai');
      expect(made.value).toMatch(/^svc_own_/);
      const listed = (await t.owner('GET', `/v1/owner/api-keys/${made.view.id}`)).body;
      expect(listed).toMatchObject({ created_by: 'owner_ai', preset: 'automation', status: 'active' });
    });

    it('never grants settings:write', () => {
      expect(() => assertAiMayGrant('custom', ['inbox:read', 'settings:write'])).toThrow(/settings:write/);
      expect(() => assertAiMayGrant('custom', ['inbox:read', 'settings:read'])).not.toThrow();
      for (const [preset, scopes] of Object.entries(PRESETS)) expect(() => assertAiMayGrant(preset, scopes)).not.toThrow();
    });

    it('revokes only keys an AI made, and only while allowed', async () => {
      await setSecurity(t, { aiMayCreateKeys: true });
      const ownerMade = await makeKey(t, 'automation', 'Owner made');
      const aiMade = await createIntegrationKey(domainOf(t), ai, { name: 'AI made', preset: 'read_only', expiresAt: null });
      const [ownerKey] = (await t.inbox.store.apiKeys.list()).filter((k) => k.kind === 'owner');

      await expect(revokeKey(domainOf(t), ai, ownerMade.id)).rejects.toMatchObject({ code: 'not_allowed' });
      await expect(revokeKey(domainOf(t), ai, ownerKey!.id)).rejects.toMatchObject({ code: 'not_allowed' });
      expect((await t.owner('GET', `/v1/owner/api-keys/${ownerMade.id}`)).body.status).toBe('active');

      await setSecurity(t, { aiMayCreateKeys: false });
      await expect(revokeKey(domainOf(t), ai, aiMade.view.id)).rejects.toMatchObject({ code: 'not_allowed' });
      expect((await withKey(t, aiMade.value)('GET', '/v1/owner/items')).status).toBe(200);

      await setSecurity(t, { aiMayCreateKeys: true });
      const revoked = await revokeKey(domainOf(t), ai, aiMade.view.id);
      expect(revoked.status).toBe('revoked');
      expectProblem(await withKey(t, aiMade.value)('GET', '/v1/owner/items'), 401, 'unauthorized');
    });
  });

  describe("the owner's AI over HTTP, with an AI app's access token", () => {
    it('makes and revokes keys only as allowed, recorded as made by an AI', async () => {
      const { token } = await connectAiApp(t, ['keys:write', 'inbox:read', 'settings:write']);
      const ai = withKey(t, token);
      expectProblem(await ai('POST', '/v1/owner/api-keys', { body: { name: 'By AI', preset: 'automation' } }), 403, 'not_allowed');
      await setSecurity(t, { aiMayCreateKeys: true });
      const made = await ai('POST', '/v1/owner/api-keys', { body: { name: 'By AI', preset: 'automation' } });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      expect(made.body).toMatchObject({ created_by: 'owner_ai', kind: 'integration', scopes: [...PRESETS.automation] });

      const ownerMade = await makeKey(t, 'read_only');
      expectProblem(await ai('DELETE', `/v1/owner/api-keys/${ownerMade.id}`), 403, 'not_allowed');
      expect((await ai('DELETE', `/v1/owner/api-keys/${made.body.id}`)).body.status).toBe('revoked');
      expect((await t.owner('GET', `/v1/owner/api-keys/${ownerMade.id}`)).body.status).toBe('active');
      // It may not touch the security section, but may write it back as it is.
      expectProblem(await ai('PUT', '/v1/owner/settings', { body: { settings: { security: { aiMayCreateKeys: false } } } }), 403, 'not_allowed');
      expect((await ai('PUT', '/v1/owner/settings', { body: { settings: { security: { aiMayCreateKeys: true } } } })).status).toBe(200);
    });

    it('has its own idempotency scope, is not rate limited, and its misses are kept under its grant', async () => {
      await setSecurity(t, { aiMayCreateKeys: true });
      const { token, grantId } = await connectAiApp(t, ['keys:write']);
      const ai = withKey(t, token);
      const body = { name: 'Same', preset: 'read_only', idempotency_key: 'same-key' };
      const byOwner = await t.owner('POST', '/v1/owner/api-keys', { body });
      const byAi = await ai('POST', '/v1/owner/api-keys', { body });
      expect(byAi.status).toBe(201);
      expect(byAi.body.key).not.toBe(byOwner.body.key);
      expect((await ai('POST', '/v1/owner/api-keys', { body })).body.key).toBe(byAi.body.key);

      // Never 429: the owner's AI is not rate limited; outside its granted scopes it is refused (403) and each call recorded.
      for (let i = 0; i < 25; i += 1) expect((await ai('GET', '/v1/owner/items')).status).toBe(403);
      expect(await t.inbox.store.apiKeys.listScopeMisses([grantId])).toEqual([
        expect.objectContaining({ principalKind: 'owner_ai', operation: 'list_items', scope: 'inbox:read', calls: 25, refused: 25 }),
      ]);
    });
  });
});
