/**
 * The instance's signing key (docs/receipts.md "Keys"): made at first start, private half sealed at
 * rest, kid = RFC 7638 thumbprint, published in the manifest (receipt_keys) and at
 * /.well-known/jwks.json; rotated by the owner only (REST and the owner MCP), old keys kept published.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ed25519Thumbprint } from '@svc/shared';
import { connectMcp } from '../../../test-support/mcp-client.js';
import { storedAnywhere } from '../../../test-support/test-database.js';
import { loadSecretBox } from '../src/domain/secrets/secret-box.js';
import { expectProblem } from './support/customer-calls.js';
import { startInbox, type TestInbox } from './support/harness.js';
import { makeKey, withKey } from './support/integration-keys.js';

describe('receipt signing keys', () => {
  let t: TestInbox;
  beforeEach(async () => {
    t = await startInbox();
  });
  afterEach(async () => {
    await t.close();
  });

  it('one Ed25519 key from the first start, in the manifest and the JWK Set, kid its thumbprint', async () => {
    const manifest = await t.request('GET', '/.well-known/agent-inbox.json');
    const jwks = await t.request('GET', '/.well-known/jwks.json');
    expect(jwks.status).toBe(200);
    // Inbox spec §8: not the profile, manifest, services or products, so uncacheable.
    expect(jwks.headers.get('cache-control')).toBe('no-store');
    expect(manifest.body.receipt_keys).toEqual(jwks.body);
    expect(jwks.body.keys).toHaveLength(1);
    const [key] = jwks.body.keys;
    expect(Object.keys(key).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x']);
    expect(key).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig' });
    expect(key.kid).toBe(ed25519Thumbprint(key));
  });

  it('keeps the private half sealed at rest, and the same key across restarts', async () => {
    const [stored] = await t.inbox.store.signingKeys.list();
    expect(stored!.sealedPrivate).toMatch(/^v1\./);
    const opened = JSON.parse(loadSecretBox(t.dataDir).open(stored!.sealedPrivate, 'receipt-signing-key', stored!.kid));
    expect(opened.x).toBe(stored!.publicJwk.x);
    expect(await storedAnywhere('inbox', t.dataDir, opened.d)).toBe(false);
    const kid = stored!.kid;
    await t.close({ removeData: false });
    t = await startInbox({ dataDir: t.dataDir, seed: false });
    expect((await t.request('GET', '/.well-known/jwks.json')).body.keys.map((k: any) => k.kid)).toEqual([kid]);
  });

  it('a key this instance can no longer open is retired and replaced, still published', async () => {
    const [before] = await t.inbox.store.signingKeys.list();
    await t.close({ removeData: false });
    rmSync(join(t.dataDir, 'secret.key'));
    t = await startInbox({ dataDir: t.dataDir, seed: false });
    const keys = await t.inbox.store.signingKeys.list();
    expect(keys).toHaveLength(2);
    expect(keys[0]!.retiredAt).toBeNull();
    expect(keys[1]).toMatchObject({ kid: before!.kid, retiredAt: expect.any(Number) });
    expect((await t.request('GET', '/.well-known/jwks.json')).body.keys.map((k: any) => k.kid)).toEqual([keys[0]!.kid, before!.kid]);
  });

  it('the owner rotates over REST and the owner MCP; old keys stay published', async () => {
    const first = (await t.owner('GET', '/v1/owner/signing-keys')).body;
    expect(first.keys).toEqual([expect.objectContaining({ status: 'active', retired_at: null })]);
    expect(first.jwks_url).toBe('http://127.0.0.1/.well-known/jwks.json');

    t.clock.advance(1_000);
    const rotated = await t.owner('POST', '/v1/owner/signing-keys/rotate', { body: {}, headers: { 'idempotency-key': 'rotate-1' } });
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
    expect(rotated.body.keys.map((k: any) => k.status)).toEqual(['active', 'retired']);
    expect(rotated.body.keys[1]).toMatchObject({ kid: first.keys[0].kid, retired_at: new Date(t.clock.now()).toISOString() });
    // The same idempotency key replays; it does not rotate again.
    const again = await t.owner('POST', '/v1/owner/signing-keys/rotate', { body: {}, headers: { 'idempotency-key': 'rotate-1' } });
    expect(again.body).toEqual(rotated.body);

    const mcp = await connectMcp(`${t.baseUrl}/mcp/owner`, { headers: { authorization: `Bearer ${t.ownerKey}` } });
    try {
      const result = (await mcp.client.callTool({ name: 'rotate_signing_key', arguments: { idempotency_key: 'rotate-2' } })) as any;
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent.keys.map((k: any) => k.status)).toEqual(['active', 'retired', 'retired']);
    } finally {
      await mcp.close();
    }
    const published = (await t.request('GET', '/.well-known/jwks.json')).body.keys.map((k: any) => k.kid);
    expect(published).toHaveLength(3);
    expect(published.slice(1)).toEqual([rotated.body.keys[0].kid, first.keys[0].kid]);
  });

  it('nobody but the owner rotates; reading needs settings:read', async () => {
    const automation = await makeKey(t, 'automation');
    const readOnly = await makeKey(t, 'read_only');
    expectProblem(await withKey(t, automation.key)('POST', '/v1/owner/signing-keys/rotate', { body: {} }), 403, 'not_allowed');
    expectProblem(await withKey(t, readOnly.key)('POST', '/v1/owner/signing-keys/rotate', { body: {} }), 403, 'not_allowed');
    expect((await withKey(t, readOnly.key)('GET', '/v1/owner/signing-keys')).status).toBe(200);
    expectProblem(await t.request('POST', '/v1/owner/signing-keys/rotate', { body: {} }), 401, 'unauthorized');
    expect((await t.inbox.store.signingKeys.list())).toHaveLength(1);
  });
});
