/**
 * Scopes (inbox spec §5, §9): every owner operation declares one; a call outside a key's scopes is
 * recorded with the scope it needed and goes through until security.enforceScopes refuses it; the
 * owner has every scope; only the owner changes the security section, and a document written back
 * with it unchanged is accepted. The owner's AI is checked by the same domain functions the runner uses.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ALL_SCOPES } from '../src/domain/access/api-keys.js';
import { checkScope } from '../src/domain/access/scope-check.js';
import { guardSecuritySection } from '../src/domain/settings/security-rule.js';
import { OWNER_OPERATIONS, PUBLIC_OPERATIONS } from '../src/operations/index.js';
import { startInbox, type TestInbox } from './support/harness.js';
import { aiCaller, domainOf, makeKey, setSecurity, withKey } from './support/integration-keys.js';

function expectProblem(r: { status: number; body: any }, status: number, code: string) {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.body).toMatchObject({ status, code });
}

describe('the operation table', () => {
  it('every owner operation declares a scope from the list of all scopes', () => {
    const undeclared = OWNER_OPERATIONS.filter((op) => op.scope === undefined || !(ALL_SCOPES as readonly string[]).includes(op.scope));
    expect(undeclared.map((op) => `${op.name}: ${String(op.scope)}`)).toEqual([]);
    expect(OWNER_OPERATIONS.every((op) => op.audience === 'owner')).toBe(true);
    expect(PUBLIC_OPERATIONS.some((op) => op.audience === 'owner')).toBe(false);
  });

  it('the key operations need keys:write and get_networks settings:read', () => {
    const scopeOf = (name: string) => OWNER_OPERATIONS.find((op) => op.name === name)?.scope;
    for (const name of ['list_api_keys', 'get_api_key', 'create_api_key', 'revoke_api_key']) expect(scopeOf(name)).toBe('keys:write');
    expect(scopeOf('get_networks')).toBe('settings:read');
  });
});

describe('scopes over HTTP', () => {
  let t: TestInbox;
  beforeEach(async () => {
    t = await startInbox();
  });
  afterEach(() => t.close());

  const profileName = async () => (await t.owner('GET', '/v1/owner/profile')).body.profile.name;
  const missesOf = async (id: string) => (await t.owner('GET', `/v1/owner/api-keys/${id}`)).body.calls_outside_scopes;

  it('records a call outside scopes and lets it through while scopes are only recorded', async () => {
    const k = await makeKey(t, 'read_only');
    const call = withKey(t, k.key);
    const rename = await call('PATCH', '/v1/owner/profile', { body: { profile: { name: 'Renamed by a read-only key' } } });
    expect(rename.status, JSON.stringify(rename.body)).toBe(200);
    expect(await profileName()).toBe('Renamed by a read-only key');
    const at = new Date(t.clock.now()).toISOString();
    expect(await missesOf(k.id)).toEqual([{ operation: 'update_profile', scope: 'catalogue:write', calls: 1, refused: 0, first_at: at, last_at: at }]);

    t.clock.advance(60_000);
    expect((await call('PATCH', '/v1/owner/profile', { body: { profile: { name: 'Again' } } })).status).toBe(200);
    const later = new Date(t.clock.now()).toISOString();
    expect(await missesOf(k.id)).toEqual([{ operation: 'update_profile', scope: 'catalogue:write', calls: 2, refused: 0, first_at: at, last_at: later }]);

    // Calls inside its scopes leave no record.
    expect((await call('GET', '/v1/owner/items')).status).toBe(200);
    expect((await call('GET', '/v1/owner/settings')).status).toBe(200);
    expect(await missesOf(k.id)).toHaveLength(1);
    // And the list shows the same.
    const listed = (await t.owner('GET', '/v1/owner/api-keys')).body.items.find((x: any) => x.id === k.id);
    expect(listed.calls_outside_scopes).toEqual(await missesOf(k.id));
  });

  it('with enforceScopes on, refuses it with 403 naming the scope, changes nothing, and counts the refusal', async () => {
    const k = await makeKey(t, 'read_only');
    const call = withKey(t, k.key);
    const before = await profileName();
    await setSecurity(t, { enforceScopes: true });

    const refused = await call('PATCH', '/v1/owner/profile', { body: { profile: { name: 'Not allowed' } } });
    expectProblem(refused, 403, 'not_allowed');
    expect(refused.body.scope).toBe('catalogue:write');
    expect(refused.body.detail).toContain('catalogue:write');
    expect(await profileName()).toBe(before);
    expect(await missesOf(k.id)).toEqual([expect.objectContaining({ operation: 'update_profile', scope: 'catalogue:write', calls: 1, refused: 1 })]);

    // Over MCP the same refusal, as a tool error.
    const mcp = await call('POST', '/mcp/owner', {
      headers: { accept: 'application/json, text/event-stream' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'update_profile', arguments: { profile: { name: 'Via MCP' } } } },
    });
    expect(mcp.status).toBe(200);
    const result = typeof mcp.body === 'string' ? JSON.parse(mcp.body.split('data: ')[1] ?? '{}').result : mcp.body.result;
    expect(result.isError).toBe(true);
    expect(result.structuredContent.error).toMatchObject({ code: 'not_allowed', scope: 'catalogue:write' });
    expect(await profileName()).toBe(before);
    expect(await missesOf(k.id)).toEqual([expect.objectContaining({ calls: 2, refused: 2 })]);

    // Inside its scopes it still works, and the owner is never refused.
    expect((await call('GET', '/v1/owner/items')).status).toBe(200);
    expect((await t.owner('PATCH', '/v1/owner/profile', { body: { profile: { name: 'Owner renames' } } })).status).toBe(200);

    // Turned off again, the call goes through.
    await setSecurity(t, { enforceScopes: false });
    expect((await call('PATCH', '/v1/owner/profile', { body: { profile: { name: 'Recorded only' } } })).status).toBe(200);
    expect(await missesOf(k.id)).toEqual([expect.objectContaining({ calls: 3, refused: 2 })]);
  });

  it('the owner key has every scope and is never recorded', async () => {
    await setSecurity(t, { enforceScopes: true });
    expect((await t.owner('GET', '/v1/owner/api-keys')).status).toBe(200);
    expect((await t.owner('GET', '/v1/owner/networks')).status).toBe(200);
    const [owner] = (await t.inbox.store.apiKeys.list()).filter((k) => k.kind === 'owner');
    expect(await t.inbox.store.apiKeys.listScopeMisses([owner!.id])).toEqual([]);
  });

  describe('the security section', () => {
    it('only the owner changes it; a key may write it back unchanged, or leave it out', async () => {
      await setSecurity(t, { aiMayCreateKeys: true });
      const k = await makeKey(t, 'automation');
      const call = withKey(t, k.key);
      const read = (await call('GET', '/v1/owner/settings')).body;
      expect(read.settings.security).toEqual({ aiMayCreateKeys: true, enforceScopes: false });

      for (const security of [{ enforceScopes: true }, { aiMayCreateKeys: false }, null, { aiMayCreateKeys: null }]) {
        const r = await call('PUT', '/v1/owner/settings', { body: { settings: { security } } });
        expectProblem(r, 403, 'not_allowed');
        expect(r.body.detail).toContain('security');
      }
      const unchanged = await t.owner('GET', '/v1/owner/settings');
      expect(unchanged.body.version).toBe(read.version);

      // The whole document written back as read: accepted, security as it was.
      const back = await call('PUT', '/v1/owner/settings', { body: { settings: { ...read.settings, orders: { payDays: 5 } }, expected_version: read.version } });
      expect(back.status, JSON.stringify(back.body)).toBe(200);
      expect(back.body.settings.security).toEqual({ aiMayCreateKeys: true, enforceScopes: false });
      expect(back.body.settings.orders.payDays).toBe(5);
      // Sent with the default value it already has: accepted, nothing in the stored section moves.
      const same = await call('PUT', '/v1/owner/settings', { body: { settings: { security: { enforceScopes: false } } } });
      expect(same.status).toBe(200);
      // (The app's settings form stores both values of the section.)
      expect((await t.inbox.store.settings.get())?.document.security).toEqual({ aiMayCreateKeys: true, enforceScopes: false });
      // Left out: accepted.
      expect((await call('PUT', '/v1/owner/settings', { body: { settings: { orders: { payDays: 6 } } } })).status).toBe(200);

      // The owner key on REST may not change it either: only the owner in the owner app (inbox spec §5).
      const ownerKey = await t.owner('PUT', '/v1/owner/settings', { body: { settings: { security: { enforceScopes: true } } } });
      expectProblem(ownerKey, 403, 'not_allowed');
      expect(ownerKey.body.detail).toContain('owner app');
      // The owner in the app changes it.
      await setSecurity(t, { enforceScopes: true });
      expect((await t.owner('GET', '/v1/owner/settings')).body.settings.security).toEqual({ aiMayCreateKeys: true, enforceScopes: true });
    });

    it("the owner's AI may not change it either, but may write it back unchanged", () => {
      const ai = aiCaller('grant-7', ['settings:write']);
      const before = { security: { enforceScopes: true }, orders: { payDays: 3 } };
      expect(() => guardSecuritySection(ai, before, { security: { enforceScopes: false }, orders: { payDays: 3 } })).toThrow(/security/);
      expect(() => guardSecuritySection(ai, before, { orders: { payDays: 3 } })).toThrow(/security/);
      expect(guardSecuritySection(ai, before, { security: { enforceScopes: true, aiMayCreateKeys: false }, orders: { payDays: 4 } })).toEqual({
        security: { enforceScopes: true },
        orders: { payDays: 4 },
      });
    });
  });

  describe("the owner's AI", () => {
    it('its granted scopes bind it whatever security.enforceScopes says: other calls are refused and recorded under its grant', async () => {
      const ai = aiCaller('grant-42', ['inbox:read']);
      await checkScope(domainOf(t), ai, 'list_items', 'inbox:read');
      const refused = { code: 'not_allowed', extensions: { scope: 'catalogue:write' } };
      await expect(checkScope(domainOf(t), ai, 'upsert_service', 'catalogue:write')).rejects.toMatchObject(refused);
      await expect(checkScope(domainOf(t), ai, 'upsert_service', 'catalogue:write')).rejects.toMatchObject(refused);
      expect(await t.inbox.store.apiKeys.listScopeMisses(['grant-42'])).toEqual([
        expect.objectContaining({ principalId: 'grant-42', principalKind: 'owner_ai', operation: 'upsert_service', scope: 'catalogue:write', calls: 2, refused: 2 }),
      ]);
      await setSecurity(t, { enforceScopes: true });
      await expect(checkScope(domainOf(t), ai, 'upsert_service', 'catalogue:write')).rejects.toMatchObject(refused);
      await checkScope(domainOf(t), ai, 'list_items', 'inbox:read');
      expect(await t.inbox.store.apiKeys.listScopeMisses(['grant-42'])).toEqual([expect.objectContaining({ calls: 3, refused: 3 })]);
    });

    it('an operation that declares no scope admits the owner only', async () => {
      const owner = { kind: 'owner' as const, actor: { kind: 'owner' as const, id: 'k', name: 'o' }, channel: 'rest', keyId: 'k', scopes: [] };
      await checkScope(domainOf(t), owner, 'undeclared', undefined);
      await expect(checkScope(domainOf(t), aiCaller('g', [...ALL_SCOPES]), 'undeclared', undefined)).rejects.toMatchObject({ code: 'not_allowed' });
    });
  });
});
