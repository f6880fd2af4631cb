/**
 * What the instance tells agents about signing and passes, and that it is true: the manifest's
 * agent_policy is read from the code (the agent profile the door verifies) and the settings (the
 * networks enabled, and whether this instance can sign its calls to them), and follows a settings
 * change at once; /docs/agents and /openapi.json say how to sign, how to send passes and what
 * Svc-Signature means (docs/identity.md).
 */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_PROFILE } from '@svc/shared';
import { buildManifest } from '../src/doors/rest/manifest.js';
import { startInbox, type TestInbox } from './support/harness.js';
import { booking, setSettings } from './support/customer-calls.js';
import { newAgent, signedRequest, startPlatform } from './support/agents.js';

let t: TestInbox;
/** A network on this machine that answers nothing (a port just freed): passes to it are tried and fail fast. */
let NETWORK = '';
beforeAll(async () => {
  t = await startInbox({ allowLocalNetworks: true });
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  NETWORK = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
afterAll(() => t.close());

async function policy(): Promise<{ etag: string; policy: any }> {
  const r = await t.request('GET', '/.well-known/agent-inbox.json');
  expect(r.status).toBe(200);
  return { etag: r.headers.get('etag') as string, policy: r.body.agent_policy };
}

describe("the manifest's agent_policy", () => {
  it('says the instance verifies svc-agent/1 and Web Bot Auth signatures, as the door does', async () => {
    const { policy: p } = await policy();
    expect(p.signatures).toEqual([
      {
        profile: 'svc-agent/1',
        tags: ['svc-agent', 'web-bot-auth'],
        alg: 'ed25519',
        key_headers: ['Svc-Agent-Key', 'Signature-Agent'],
        key_directory: '/.well-known/http-message-signatures-directory',
        max_validity_seconds: AGENT_PROFILE.maxValiditySeconds,
        answer_header: 'Svc-Signature',
      },
    ]);
    expect(p.pass_header).toBe('Svc-Pass');
    expect(p.guide).toBe('http://127.0.0.1/docs/agents');
    // Signed as the policy says, with each tag and each way of naming the key: verified.
    const own = await signedRequest(t, newAgent(), 'POST', '/v1/messages', { body: { message: 'Signed with my own key' } });
    expect(own.status).toBe(201);
    expect(own.headers.get('svc-signature')).toMatch(/^verified; keyid="/);
    const platformKey = newAgent();
    const platform = await startPlatform([platformKey]);
    try {
      const viaPlatform = await signedRequest(t, platformKey, 'POST', '/v1/messages', { body: { message: 'Signed by my platform' }, platform: platform.origin, tag: 'web-bot-auth' });
      expect(viaPlatform.status).toBe(201);
      expect(viaPlatform.headers.get('svc-signature')).toBe(`verified; keyid="${platformKey.kid}"`);
    } finally {
      await platform.close();
    }
  });

  it('takes no passes while no network is enabled, and says so', async () => {
    const { policy: p } = await policy();
    expect(p).toMatchObject({ tiers: ['anonymous', 'signed_agent'], passes: false, networks: [] });
  });

  it('follows the settings at once: a network enabled shows, disabled goes, and the ETag changes each time', async () => {
    const before = await policy();
    await setSettings(t, { networks: { [NETWORK]: { enabled: true, issue: true } } });
    const enabled = await policy();
    expect(enabled.policy).toMatchObject({ tiers: ['anonymous', 'signed_agent', 'person'], passes: true, networks: [{ origin: NETWORK, issues_keys: true }] });
    expect(enabled.etag).not.toBe(before.etag);
    // A client holding the old tag is not told it still holds.
    expect((await t.request('GET', '/.well-known/agent-inbox.json', { headers: { 'if-none-match': before.etag } })).status).toBe(200);
    // A pass is indeed taken to that network now: it was tried (and found nobody there).
    const pass = `svcpass1_${new URL(NETWORK).host}_abcdefghijklmnop_abcdefghijklmnopqrstuvwxyz234567`;
    const presented = await t.request('POST', '/v1/bookings', { body: booking('haircut', '2026-11-24T10:00:00Z'), headers: { 'svc-pass': `"${pass}"` } });
    expect(presented.body.identity.networks[NETWORK]).toBe('unreachable');

    await setSettings(t, { networks: { [NETWORK]: { enabled: false } } });
    const disabled = await policy();
    expect(disabled.policy).toMatchObject({ tiers: ['anonymous', 'signed_agent'], passes: false, networks: [] });
    expect(disabled.etag).not.toBe(enabled.etag);
    await setSettings(t, { networks: { [NETWORK]: null } });
  });

  it('takes no passes when the instance cannot sign its calls to networks, whatever is enabled', async () => {
    await setSettings(t, { networks: { [NETWORK]: { enabled: true } } });
    const config = { publicBaseUrl: 'http://127.0.0.1', softwareVersion: 'test' } as Parameters<typeof buildManifest>[1];
    const unable = await buildManifest(t.inbox.store, config, t.clock.now(), async () => false);
    expect(unable.agent_policy).toMatchObject({ passes: false, networks: [], tiers: ['anonymous', 'signed_agent'] });
    const able = await buildManifest(t.inbox.store, config, t.clock.now(), async () => true);
    expect(able.agent_policy).toMatchObject({ passes: true, networks: [{ origin: NETWORK, issues_keys: false }] });
    await setSettings(t, { networks: { [NETWORK]: null } });
  });
});

describe('how to sign and send passes, in the guide and the OpenAPI document', () => {
  it('/docs/agents tells an agent how to sign, how to send passes and what Svc-Signature says', async () => {
    const guide = (await t.request('GET', '/docs/agents')).body as string;
    for (const words of ['svc-agent/1', 'Web Bot Auth', 'Svc-Agent-Key', 'Signature-Agent', AGENT_PROFILE.directoryPath, 'content-digest', 'Svc-Pass', 'Never put a pass or key in a URL', 'Svc-Signature', 'verified; keyid=', 'invalid; reason=', 'replayed_signature', 'agent_policy']) {
      expect(guide, words).toContain(words);
    }
  });

  it('/openapi.json describes the signature and the pass as schemes, and Svc-Signature on every public answer', async () => {
    const doc = (await t.request('GET', '/openapi.json')).body;
    expect(doc.info.description).toMatch(/svc-agent\/1/);
    expect(doc.components.securitySchemes.agentSignature.description).toMatch(/Svc-Agent-Key.*Signature-Agent.*Svc-Signature/s);
    expect(doc.components.headers['Svc-Signature'].description).toMatch(/verified; keyid=.*invalid; reason=/s);
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        for (const [status, response] of Object.entries<any>(operation.responses)) {
          const declared = response.headers?.['Svc-Signature'];
          if (operation['x-audience'] === 'public') expect(declared, `${method} ${path} ${status}`).toEqual({ $ref: '#/components/headers/Svc-Signature' });
          else expect(declared, `${method} ${path} ${status}`).toBeUndefined();
        }
      }
    }
  });
});
