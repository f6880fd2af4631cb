/**
 * Signed agents (issue 15, docs/identity.md): requests signed under svc-agent/1 with the agent's own
 * key or a platform's (Web Bot Auth), verified on every public door, recorded on what they create,
 * opening their items without a token; each failure served as unsigned with its reason; changes
 * taken once; interop with http-message-signatures and web-bot-auth both ways.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createSigner, createVerifier, httpbis } from 'http-message-signatures';
import { signatureHeaders, verify as webBotAuthVerify } from 'web-bot-auth';
import { Ed25519Signer } from 'web-bot-auth/crypto';
import {
  contentDigestHeader,
  ed25519PrivateKey,
  ed25519PublicKey,
  parseSignatures,
  signAgentRequest,
  signatureBaseFor,
  verifyAgentRequest,
  verifyEd25519,
  type Ed25519KeyPair,
  type Ed25519PrivateJwk,
} from '@svc/shared';
import { startInbox, haircutAt, type TestInbox } from './support/harness.js';
import { expectProblem } from './support/customer-calls.js';
import { INBOX_ORIGIN, newAgent, signedRequest, startPlatform } from './support/agents.js';

let t: TestInbox;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  await t?.close();
});

async function start(options: Parameters<typeof startInbox>[0] = {}) {
  t = await startInbox(options);
  return t;
}

const BOOKING = haircutAt('2026-11-24T10:00:00Z');

async function signedBooking(agent: Ed25519KeyPair, extra: { idempotencyKey?: string } = {}) {
  const r = await signedRequest(t, agent, 'POST', '/v1/bookings', { body: { ...BOOKING, ...(extra.idempotencyKey ? { idempotency_key: extra.idempotencyKey } : {}) } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r;
}

describe('an agent signing with its own key (Svc-Agent-Key)', () => {
  it('is verified, recorded on the item it creates, and shown to the owner as customer.agent', async () => {
    await start();
    const agent = newAgent();
    const r = await signedBooking(agent);
    expect(r.headers.get('svc-signature')).toBe(`verified; keyid="${agent.kid}"`);
    const owner = await t.owner('GET', `/v1/owner/items/${r.body.id}`);
    expect(owner.body.customer.agent).toEqual({
      key_thumbprint: agent.kid,
      signed_with: 'own_key',
      platform: null,
      signed_at: '2026-11-23T10:00:00.000Z',
      first_seen: '2026-11-23T10:00:00.000Z',
      last_seen: '2026-11-23T10:00:00.000Z',
    });
    // An unsigned request is served the same and says nothing of signatures.
    const plain = await t.request('POST', '/v1/bookings', { body: haircutAt('2026-11-24T11:00:00Z') });
    expect(plain.status).toBe(201);
    expect(plain.headers.get('svc-signature')).toBeNull();
    expect((await t.owner('GET', `/v1/owner/items/${plain.body.id}`)).body.customer.agent).toBeNull();
  });

  it('reads and cancels its item with its signature instead of the token; another agent cannot', async () => {
    await start();
    const agent = newAgent();
    const created = await signedBooking(agent);
    const path = `/v1/items/${created.body.id}`;
    expectProblem(await t.request('GET', path), 401, 'unauthorized');
    const read = await signedRequest(t, agent, 'GET', path);
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    expect(read.body.id).toBe(created.body.id);

    const stranger = newAgent();
    const refused = await signedRequest(t, stranger, 'GET', path);
    expect(refused.headers.get('svc-signature')).toBe(`verified; keyid="${stranger.kid}"`);
    expectProblem(refused, 401, 'unauthorized');
    expectProblem(await signedRequest(t, stranger, 'POST', `${path}/cancel`, { body: { idempotency_key: 'x1' } }), 401, 'unauthorized');

    t.clock.advance(60_000);
    const cancelled = await signedRequest(t, agent, 'POST', `${path}/cancel`, { body: { reason: 'plans changed', idempotency_key: 'cancel-1' } });
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    expect(cancelled.body.state).toBe('cancelled');
    const owner = await t.owner('GET', `/v1/owner/items/${created.body.id}`);
    expect(owner.body.customer.agent.last_seen).toBe('2026-11-23T10:01:00.000Z');
    expect(owner.body.customer.agent.first_seen).toBe('2026-11-23T10:00:00.000Z');
  });

  it('works on the public MCP door too: a signed tools/call is recorded on the item', async () => {
    await start();
    const agent = newAgent();
    const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'create_booking', arguments: { ...BOOKING, idempotency_key: 'mcp-1' } } };
    const body = JSON.stringify(call);
    const signed = signAgentRequest({ method: 'POST', url: `${INBOX_ORIGIN}/mcp`, body, privateJwk: agent.privateJwk, now: () => t.clock.now() });
    const r = await t.request('POST', '/mcp', { rawBody: body, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...signed } });
    expect(r.status).toBe(200);
    expect(r.headers.get('svc-signature')).toBe(`verified; keyid="${agent.kid}"`);
    const text = typeof r.body === 'string' ? r.body : JSON.stringify(r.body);
    const id = /"id\\?":\\?"([0-9A-Z]{26})\\?"/.exec(text)?.[1];
    expect(id).toBeDefined();
    const owner = await t.owner('GET', `/v1/owner/items/${id}`);
    expect(owner.body.customer.agent.key_thumbprint).toBe(agent.kid);
  });
});

describe('a signature that does not verify is served as unsigned, saying why', () => {
  it('stale (created more than the window ago): expired', async () => {
    await start();
    const agent = newAgent();
    const r = await signedRequest(t, agent, 'POST', '/v1/bookings', { body: BOOKING, now: () => t.clock.now() - 10 * 60_000 });
    expect(r.status).toBe(201);
    expect(r.headers.get('svc-signature')).toBe('invalid; reason=expired');
    expect((await t.owner('GET', `/v1/owner/items/${r.body.id}`)).body.customer.agent).toBeNull();
  });

  it('from the future: too_far_in_future', async () => {
    await start();
    const r = await signedRequest(t, newAgent(), 'GET', '/v1/business', { now: () => t.clock.now() + 5 * 60_000 });
    expect(r.status).toBe(200);
    expect(r.headers.get('svc-signature')).toBe('invalid; reason=too_far_in_future');
  });

  it('a body that is not the one signed: digest_mismatch', async () => {
    await start();
    const agent = newAgent();
    const body = JSON.stringify(BOOKING);
    const signed = signAgentRequest({ method: 'POST', url: `${INBOX_ORIGIN}/v1/bookings`, body, privateJwk: agent.privateJwk, now: () => t.clock.now() });
    const altered = body.replace('Ana Silva', 'Ana Silvb');
    const r = await t.request('POST', '/v1/bookings', { rawBody: altered, headers: { 'content-type': 'application/json', ...signed } });
    expect(r.status).toBe(201);
    expect(r.headers.get('svc-signature')).toBe('invalid; reason=digest_mismatch');
    // The digest matches but the signature was made over another digest: bad_signature.
    const redigested = await t.request('POST', '/v1/bookings', {
      rawBody: altered,
      headers: { 'content-type': 'application/json', ...signed, 'content-digest': contentDigestHeader(altered) },
    });
    expect(redigested.headers.get('svc-signature')).toBe('invalid; reason=bad_signature');
  });

  it('a key that is not the one it names: unknown_key; another signer over the same headers: bad_signature', async () => {
    await start();
    const agent = newAgent();
    const other = newAgent();
    const signed = signAgentRequest({ method: 'GET', url: `${INBOX_ORIGIN}/v1/business`, privateJwk: agent.privateJwk, now: () => t.clock.now() });
    const otherKey = signAgentRequest({ method: 'GET', url: `${INBOX_ORIGIN}/v1/business`, privateJwk: other.privateJwk, now: () => t.clock.now() });
    // Svc-Agent-Key of another agent: its thumbprint is not the keyid.
    const swapped = await t.request('GET', '/v1/business', { headers: { ...signed, 'svc-agent-key': otherKey['svc-agent-key'] as string } });
    expect(swapped.headers.get('svc-signature')).toBe('invalid; reason=unknown_key');
    // The right key header, but a signature made with another key.
    const forged = await t.request('GET', '/v1/business', { headers: { ...signed, signature: otherKey.signature as string } });
    expect(forged.headers.get('svc-signature')).toBe('invalid; reason=bad_signature');
  });

  it('a change not covering @path, and a component the profile does not read: component_missing, malformed', async () => {
    await start();
    const agent = newAgent();
    const body = JSON.stringify(BOOKING);
    const signed = signAgentRequest({ method: 'POST', url: `${INBOX_ORIGIN}/v1/bookings`, body, privateJwk: agent.privateJwk, now: () => t.clock.now() });
    const input = (signed['signature-input'] as string).replace('"@path" ', '');
    const r = await t.request('POST', '/v1/bookings', { rawBody: body, headers: { 'content-type': 'application/json', ...signed, 'signature-input': input } });
    expect(r.status).toBe(201);
    expect(r.headers.get('svc-signature')).toBe('invalid; reason=component_missing');
    const queryParam = (signed['signature-input'] as string).replace('"@path"', '"@path" "@query-param";name="x"');
    const m = await t.request('POST', '/v1/bookings', { rawBody: body, headers: { 'content-type': 'application/json', ...signed, 'signature-input': queryParam } });
    expect(m.headers.get('svc-signature')).toBe('invalid; reason=malformed');
  });

  it('a signed request does not take the access token from its URL', async () => {
    await start();
    const created = await t.request('POST', '/v1/bookings', { body: BOOKING });
    const path = `/v1/items/${created.body.id}?access_token=${created.body.accessToken}`;
    expect((await t.request('GET', path)).status).toBe(200);
    expectProblem(await signedRequest(t, newAgent(), 'GET', path), 401, 'unauthorized');
    expect((await signedRequest(t, newAgent(), 'GET', `/v1/items/${created.body.id}`, { headers: { 'x-access-token': created.body.accessToken } })).status).toBe(200);
  });
});

describe('a signed change is taken once', () => {
  it('the same signature with the same idempotency key is a retry; otherwise 401 replayed_signature', async () => {
    await start();
    const agent = newAgent();
    const body = JSON.stringify(BOOKING);
    const signed = signAgentRequest({ method: 'POST', url: `${INBOX_ORIGIN}/v1/bookings`, body, privateJwk: agent.privateJwk, now: () => t.clock.now() });
    const send = (headers: Record<string, string> = {}, raw = body) => t.request('POST', '/v1/bookings', { rawBody: raw, headers: { 'content-type': 'application/json', ...signed, ...headers } });
    const first = await send({ 'idempotency-key': 'book-1' });
    expect(first.status).toBe(201);
    const retry = await send({ 'idempotency-key': 'book-1' });
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body.id).toBe(first.body.id);
    // The same signature with another idempotency key (a header the signature does not cover).
    expectProblem(await send({ 'idempotency-key': 'book-2' }), 401, 'replayed_signature');

    // A change signed without any idempotency key cannot be retried with its signature.
    const bare = JSON.stringify(haircutAt('2026-11-24T14:00:00Z'));
    const bareSigned = signAgentRequest({ method: 'POST', url: `${INBOX_ORIGIN}/v1/bookings`, body: bare, privateJwk: agent.privateJwk, now: () => t.clock.now() });
    expect((await send(bareSigned, bare)).status).toBe(201);
    expectProblem(await send(bareSigned, bare), 401, 'replayed_signature');
    const owner = await t.owner('GET', '/v1/owner/items?type=booking');
    expect(owner.body.items).toHaveLength(2);
  });

  it('the signature is remembered across a restart (durable), until it expires', async () => {
    await start();
    const agent = newAgent();
    const bare = JSON.stringify(BOOKING);
    const signed = signAgentRequest({ method: 'POST', url: `${INBOX_ORIGIN}/v1/bookings`, body: bare, privateJwk: agent.privateJwk, now: () => t.clock.now() });
    expect((await t.request('POST', '/v1/bookings', { rawBody: bare, headers: { 'content-type': 'application/json', ...signed } })).status).toBe(201);
    const { dataDir, clock, ownerKey } = t;
    await t.close({ removeData: false });
    t = await startInbox({ dataDir, clock, seed: false, ownerKey });
    const again = await t.request('POST', '/v1/bookings', { rawBody: bare, headers: { 'content-type': 'application/json', ...signed } });
    expectProblem(again, 401, 'replayed_signature');
    // Past its window it is no longer a signature at all: served as unsigned.
    t.clock.advance(10 * 60_000);
    const late = await t.request('POST', '/v1/bookings', { rawBody: bare, headers: { 'content-type': 'application/json', ...signed } });
    expect(late.headers.get('svc-signature')).toBe('invalid; reason=expired');
  });
});

describe('a platform named by Signature-Agent (Web Bot Auth)', () => {
  it('its key is fetched from the platform\'s directory, cached, and the platform recorded', async () => {
    await start({ allowLocalNetworks: true });
    const agent = newAgent();
    const platform = await startPlatform([agent]);
    closers.push(platform.close);
    const r = await signedRequest(t, agent, 'POST', '/v1/bookings', { body: BOOKING, platform: platform.origin });
    expect(r.status).toBe(201);
    expect(r.headers.get('svc-signature')).toBe(`verified; keyid="${agent.kid}"`);
    const read = await signedRequest(t, agent, 'GET', `/v1/items/${r.body.id}`, { platform: platform.origin });
    expect(read.status).toBe(200);
    expect(platform.fetches()).toBe(1);
    const owner = await t.owner('GET', `/v1/owner/items/${r.body.id}`);
    expect(owner.body.customer.agent).toMatchObject({ key_thumbprint: agent.kid, signed_with: 'platform', platform: platform.origin });
    // A key the platform does not publish.
    const stranger = await signedRequest(t, newAgent(), 'GET', '/v1/business', { platform: platform.origin });
    expect(stranger.headers.get('svc-signature')).toBe('invalid; reason=unknown_key');
  });

  it('a platform on this machine is not fetched unless local peers are allowed (SSRF-safe)', async () => {
    await start();
    const agent = newAgent();
    const platform = await startPlatform([agent]);
    closers.push(platform.close);
    const r = await signedRequest(t, agent, 'GET', '/v1/business', { platform: platform.origin });
    expect(r.headers.get('svc-signature')).toBe('invalid; reason=profile_mismatch');
    const https = await signedRequest(t, agent, 'GET', '/v1/business', { platform: 'https://127.0.0.1:1' });
    expect(https.headers.get('svc-signature')).toBe('invalid; reason=unknown_key');
    expect(platform.fetches()).toBe(0);
  });

  it('web-bot-auth signs, the inbox verifies (with and without covering the request line)', async () => {
    await start({ allowLocalNetworks: true });
    const agent = newAgent();
    const platform = await startPlatform([agent]);
    closers.push(platform.close);
    const signer = await Ed25519Signer.fromJWK(agent.privateJwk as unknown as Parameters<typeof Ed25519Signer.fromJWK>[0]);
    const created = new Date(t.clock.now());
    const expires = new Date(t.clock.now() + 60_000);
    // A read, with Web Bot Auth's own components (@authority and signature-agent).
    const agentHeader = `"${platform.origin}"`;
    const readHeaders = await signatureHeaders(new Request(`${INBOX_ORIGIN}/v1/business`, { headers: { 'Signature-Agent': agentHeader } }), signer, { created, expires });
    const read = await t.request('GET', '/v1/business', { headers: { 'signature-agent': agentHeader, ...readHeaders } });
    expect(read.headers.get('svc-signature')).toBe(`verified; keyid="${agent.kid}"`);
    // A change covering what the profile asks of one.
    const body = JSON.stringify(BOOKING);
    const digest = contentDigestHeader(body);
    const writeHeaders = await signatureHeaders(
      new Request(`${INBOX_ORIGIN}/v1/bookings`, { method: 'POST', headers: { 'Signature-Agent': agentHeader, 'Content-Digest': digest } }),
      signer,
      { created, expires, components: ['@method', '@authority', '@path', 'content-digest', 'signature-agent'] },
    );
    const write = await t.request('POST', '/v1/bookings', {
      rawBody: body,
      headers: { 'content-type': 'application/json', 'signature-agent': agentHeader, 'content-digest': digest, ...writeHeaders },
    });
    expect(write.status).toBe(201);
    expect(write.headers.get('svc-signature')).toBe(`verified; keyid="${agent.kid}"`);
    // Web Bot Auth's read components do not make a change: a POST must cover its method, path and body.
    const loose = await signatureHeaders(new Request(`${INBOX_ORIGIN}/v1/bookings`, { method: 'POST', headers: { 'Signature-Agent': agentHeader } }), signer, { created, expires });
    const looseWrite = await t.request('POST', '/v1/bookings', { rawBody: JSON.stringify(haircutAt('2026-11-24T11:00:00Z')), headers: { 'content-type': 'application/json', 'signature-agent': agentHeader, ...loose } });
    expect(looseWrite.status).toBe(201);
    expect(looseWrite.headers.get('svc-signature')).toBe('invalid; reason=component_missing');
  });
});

describe('interop: independent libraries', () => {
  it('http-message-signatures signs under svc-agent/1 and the inbox verifies', async () => {
    await start();
    const agent = newAgent();
    const body = JSON.stringify(BOOKING);
    const keyHeader = `svc=:${Buffer.from(JSON.stringify({ kty: 'OKP', crv: 'Ed25519', x: agent.publicJwk.x })).toString('base64')}:`;
    const request = {
      method: 'POST',
      url: `${INBOX_ORIGIN}/v1/bookings`,
      headers: { 'content-type': 'application/json', 'content-digest': contentDigestHeader(body), 'svc-agent-key': keyHeader },
    };
    const signed = await httpbis.signMessage(
      {
        key: createSigner(ed25519PrivateKey(agent.privateJwk), 'ed25519', agent.kid),
        name: 'svc',
        fields: ['@method', '@authority', '@path', 'content-digest', 'svc-agent-key'],
        params: ['created', 'expires', 'nonce', 'keyid', 'alg', 'tag'],
        paramValues: { created: new Date(t.clock.now()), expires: new Date(t.clock.now() + 300_000), nonce: 'n0nce-made-by-another-library', tag: 'svc-agent' },
      },
      request,
    );
    const r = await t.request('POST', '/v1/bookings', { rawBody: body, headers: signed.headers as Record<string, string> });
    expect(r.status).toBe(201);
    expect(r.headers.get('svc-signature')).toBe(`verified; keyid="${agent.kid}"`);
  });

  it('our signatures verify with http-message-signatures and, as Web Bot Auth, with web-bot-auth', async () => {
    const agent = newAgent();
    const body = JSON.stringify(BOOKING);
    const url = 'https://inbox.example/v1/bookings';
    const ours = signAgentRequest({ method: 'POST', url, body, privateJwk: agent.privateJwk });
    const verified = await httpbis.verifyMessage(
      { keyLookup: async () => ({ id: agent.kid, algs: ['ed25519'], verify: createVerifier(ed25519PublicKey(agent.publicJwk), 'ed25519') }) },
      { method: 'POST', url, headers: ours },
    );
    expect(verified).toBe(true);
    const tampered = await httpbis.verifyMessage(
      { keyLookup: async () => ({ id: agent.kid, algs: ['ed25519'], verify: createVerifier(ed25519PublicKey(agent.publicJwk), 'ed25519') }) },
      { method: 'POST', url: 'https://inbox.example/v1/orders', headers: ours },
    );
    expect(tampered).toBe(false);

    const asBot = signAgentRequest({ method: 'GET', url: 'https://inbox.example/v1/business', privateJwk: agent.privateJwk, platform: 'https://platform.example', tag: 'web-bot-auth' });
    let checked = false;
    await webBotAuthVerify(new Request('https://inbox.example/v1/business', { headers: asBot }), async (data, signature, params) => {
      expect(params.keyid).toBe(agent.kid);
      expect(params.tag).toBe('web-bot-auth');
      checked = verifyEd25519(data, signature, agent.publicJwk);
    });
    expect(checked).toBe(true);
    // And our verifier accepts what it made.
    const result = await verifyAgentRequest(
      { method: 'GET', url: 'https://inbox.example/v1/business', headers: asBot },
      { lookupDirectoryKey: async ({ platform, keyid }) => (platform === 'https://platform.example' && keyid === agent.kid ? agent.publicJwk : null) },
    );
    expect(result).toMatchObject({ ok: true, platform: 'https://platform.example', bound: true, forwardRefusal: null });
  });

  it('the RFC 9421 Appendix B.2.6 Ed25519 vector verifies through the functions the agent verifier uses', () => {
    const key: Ed25519PrivateJwk = { kty: 'OKP', crv: 'Ed25519', d: 'n4Ni-HpISpVObnQMW0wOhCKROaIKqKtW_2ZYb2p9KcU', x: 'JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs' };
    const request = {
      method: 'POST',
      url: 'https://example.com/foo?param=Value&Pet=dog',
      headers: {
        Date: 'Tue, 20 Apr 2021 02:07:55 GMT',
        'Content-Type': 'application/json',
        'Content-Length': '18',
        'Signature-Input': 'sig-b26=("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"',
        Signature: 'sig-b26=:wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw==:',
      },
    };
    const [parsed] = parseSignatures(request.headers);
    expect(verifyEd25519(signatureBaseFor(request, parsed!), parsed!.signature, key)).toBe(true);
    expect(verifyEd25519(signatureBaseFor({ ...request, method: 'PUT' }, parsed!), parsed!.signature, key)).toBe(false);
  });
});

describe('rate limits per signing key', () => {
  it('a signed agent has its own budget, besides its address\'s', async () => {
    await start({ rateLimit: 0.01 });
    const agent = newAgent();
    // agent budget: 300 × 0.01 = 3 a minute; the address's read budget 600 × 0.01 = 6.
    for (let i = 0; i < 3; i += 1) expect((await signedRequest(t, agent, 'GET', '/v1/business')).status).toBe(200);
    const limited = await signedRequest(t, agent, 'GET', '/v1/business');
    expectProblem(limited, 429, 'rate_limited');
    expect(limited.headers.get('ratelimit-policy')).toBe('"agent";q=3;w=60');
    // Another key from the same address is not held back by it.
    expect((await signedRequest(t, newAgent(), 'GET', '/v1/business')).status).toBe(200);
  });
});
