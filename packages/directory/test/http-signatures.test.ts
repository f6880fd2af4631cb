/**
 * RFC 9421 HTTP Message Signatures and the svc-instance/1 profile (packages/shared/src/signatures):
 * the RFC's Ed25519 vector, interop with an RFC 9421 library nobody here wrote
 * (`http-message-signatures`), and hostile requests each refused with its precise reason.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash } from 'node:crypto';
import { httpbis, createSigner, createVerifier } from 'http-message-signatures';
import { describe, expect, it } from 'vitest';
import {
  INSTANCE_PROFILE,
  MemoryReplayStore,
  SIGNATURE_FAILURE_PROBLEMS,
  checkContentDigest,
  contentDigestHeader,
  createInstanceKeyCache,
  createSignatureBase,
  ed25519JwkProblem,
  ed25519PrivateKey,
  ed25519PublicKey,
  ed25519Thumbprint,
  generateEd25519Key,
  parseSignatures,
  serializeSignatureParams,
  signInstanceRequest,
  signMessage,
  signatureBaseFor,
  signatureProblem,
  verifyEd25519,
  verifyInstanceRequest,
  type Ed25519KeyPair,
  type Ed25519PrivateJwk,
  type Ed25519PublicJwk,
  type IncomingSignedRequest,
  type ReplayStore,
  type SignatureFailureReason,
  type SignatureParams,
  type VerifyInstanceRequestOptions,
} from '@svc/shared';

// ---------------------------------------------------------------------------------------------
// RFC 9421 Appendix B.1.4 (test-key-ed25519) and B.2.6, public test material.
// ---------------------------------------------------------------------------------------------
const RFC_KEY: Ed25519PrivateJwk = {
  kty: 'OKP',
  crv: 'Ed25519',
  kid: 'test-key-ed25519',
  d: 'n4Ni-HpISpVObnQMW0wOhCKROaIKqKtW_2ZYb2p9KcU',
  x: 'JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs',
};
const RFC_PUBLIC_PEM = '-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAJrQLj5P/89iXES9+vFgrIy29clF9CC/oPPsw3c5D0bs=\n-----END PUBLIC KEY-----\n';
const RFC_PRIVATE_PEM = '-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIJ+DYvh6SEqVTm50DFtMDoQikTmiCqirVv9mWG9qfSnF\n-----END PRIVATE KEY-----\n';

/** The request of RFC 9421 Appendix B.2 (test-request). */
const RFC_REQUEST = {
  method: 'POST',
  url: 'https://example.com/foo?param=Value&Pet=dog',
  headers: {
    Host: 'example.com',
    Date: 'Tue, 20 Apr 2021 02:07:55 GMT',
    'Content-Type': 'application/json',
    'Content-Digest': 'sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:',
    'Content-Length': '18',
  },
  body: '{"hello": "world"}',
};
const B26_COMPONENTS = ['date', '@method', '@path', '@authority', 'content-type', 'content-length'];
const B26_BASE = [
  '"date": Tue, 20 Apr 2021 02:07:55 GMT',
  '"@method": POST',
  '"@path": /foo',
  '"@authority": example.com',
  '"content-type": application/json',
  '"content-length": 18',
  '"@signature-params": ("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"',
].join('\n');
const B26_SIGNATURE_INPUT = 'sig-b26=("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"';
const B26_SIGNATURE = 'sig-b26=:wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw==:';

describe('RFC 9421 Appendix B.2.6 (Ed25519)', () => {
  it('the B.1.4 key: the JWK and the PEMs are one key', async () => {
    const { createPrivateKey, createPublicKey } = await import('node:crypto');
    expect(createPrivateKey(RFC_PRIVATE_PEM).export({ format: 'jwk' })).toMatchObject({ d: RFC_KEY.d, x: RFC_KEY.x });
    expect(createPublicKey(RFC_PUBLIC_PEM).export({ format: 'jwk' })).toMatchObject({ x: RFC_KEY.x });
    expect(() => ed25519PrivateKey(RFC_KEY)).not.toThrow();
  });

  it('builds the signature base string exactly', () => {
    const params = serializeSignatureParams(B26_COMPONENTS, { created: 1618884473, keyid: 'test-key-ed25519' });
    expect(createSignatureBase(RFC_REQUEST, B26_COMPONENTS, params)).toBe(B26_BASE);
  });

  it('rebuilds the same base from the published Signature-Input, and the published signature verifies', () => {
    const [parsed, ...others] = parseSignatures({ ...RFC_REQUEST.headers, 'Signature-Input': B26_SIGNATURE_INPUT, Signature: B26_SIGNATURE });
    expect(others).toEqual([]);
    expect(parsed?.label).toBe('sig-b26');
    expect(parsed?.created).toBe(1618884473);
    expect(parsed?.keyid).toBe('test-key-ed25519');
    expect(signatureBaseFor(RFC_REQUEST, parsed!)).toBe(B26_BASE);
    expect(verifyEd25519(B26_BASE, parsed!.signature, RFC_KEY)).toBe(true);
    expect(verifyEd25519(B26_BASE.replace('/foo', '/bar'), parsed!.signature, RFC_KEY)).toBe(false);
  });

  it('our signer reproduces the published Signature-Input and Signature (Ed25519 is deterministic)', () => {
    const signed = signMessage(RFC_REQUEST, { label: 'sig-b26', components: B26_COMPONENTS, params: { created: 1618884473, keyid: 'test-key-ed25519' }, key: RFC_KEY });
    expect(signed.base).toBe(B26_BASE);
    expect(signed['Signature-Input']).toBe(B26_SIGNATURE_INPUT);
    expect(signed.Signature).toBe(B26_SIGNATURE);
  });

  it('http-message-signatures agrees on the vector', async () => {
    const theirs = await httpbis.signMessage(
      { key: createSigner(ed25519PrivateKey(RFC_KEY), 'ed25519', 'test-key-ed25519'), name: 'sig-b26', fields: B26_COMPONENTS, params: ['created', 'keyid'], paramValues: { created: new Date(1618884473_000) } },
      { method: RFC_REQUEST.method, url: RFC_REQUEST.url, headers: { ...RFC_REQUEST.headers } },
    );
    const fields = theirs.headers as Record<string, string>;
    expect(fields['Signature-Input']).toBe(B26_SIGNATURE_INPUT);
    expect(fields.Signature).toBe(B26_SIGNATURE);
  });

  it('Content-Digest: the RFC 9530 sha-256 example and the B.2 request\'s sha-512', () => {
    expect(contentDigestHeader(RFC_REQUEST.body)).toBe('sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:');
    expect(contentDigestHeader(RFC_REQUEST.body, 'sha-512')).toBe(RFC_REQUEST.headers['Content-Digest']);
    expect(checkContentDigest(RFC_REQUEST.headers['Content-Digest'], RFC_REQUEST.body)).toEqual({ ok: true, algorithms: ['sha-512'] });
    expect(checkContentDigest(RFC_REQUEST.headers['Content-Digest'], '{"hello": "World"}')).toMatchObject({ ok: false, problem: 'mismatch' });
    expect(checkContentDigest('md5=:AAAA:', RFC_REQUEST.body)).toMatchObject({ ok: false, problem: 'unsupported' });
    expect(checkContentDigest('sha-256=abc', RFC_REQUEST.body)).toMatchObject({ ok: false, problem: 'malformed' });
    expect(checkContentDigest('sha-256', RFC_REQUEST.body)).toMatchObject({ ok: false, problem: 'malformed' });
    expect(checkContentDigest(`sha-256=:${'A'.repeat(2000)}:`, RFC_REQUEST.body)).toMatchObject({ ok: false, problem: 'malformed' });
  });

  it('kid: RFC 7638 thumbprint, checked on RFC 8037 Appendix A.3', () => {
    expect(ed25519Thumbprint({ kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' })).toBe('kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k');
    const pair = generateEd25519Key();
    expect(pair.kid).toBe(ed25519Thumbprint(pair.publicJwk));
    expect(pair.publicJwk).not.toHaveProperty('d');
  });

  it('a thumbprint remembered for a key is the same the second time, and a remembered x does not make another key type or curve pass', () => {
    const x = '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo';
    expect(ed25519Thumbprint({ kty: 'OKP', crv: 'Ed25519', x })).toBe('kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k');
    expect(ed25519Thumbprint({ kty: 'OKP', crv: 'Ed25519', x })).toBe('kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k');
    expect(() => ed25519Thumbprint({ kty: 'OKP', crv: 'X25519' as 'Ed25519', x })).toThrow(/crv/);
    expect(() => ed25519Thumbprint({ kty: 'EC' as 'OKP', crv: 'Ed25519', x })).toThrow(/kty/);
    // Many keys (past what is kept) still give each its own thumbprint.
    const keys = Array.from({ length: 1_100 }, () => generateEd25519Key().publicJwk.x);
    const rfc7638 = (key: string) => createHash('sha256').update(`{"crv":"Ed25519","kty":"OKP","x":"${key}"}`).digest('base64url');
    for (const key of [...keys, ...keys.slice(0, 10)]) expect(ed25519Thumbprint({ kty: 'OKP', crv: 'Ed25519', x: key })).toBe(rfc7638(key));
  });
});

// ---------------------------------------------------------------------------------------------
// svc-instance/1 fixtures
// ---------------------------------------------------------------------------------------------
const T = 1_800_000_000; // a fixed "now", in seconds
const INSTANCE = 'https://inbox.example';
const PING_URL = 'https://directory.example/v1/instances/inbox.example/ping';
const RECEIPTS_URL = 'https://directory.example/v1/receipts?network=main';
const BODY = JSON.stringify({ version: '0.1.0', runtime: 'node' });

interface Fixture {
  key: Ed25519KeyPair;
  keys: Map<string, Ed25519PublicJwk>;
  store: MemoryReplayStore;
  options(overrides?: Partial<VerifyInstanceRequestOptions>): VerifyInstanceRequestOptions;
  sign(url?: string, body?: string, at?: number): IncomingSignedRequest;
}

function fixture(): Fixture {
  const key = generateEd25519Key();
  const keys = new Map([[key.kid, key.publicJwk]]);
  const store = new MemoryReplayStore({ maxEntries: 1000 });
  return {
    key,
    keys,
    store,
    options: (overrides = {}) => ({
      lookupKey: async ({ keyid }) => keys.get(keyid) ?? null,
      replayStore: store,
      now: () => T * 1000,
      ...overrides,
    }),
    sign: (url = PING_URL, body = BODY, at = T) => ({
      method: 'POST',
      url,
      body,
      headers: { 'content-type': 'application/json', ...lower(signInstanceRequest({ method: 'POST', url, body, instance: INSTANCE, privateJwk: key.privateJwk, now: () => at * 1000 })) },
    }),
  };
}

function lower(headers: object): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), String(v)]));
}

/** A signature crafted with the generic signer, to break one rule of the profile at a time. */
function craft(
  key: Ed25519KeyPair,
  change: { components?: string[]; params?: Partial<SignatureParams> & Record<string, unknown>; headers?: Record<string, string>; url?: string; body?: string; label?: string },
): IncomingSignedRequest {
  const url = change.url ?? PING_URL;
  const body = change.body ?? BODY;
  const headers: Record<string, string> = { 'content-type': 'application/json', 'svc-instance': INSTANCE, ...(body ? { 'content-digest': contentDigestHeader(body) } : {}), ...change.headers };
  const components = change.components ?? ['@method', '@authority', '@path', ...(new URL(url).search ? ['@query'] : []), ...(body ? ['content-digest'] : []), 'svc-instance'];
  const params = { created: T, expires: T + 300, nonce: 'n'.repeat(32), alg: 'ed25519', keyid: key.kid, tag: 'svc-instance', ...change.params };
  for (const name of Object.keys(params)) if ((params as Record<string, unknown>)[name] === undefined) delete (params as Record<string, unknown>)[name];
  const signed = signMessage({ method: 'POST', url, headers }, { label: change.label ?? 'svc', components, params: params as SignatureParams, key: key.privateJwk });
  return { method: 'POST', url, body, headers: { ...headers, 'signature-input': signed['Signature-Input'], signature: signed.Signature } };
}

async function reasonOf(request: IncomingSignedRequest, options: VerifyInstanceRequestOptions): Promise<SignatureFailureReason | 'ok'> {
  const result = await verifyInstanceRequest(request, options);
  return result.ok ? 'ok' : result.reason;
}

describe('svc-instance/1: signing and verifying', () => {
  it('a signed ping verifies and says who, with which key, when and what it covered', async () => {
    expect(INSTANCE_PROFILE).toMatchObject({ name: 'svc-instance/1', tag: 'svc-instance', alg: 'ed25519', maxValiditySeconds: 300, clockSkewSeconds: 60, replayGraceSeconds: 60 });
    const f = fixture();
    const request = f.sign();
    expect(Object.keys(request.headers).sort()).toEqual(['content-digest', 'content-type', 'signature', 'signature-input', 'svc-instance']);
    expect(request.headers['signature-input' as never]).toMatch(/^svc=\("@method" "@authority" "@path" "content-digest" "svc-instance"\);created=1800000000;expires=1800000300;nonce="[A-Za-z0-9_-]{43}";alg="ed25519";keyid="[A-Za-z0-9_-]{43}";tag="svc-instance"$/);
    const result = await verifyInstanceRequest(request, f.options({ expectedInstance: INSTANCE }));
    expect(result).toMatchObject({
      ok: true,
      keyid: f.key.kid,
      instance: INSTANCE,
      created: T,
      expires: T + 300,
      label: 'svc',
      components: ['@method', '@authority', '@path', 'content-digest', 'svc-instance'],
      key: f.key.publicJwk,
    });
    if (result.ok) expect(result.signatureId).toBe(createHash('sha256').update(parseSignatures(request.headers)[0]!.signature).digest('base64url'));
  });

  it('covers @query when the URL has one, and no Content-Digest without a body', async () => {
    const f = fixture();
    const withQuery = f.sign(RECEIPTS_URL);
    expect(withQuery.headers['signature-input' as never]).toContain('("@method" "@authority" "@path" "@query" "content-digest" "svc-instance")');
    expect(await reasonOf(withQuery, f.options())).toBe('ok');
    const get = signInstanceRequest({ method: 'GET', url: 'https://directory.example/v1/instances/inbox.example/status', instance: INSTANCE, privateJwk: f.key.privateJwk, now: () => T * 1000 });
    expect(get['Content-Digest']).toBeUndefined();
    expect(get['Signature-Input']).toContain('("@method" "@authority" "@path" "svc-instance")');
    expect(await reasonOf({ method: 'GET', url: 'https://directory.example/v1/instances/inbox.example/status', headers: get }, f.options())).toBe('ok');
  });

  it('reads Fetch Headers, mixed-case records and repeated field lines alike', async () => {
    const f = fixture();
    const request = f.sign();
    const h = request.headers as Record<string, string>;
    expect(await reasonOf({ ...request, headers: new Headers(h) }, f.options({ replayStore: new MemoryReplayStore() }))).toBe('ok');
    const mixed = Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toUpperCase(), v]));
    expect(await reasonOf({ ...request, headers: mixed }, f.options({ replayStore: new MemoryReplayStore() }))).toBe('ok');
    // A second, unrelated signature on its own field line (as Node keeps repeated lines) does not disturb ours.
    const other = craft(generateEd25519Key(), { label: 'bot', params: { tag: 'web-bot-auth' } }).headers as Record<string, string>;
    const repeated = { ...h, 'signature-input': [h['signature-input'], other['signature-input']], signature: [h.signature, other.signature] };
    expect(await reasonOf({ ...request, headers: repeated as never }, f.options({ replayStore: new MemoryReplayStore() }))).toBe('ok');
  });

  it('uses the URL the receiver knows itself by, never the Host header', async () => {
    const f = fixture();
    const request = f.sign();
    expect(await reasonOf({ ...request, headers: { ...request.headers, host: 'evil.example' } }, f.options())).toBe('ok');
    const g = fixture();
    const signedForOther = g.sign('https://other-directory.example/v1/instances/inbox.example/ping');
    expect(await reasonOf({ ...signedForOther, url: PING_URL }, g.options())).toBe('bad_signature');
  });

  it('the signer refuses a kid that is not the thumbprint, a non-origin instance and a validity over 300 s', () => {
    const { privateJwk } = generateEd25519Key();
    expect(() => signInstanceRequest({ method: 'POST', url: PING_URL, instance: INSTANCE, privateJwk, keyid: 'k1' })).toThrow(/thumbprint/);
    expect(() => signInstanceRequest({ method: 'POST', url: PING_URL, instance: 'https://inbox.example/path', privateJwk })).toThrow(/origin/);
    expect(() => signInstanceRequest({ method: 'POST', url: PING_URL, instance: 'http://inbox.example', privateJwk })).toThrow(/origin/);
    expect(() => signInstanceRequest({ method: 'POST', url: PING_URL, instance: INSTANCE, privateJwk, validitySeconds: 301 })).toThrow(RangeError);
    expect(() => signInstanceRequest({ method: 'POST', url: PING_URL, instance: INSTANCE, privateJwk: { ...privateJwk, x: generateEd25519Key().publicJwk.x } })).toThrow(/public key of d/);
  });
});

describe('interop with http-message-signatures (an RFC 9421 library nobody here wrote)', () => {
  const verifierFor = (jwk: Ed25519PublicJwk) => async () => ({ id: ed25519Thumbprint(jwk), algs: ['ed25519'], verify: createVerifier(ed25519PublicKey(jwk), 'ed25519') });

  it('verifies what we sign (POST with query and body, GET without body)', async () => {
    const key = generateEd25519Key();
    for (const [method, url, body] of [['POST', RECEIPTS_URL, BODY], ['POST', PING_URL, BODY], ['GET', 'https://directory.example/v1/instances/inbox.example/status', undefined]] as const) {
      const headers = signInstanceRequest({ method, url, body, instance: INSTANCE, privateJwk: key.privateJwk });
      expect(await httpbis.verifyMessage({ keyLookup: verifierFor(key.publicJwk), requiredFields: ['@method', '@authority', '@path', 'svc-instance'] }, { method, url, headers: { ...headers } })).toBe(true);
      // Tampered: another path, or another instance.
      expect(await httpbis.verifyMessage({ keyLookup: verifierFor(key.publicJwk) }, { method, url: url.replace('/v1/', '/v2/'), headers: { ...headers } })).toBe(false);
      expect(await httpbis.verifyMessage({ keyLookup: verifierFor(key.publicJwk) }, { method, url, headers: { ...headers, 'Svc-Instance': 'https://evil.example' } })).toBe(false);
      // And by another key.
      expect(await httpbis.verifyMessage({ keyLookup: verifierFor(generateEd25519Key().publicJwk) }, { method, url, headers: { ...headers } })).toBe(false);
    }
  });

  it('we verify what it signs under our profile, and refuse it when tampered', async () => {
    const key = generateEd25519Key();
    for (const url of [RECEIPTS_URL, PING_URL]) {
      const created = new Date(T * 1000);
      const signed = await httpbis.signMessage(
        {
          key: createSigner(ed25519PrivateKey(key.privateJwk), 'ed25519', key.kid),
          name: 'theirs',
          fields: ['@method', '@authority', '@path', ...(new URL(url).search ? ['@query'] : []), 'content-digest', 'svc-instance'],
          params: ['created', 'expires', 'nonce', 'alg', 'keyid', 'tag'],
          paramValues: { created, expires: new Date(created.getTime() + 300_000), nonce: 'their-nonce-0123456789', tag: 'svc-instance', alg: 'ed25519' },
        },
        { method: 'POST', url, headers: { 'content-type': 'application/json', 'content-digest': contentDigestHeader(BODY), 'svc-instance': INSTANCE } },
      );
      const options: VerifyInstanceRequestOptions = { lookupKey: async ({ keyid }) => (keyid === key.kid ? key.publicJwk : null), replayStore: new MemoryReplayStore(), now: () => T * 1000 + 5000 };
      const result = await verifyInstanceRequest({ method: 'POST', url, headers: signed.headers, body: BODY }, options);
      expect(result).toMatchObject({ ok: true, keyid: key.kid, instance: INSTANCE, label: 'theirs', nonce: 'their-nonce-0123456789' });
      expect(await reasonOf({ method: 'POST', url, headers: signed.headers, body: `${BODY} ` }, { ...options, replayStore: new MemoryReplayStore() })).toBe('digest_mismatch');
      expect(await reasonOf({ method: 'PUT', url, headers: signed.headers, body: BODY }, { ...options, replayStore: new MemoryReplayStore() })).toBe('bad_signature');
    }
  });

  it('its default signature (no tag, no nonce) is not our profile', async () => {
    const key = generateEd25519Key();
    const signed = await httpbis.signMessage(
      { key: createSigner(ed25519PrivateKey(key.privateJwk), 'ed25519', key.kid), fields: ['@method', '@authority', '@path', 'svc-instance'] },
      { method: 'GET', url: PING_URL, headers: { 'svc-instance': INSTANCE } },
    );
    expect(await reasonOf({ method: 'GET', url: PING_URL, headers: signed.headers }, { lookupKey: async () => key.publicJwk, replayStore: new MemoryReplayStore() })).toBe('profile_mismatch');
  });
});

describe('svc-instance/1: hostile requests, each refused with its reason', () => {
  it('altered body → digest_mismatch; body and its digest altered together → bad_signature', async () => {
    const f = fixture();
    const request = f.sign();
    expect(await reasonOf({ ...request, body: BODY.replace('node', 'deno') }, f.options())).toBe('digest_mismatch');
    const other = BODY.replace('node', 'deno');
    expect(await reasonOf({ ...request, body: other, headers: { ...request.headers, 'content-digest': contentDigestHeader(other) } }, f.options())).toBe('bad_signature');
    // A body where none was signed: content-digest is then required.
    const get = f.sign(PING_URL, '');
    expect(await reasonOf({ ...get, body: 'surprise' }, f.options())).toBe('component_missing');
    // Bytes, not text: the digest is over exactly what arrived.
    expect(await reasonOf({ ...request, body: Buffer.from(BODY, 'utf8') }, f.options())).toBe('ok');
  });

  it('altered covered header or request line → bad_signature (or profile_mismatch for a foreign instance)', async () => {
    const f = fixture();
    const request = f.sign(RECEIPTS_URL);
    expect(await reasonOf({ ...request, headers: { ...request.headers, 'svc-instance': 'https://other-inbox.example' } }, f.options())).toBe('bad_signature');
    expect(await reasonOf({ ...request, headers: { ...request.headers, 'svc-instance': 'https://other-inbox.example' } }, f.options({ expectedInstance: INSTANCE }))).toBe('profile_mismatch');
    expect(await reasonOf({ ...request, method: 'PUT' }, f.options())).toBe('bad_signature');
    expect(await reasonOf({ ...request, url: RECEIPTS_URL.replace('main', 'other') }, f.options())).toBe('bad_signature');
    expect(await reasonOf({ ...request, url: RECEIPTS_URL.replace('/v1/receipts', '/v1/receipts/') }, f.options())).toBe('bad_signature');
    // An uncovered header may change (content-type is not covered by the profile).
    expect(await reasonOf({ ...request, headers: { ...request.headers, 'content-type': 'text/plain' } }, f.options())).toBe('ok');
  });

  it('wrong key, unknown kid and a lookup that answers the wrong key', async () => {
    const f = fixture();
    const intruder = generateEd25519Key();
    // Signed by an intruder under the real kid: the base names the real kid, the signature is the intruder's.
    const forged = craft(intruder, { params: { keyid: f.key.kid } });
    expect(await reasonOf(forged, f.options())).toBe('bad_signature');
    // Signed by the intruder under its own kid, which the instance never published.
    expect(await reasonOf(craft(intruder, {}), f.options())).toBe('unknown_key');
    // A lookup that hands back a key whose thumbprint is not the keyid.
    expect(await reasonOf(f.sign(), f.options({ lookupKey: async () => intruder.publicJwk }))).toBe('unknown_key');
    // A lookup that hands back something that is not an Ed25519 key.
    expect(await reasonOf(f.sign(), f.options({ lookupKey: async () => ({ kty: 'RSA' }) as never }))).toBe('unknown_key');
  });

  it('a replayed signature is refused while remembered; the same request signed anew passes', async () => {
    const f = fixture();
    const request = f.sign();
    expect(await reasonOf(request, f.options())).toBe('ok');
    expect(await reasonOf(request, f.options())).toBe('replayed');
    expect(await reasonOf(request, f.options({ now: () => (T + 299) * 1000 }))).toBe('replayed');
    expect(await reasonOf(request, f.options({ now: () => (T + 360) * 1000 }))).toBe('replayed');
    expect(await reasonOf(request, f.options({ now: () => (T + 361) * 1000 }))).toBe('expired');
    expect(await reasonOf(f.sign(), f.options())).toBe('ok');
    // Two copies at once: exactly one passes.
    const twin = f.sign();
    const results = await Promise.all([reasonOf(twin, f.options()), reasonOf(twin, f.options())]);
    expect(results.sort()).toEqual(['ok', 'replayed']);
  });

  it('a forged signature is never remembered, so it cannot block the real one', async () => {
    const f = fixture();
    const request = f.sign();
    const sig = parseSignatures(request.headers)[0]!;
    const flipped = Buffer.from(sig.signature);
    flipped[10] = (flipped[10] ?? 0) ^ 1;
    const bad = { ...request, headers: { ...request.headers, signature: `svc=:${flipped.toString('base64')}:` } };
    expect(await reasonOf(bad, f.options())).toBe('bad_signature');
    expect(f.store.size).toBe(0);
    expect(await reasonOf(request, f.options())).toBe('ok');
  });

  it('the window: 300 s of validity at most, 60 s of clock skew either way', async () => {
    const f = fixture();
    const at = (seconds: number) => f.options({ now: () => seconds * 1000, replayStore: new MemoryReplayStore() });
    expect(await reasonOf(f.sign(PING_URL, BODY, T - 1000), at(T))).toBe('expired');
    expect(await reasonOf(f.sign(PING_URL, BODY, T - 360), at(T))).toBe('ok');
    expect(await reasonOf(f.sign(PING_URL, BODY, T - 361), at(T))).toBe('expired');
    expect(await reasonOf(f.sign(PING_URL, BODY, T + 60), at(T))).toBe('ok');
    expect(await reasonOf(f.sign(PING_URL, BODY, T + 61), at(T))).toBe('too_far_in_future');
    expect(await reasonOf(f.sign(PING_URL, BODY, T + 3600), at(T))).toBe('too_far_in_future');
    expect(await reasonOf(craft(f.key, { params: { expires: T + 301 } }), at(T))).toBe('profile_mismatch');
    expect(await reasonOf(craft(f.key, { params: { expires: T } }), at(T))).toBe('profile_mismatch');
    expect(await reasonOf(craft(f.key, { params: { expires: T + 300 } }), at(T))).toBe('ok');
    expect(await reasonOf(craft(f.key, { params: { created: undefined } }), at(T))).toBe('profile_mismatch');
    expect(await reasonOf(craft(f.key, { params: { expires: undefined } }), at(T))).toBe('profile_mismatch');
  });

  it('components the profile requires are covered, and covered headers are present', async () => {
    const f = fixture();
    const cases: Array<[string, Parameters<typeof craft>[1]]> = [
      ['no content-digest with a body', { components: ['@method', '@authority', '@path', 'svc-instance'] }],
      ['no svc-instance', { components: ['@method', '@authority', '@path', 'content-digest'] }],
      ['no @method', { components: ['@authority', '@path', 'content-digest', 'svc-instance'] }],
      ['no @authority', { components: ['@method', '@path', 'content-digest', 'svc-instance'] }],
      ['no @path (only @target-uri)', { components: ['@method', '@authority', '@target-uri', 'content-digest', 'svc-instance'] }],
      ['no @query with a query', { url: RECEIPTS_URL, components: ['@method', '@authority', '@path', 'content-digest', 'svc-instance'] }],
    ];
    for (const [name, change] of cases) {
      expect(await reasonOf(craft(f.key, change), f.options()), name).toBe('component_missing');
    }
    // A covered header taken out of the request.
    const request = f.sign();
    const { 'svc-instance': _dropped, ...without } = request.headers as Record<string, string>;
    expect(await reasonOf({ ...request, headers: without }, f.options())).toBe('component_missing');
    const { 'content-digest': _digest, ...noDigest } = request.headers as Record<string, string>;
    expect(await reasonOf({ ...request, headers: noDigest }, f.options())).toBe('component_missing');
    // Covering more than required is fine (content-type, @target-uri), in any order.
    expect(await reasonOf(craft(f.key, { components: ['svc-instance', 'content-type', '@target-uri', 'content-digest', '@path', '@authority', '@method'] }), f.options())).toBe('ok');
  });

  it('missing signatures', async () => {
    const f = fixture();
    const request = f.sign();
    const h = request.headers as Record<string, string>;
    expect(await reasonOf({ ...request, headers: { 'svc-instance': INSTANCE } }, f.options())).toBe('missing');
    expect(await reasonOf({ ...request, headers: { ...h, 'signature-input': undefined as never } }, f.options())).toBe('missing');
    expect(await reasonOf({ ...request, headers: { ...h, signature: undefined as never } }, f.options())).toBe('missing');
  });

  it('malformed fields', async () => {
    const f = fixture();
    const request = f.sign();
    const h = request.headers as Record<string, string>;
    const with_ = (changes: Record<string, string>) => ({ ...request, headers: { ...h, ...changes } });
    expect(await reasonOf(with_({ 'signature-input': 'svc=(@method;' }), f.options())).toBe('malformed');
    expect(await reasonOf(with_({ signature: 'svc="not bytes"' }), f.options())).toBe('malformed');
    expect(await reasonOf(with_({ signature: 'other=:AAAA:' }), f.options())).toBe('malformed');
    expect(await reasonOf(with_({ signature: 'svc=:AAAA:' }), f.options())).toBe('malformed');
    expect(await reasonOf(with_({ 'signature-input': h['signature-input']!.replace('created=1800000000', 'created="1800000000"') }), f.options())).toBe('malformed');
    expect(await reasonOf(with_({ 'signature-input': h['signature-input']!.replace('"@path"', '"@path";req') }), f.options())).toBe('malformed');
    expect(await reasonOf(with_({ 'signature-input': h['signature-input']!.replace('"@path"', '"@path" "@path"') }), f.options())).toBe('malformed');
    expect(await reasonOf(with_({ 'signature-input': h['signature-input']!.replace('"@path"', '"@path" "@status"') }), f.options())).toBe('malformed');
    expect(await reasonOf(with_({ 'signature-input': h['signature-input']!.replace('"@path"', '"@path" "Content-Type"') }), f.options())).toBe('malformed');
    // Two signatures claiming the profile.
    const second = h['signature-input']!.replace(/^svc=/, 'svc2=');
    expect(await reasonOf(with_({ 'signature-input': `${h['signature-input']}, ${second}`, signature: `${h.signature}, ${h.signature!.replace(/^svc=/, 'svc2=')}` }), f.options())).toBe('malformed');
    expect(await reasonOf({ ...request, url: '/v1/relative' }, f.options())).toBe('malformed');
  });

  it('signatures of another profile or with the wrong parameters → profile_mismatch', async () => {
    const f = fixture();
    expect(await reasonOf(craft(f.key, { params: { tag: 'web-bot-auth' } }), f.options())).toBe('profile_mismatch');
    expect(await reasonOf(craft(f.key, { params: { tag: undefined } }), f.options())).toBe('profile_mismatch');
    expect(await reasonOf(craft(f.key, { params: { alg: 'rsa-pss-sha512' } }), f.options())).toBe('profile_mismatch');
    expect(await reasonOf(craft(f.key, { params: { alg: undefined } }), f.options())).toBe('profile_mismatch');
    expect(await reasonOf(craft(f.key, { params: { nonce: undefined } }), f.options())).toBe('profile_mismatch');
    expect(await reasonOf(craft(f.key, { params: { nonce: 'short' } }), f.options())).toBe('profile_mismatch');
    expect(await reasonOf(craft(f.key, { params: { keyid: undefined } }), f.options())).toBe('profile_mismatch');
    for (const origin of ['http://inbox.example', 'https://inbox.example/', 'https://Inbox.example', 'https://inbox.example/x', 'https://u:p@inbox.example', 'inbox.example']) {
      expect(await reasonOf(craft(f.key, { headers: { 'svc-instance': origin } }), f.options()), origin).toBe('profile_mismatch');
    }
    expect(await reasonOf(craft(f.key, { headers: { 'svc-instance': 'http://127.0.0.1:8080' } }), f.options({ allowHttpInstance: true }))).toBe('ok');
    // Unknown extra parameters are signed over and allowed.
    expect(await reasonOf(craft(f.key, { params: { extra: 'x' } as never }), f.options())).toBe('ok');
  });

  it('oversized headers are refused before any key is looked up', async () => {
    const f = fixture();
    let lookups = 0;
    const options = f.options({ lookupKey: async () => (lookups++, f.key.publicJwk) });
    const request = f.sign();
    const h = request.headers as Record<string, string>;
    const with_ = (changes: Record<string, string>) => ({ ...request, headers: { ...h, ...changes } });
    expect(await reasonOf(with_({ 'signature-input': `${h['signature-input']};pad="${'x'.repeat(9000)}"` }), options)).toBe('malformed');
    expect(await reasonOf(with_({ signature: `${h.signature}, pad=:${Buffer.alloc(7000).toString('base64')}:` }), options)).toBe('malformed');
    const many = Array.from({ length: 9 }, (_, i) => `s${i}=("@method");created=1`).join(', ');
    expect(await reasonOf(with_({ 'signature-input': many }), options)).toBe('malformed');
    const components = Array.from({ length: 25 }, (_, i) => `"x-h${i}"`).join(' ');
    expect(await reasonOf(with_({ 'signature-input': h['signature-input']!.replace('"svc-instance")', `"svc-instance" ${components})`) }), options)).toBe('malformed');
    expect(await reasonOf(with_({ 'content-digest': `${h['content-digest']}, pad=:${Buffer.alloc(1000).toString('base64')}:` }), options)).toBe('malformed');
    expect(await reasonOf(craft(f.key, { headers: { 'svc-instance': `https://${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(60)}.${'e'.repeat(60)}.example` } }), options)).toBe('profile_mismatch');
    expect(await reasonOf(craft(f.key, { params: { nonce: 'n'.repeat(300) } }), options)).toBe('profile_mismatch');
    expect(lookups).toBe(0);
  });

  it('every failure maps to a problem document with an existing code', () => {
    const expected: Record<SignatureFailureReason, [string, number]> = {
      missing: ['unauthorized', 401],
      malformed: ['bad_request', 400],
      unknown_key: ['unauthorized', 401],
      bad_signature: ['unauthorized', 401],
      expired: ['unauthorized', 401],
      too_far_in_future: ['unauthorized', 401],
      replayed: ['replayed_signature', 401],
      digest_mismatch: ['bad_request', 400],
      component_missing: ['unauthorized', 401],
      profile_mismatch: ['unauthorized', 401],
      replay_store_full: ['unavailable', 503],
    };
    expect(Object.keys(SIGNATURE_FAILURE_PROBLEMS).sort()).toEqual(Object.keys(expected).sort());
    for (const [reason, [code, status]] of Object.entries(expected)) {
      const problem = signatureProblem({ reason: reason as SignatureFailureReason, detail: `because ${reason}` });
      expect(problem.code).toBe(code);
      expect(problem.status).toBe(status);
      const document = problem.toDocument('https://directory.example/problems');
      expect(document).toMatchObject({ code, status, detail: `because ${reason}`, signature_error: reason });
    }
    expect(signatureProblem({ reason: 'replay_store_full', detail: 'busy' }).headers).toEqual({ 'Retry-After': '5' });
  });
});

describe('replay store and key lookup', () => {
  it('MemoryReplayStore: remembers until keepUntil, is bounded, and frees expired room', async () => {
    const store = new MemoryReplayStore({ maxEntries: 3 });
    expect(await store.remember('a', 100, 0)).toBe('new');
    expect(await store.remember('a', 100, 50)).toBe('seen');
    expect(await store.remember('a', 100, 100)).toBe('seen');
    expect(await store.remember('b', 200, 0)).toBe('new');
    expect(await store.remember('c', 300, 0)).toBe('new');
    expect(await store.remember('d', 400, 0)).toBe('full');
    expect(store.size).toBe(3);
    expect(await store.remember('d', 400, 101)).toBe('new'); // a expired and made room
    expect(await store.remember('a', 500, 101)).toBe('full');
    expect(await store.remember('e', 600, 301)).toBe('new');
    expect(store.size).toBe(2);
    expect(await store.remember('a', 500, 301)).toBe('new');
    // Many entries with scattered expiries come out in order.
    const big = new MemoryReplayStore({ maxEntries: 10_000 });
    for (let i = 0; i < 5000; i++) expect(big.rememberSync(`k${i}`, (i * 7919) % 5000, 0)).toBe('new');
    big.rememberSync('probe', 10_000, 2500);
    expect(big.size).toBe(2500 + 1);
    expect(() => new MemoryReplayStore({ maxEntries: 0 })).toThrow(RangeError);
  });

  it('a full replay store refuses with replay_store_full, never accepts unrecorded', async () => {
    const f = fixture();
    const full: ReplayStore = { remember: async () => 'full' };
    expect(await reasonOf(f.sign(), f.options({ replayStore: full }))).toBe('replay_store_full');
  });

  it('createInstanceKeyCache: fetches once, refetches on an unknown kid at most once a minute, and when stale', async () => {
    const first = generateEd25519Key();
    const rotated = generateEd25519Key();
    let published: unknown[] = [first.publicJwk, { kty: 'OKP', crv: 'Ed25519', x: rotated.publicJwk.x, kid: 'not-its-thumbprint' }, { kty: 'RSA', n: 'x', e: 'AQAB' }];
    let fetches = 0;
    let down = false;
    let now = T * 1000;
    const cache = createInstanceKeyCache({
      fetchKeys: async (instance) => {
        fetches++;
        expect(instance).toBe(INSTANCE);
        if (down) throw new Error('unreachable');
        return published;
      },
      now: () => now,
    });
    expect(await cache.lookup({ keyid: first.kid, instance: INSTANCE })).toEqual(first.publicJwk);
    expect(await cache.lookup({ keyid: first.kid, instance: INSTANCE })).toEqual(first.publicJwk);
    expect(fetches).toBe(1);
    // The rotated key is listed under a kid that is not its thumbprint: ignored.
    expect(await cache.lookup({ keyid: rotated.kid, instance: INSTANCE })).toBeNull();
    expect(fetches).toBe(1); // within a minute of the last fetch
    published = [first.publicJwk, rotated.publicJwk];
    now += 30_000;
    expect(await cache.lookup({ keyid: rotated.kid, instance: INSTANCE })).toBeNull();
    expect(fetches).toBe(1);
    now += 31_000;
    expect(await cache.lookup({ keyid: rotated.kid, instance: INSTANCE })).toEqual(rotated.publicJwk);
    expect(fetches).toBe(2);
    // Stale after 6 h; a failed refetch keeps the keys it had.
    now += 6 * 3600 * 1000;
    down = true;
    expect(await cache.lookup({ keyid: first.kid, instance: INSTANCE })).toEqual(first.publicJwk);
    expect(fetches).toBe(3);
    // Concurrent lookups share one fetch.
    down = false;
    now += 61_000;
    cache.invalidate(INSTANCE);
    await Promise.all([1, 2, 3].map(() => cache.lookup({ keyid: first.kid, instance: INSTANCE })));
    expect(fetches).toBe(4);
    // Plugged into the verifier.
    const request = { method: 'POST', url: PING_URL, body: BODY, headers: signInstanceRequest({ method: 'POST', url: PING_URL, body: BODY, instance: INSTANCE, privateJwk: rotated.privateJwk, now: () => now }) };
    expect(await reasonOf(request, { lookupKey: cache.lookup, replayStore: new MemoryReplayStore(), now: () => now })).toBe('ok');
  });

  it('JWK checks', () => {
    const { publicJwk, privateJwk } = generateEd25519Key();
    expect(ed25519JwkProblem(publicJwk)).toBeNull();
    expect(ed25519JwkProblem(privateJwk)).toBeNull();
    expect(ed25519JwkProblem({ ...publicJwk, crv: 'X25519' })).toMatch(/curve/);
    expect(ed25519JwkProblem({ ...publicJwk, kty: 'EC' })).toMatch(/kty/);
    expect(ed25519JwkProblem({ ...publicJwk, x: `${publicJwk.x}A` })).toMatch(/32 bytes/);
    expect(ed25519JwkProblem({ ...publicJwk, x: publicJwk.x.slice(0, 42) + 'B' })).toMatch(/32 bytes/);
    expect(ed25519JwkProblem({ ...publicJwk, alg: 'RS256' })).toMatch(/alg/);
    expect(ed25519JwkProblem({ ...publicJwk, use: 'enc' })).toMatch(/use/);
    expect(ed25519JwkProblem(null)).toMatch(/object/);
  });
});

describe('over real HTTP (node:http server, fetch client)', () => {
  it('a signed POST with a body verifies from the raw bytes the server received; a replay and a tampered copy are refused', async () => {
    const key = generateEd25519Key();
    const store = new MemoryReplayStore();
    const server = createServer(async (req: IncomingMessage, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const result = await verifyInstanceRequest(
        { method: req.method ?? 'GET', url: new URL(req.url ?? '/', origin), headers: req.headers, body: Buffer.concat(chunks) },
        { lookupKey: async ({ keyid }) => (keyid === key.kid ? key.publicJwk : null), replayStore: store },
      );
      if (result.ok) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ instance: result.instance }));
        return;
      }
      const problem = signatureProblem(result);
      res.writeHead(problem.status, { 'content-type': 'application/problem+json', ...problem.headers }).end(JSON.stringify(problem.toDocument(`${origin}/problems`)));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/receipts?n=1`;
      const body = JSON.stringify({ receipt: 'x.y.z', note: 'ünïcödé' });
      const headers = signInstanceRequest({ method: 'POST', url, body, instance: INSTANCE, privateJwk: key.privateJwk });
      const send = (b: string) => fetch(url, { method: 'POST', body: b, headers: { ...headers, 'content-type': 'application/json' } });
      const ok = await send(body);
      expect(ok.status).toBe(200);
      expect(await ok.json()).toEqual({ instance: INSTANCE });
      const replay = await send(body);
      expect(replay.status).toBe(401);
      expect(await replay.json()).toMatchObject({ code: 'replayed_signature', signature_error: 'replayed' });
      const tampered = await send(body.replace('x.y.z', 'x.y.w'));
      expect(tampered.status).toBe(400);
      expect(await tampered.json()).toMatchObject({ code: 'bad_request', signature_error: 'digest_mismatch' });
      const unsigned = await fetch(url, { method: 'POST', body });
      expect(unsigned.status).toBe(401);
      expect(await unsigned.json()).toMatchObject({ code: 'unauthorized', signature_error: 'missing' });
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
