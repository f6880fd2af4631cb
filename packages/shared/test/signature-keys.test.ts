/**
 * The signer's refusals are the project's own, whatever Node release runs it (ed25519-keys.ts): a
 * key pair is checked by our code before node:crypto sees it, and whatever node:crypto refuses while
 * importing a key becomes an Ed25519KeyError. node:crypto is wrapped here to behave as newer releases
 * do (Node 24.22 refuses a JWK whose `x` is not the public half of its `d` with "Invalid JWK OKP key"),
 * and as a release that refused every import would; the real newest Node 24 runs this file too
 * (`node scripts/with-node24.mjs npx vitest run packages/shared/test/signature-keys.test.ts`).
 */
import type * as Crypto from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Ed25519KeyError, ed25519PrivateKey, ed25519PublicKey, generateEd25519Key } from '../src/signatures/ed25519-keys.js';
import { signInstanceRequest } from '../src/signatures/instance-profile.js';

const node = vi.hoisted(() => ({ strictJwkPairs: false, refuseImports: false }));

vi.mock('node:crypto', async (importOriginal) => {
  const real = await importOriginal<typeof Crypto>();
  const refusal = () => Object.assign(new Error('error:1E08010C:DECODER routines::unsupported'), { code: 'ERR_OSSL_UNSUPPORTED' });
  const createPrivateKey: typeof real.createPrivateKey = (input) => {
    if (node.refuseImports) throw refusal();
    const jwk = typeof input === 'object' && 'format' in input && input.format === 'jwk' ? (input.key as Record<string, unknown>) : null;
    if (node.strictJwkPairs && jwk && typeof jwk.d === 'string') {
      const fromD = real.createPublicKey(real.createPrivateKey({ key: { kty: 'OKP', crv: 'Ed25519', d: jwk.d, x: '' } as never, format: 'jwk' })).export({ format: 'jwk' });
      if (fromD.x !== jwk.x) throw Object.assign(new TypeError('Invalid JWK OKP key'), { code: 'ERR_CRYPTO_INVALID_JWK' });
    }
    return real.createPrivateKey(input);
  };
  const createPublicKey: typeof real.createPublicKey = (input) => {
    if (node.refuseImports) throw refusal();
    return real.createPublicKey(input);
  };
  return { ...real, default: { ...real, createPrivateKey, createPublicKey }, createPrivateKey, createPublicKey };
});

afterEach(() => {
  node.strictJwkPairs = false;
  node.refuseImports = false;
});

const PING_URL = 'https://directory.example/v1/instances/inbox.example/ping';
const INSTANCE = 'https://inbox.example';

describe('the signer refuses in its own words', () => {
  it('a key whose x is not the public half of its d, on a node:crypto that checks JWK pairs first', () => {
    node.strictJwkPairs = true;
    const { privateJwk } = generateEd25519Key();
    const mismatched = { ...privateJwk, x: generateEd25519Key().publicJwk.x };
    expect(() => ed25519PrivateKey(mismatched)).toThrow(Ed25519KeyError);
    expect(() => ed25519PrivateKey(mismatched)).toThrow('x is not the public key of d');
    expect(() => signInstanceRequest({ method: 'POST', url: PING_URL, instance: INSTANCE, privateJwk: mismatched })).toThrow('x is not the public key of d');
    // A matching pair still signs.
    expect(signInstanceRequest({ method: 'POST', url: PING_URL, instance: INSTANCE, privateJwk })).toHaveProperty('Signature');
  });

  it('a key node:crypto will not import, as an Ed25519KeyError that keeps node\'s words only as its cause', () => {
    const { privateJwk, publicJwk } = generateEd25519Key();
    node.refuseImports = true;
    const privateRefusal = catchError(() => ed25519PrivateKey(privateJwk));
    expect(privateRefusal).toBeInstanceOf(Ed25519KeyError);
    expect(privateRefusal.message).toBe('d is not a usable Ed25519 private key');
    expect((privateRefusal.cause as Error).message).toMatch(/DECODER/);
    const publicRefusal = catchError(() => ed25519PublicKey(publicJwk));
    expect(publicRefusal).toBeInstanceOf(Ed25519KeyError);
    expect(publicRefusal.message).toBe('x is not a usable Ed25519 public key');
    expect(catchError(() => signInstanceRequest({ method: 'POST', url: PING_URL, instance: INSTANCE, privateJwk }))).toBeInstanceOf(Ed25519KeyError);
  });

  it('a kid that is not the thumbprint, before any key is imported', () => {
    node.refuseImports = true;
    const { privateJwk } = generateEd25519Key();
    expect(() => signInstanceRequest({ method: 'POST', url: PING_URL, instance: INSTANCE, privateJwk, keyid: 'k1' })).toThrow(/thumbprint/);
  });

  it('signs and verifies with keys made from raw bytes, as before', () => {
    const { privateJwk, publicJwk } = generateEd25519Key();
    const key = ed25519PrivateKey(privateJwk);
    expect(key.asymmetricKeyType).toBe('ed25519');
    expect(key.export({ format: 'jwk' })).toMatchObject({ x: privateJwk.x, d: privateJwk.d });
    expect(ed25519PublicKey(publicJwk).export({ format: 'jwk' })).toMatchObject({ x: publicJwk.x });
  });
});

function catchError(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a refusal');
}
