/**
 * The network's signing key (docs/verifiable-order.md "Keys"): an Ed25519 key that signs the evidence
 * log's heads and each hour's statement, as C2SP signed notes. `<data folder>/network-log.key` (the
 * 32-byte seed in base64, made at first start, readable by its owner only), or DIRECTORY_LOG_KEY:
 * search nodes sharing one database share it through that setting. Its public half is published at
 * GET /v1/log/key (as a note verifier key and a JWK Set), like an inbox's receipt keys.
 */
import { keyFromSetting } from '@svc/shared';
import { createHash, createPrivateKey, createPublicKey, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ed25519NoteSigner, rawEd25519PublicKey, signNote, vkeyOf, type NoteSigner } from '@svc/verify';

export interface NetworkKey {
  /** The key's name in notes: the log's origin, `<host>/v1/log`. */
  readonly name: string;
  readonly vkey: string;
  /** The public key as a JWK (kid: its RFC 7638 thumbprint). */
  readonly publicJwk: { kty: 'OKP'; crv: 'Ed25519'; x: string; kid: string; use: 'sig'; alg: 'EdDSA' };
  sign(text: string): string;
}

const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');

export function networkKeyFromSeed(seed: Buffer, host: string): NetworkKey {
  if (seed.length !== 32) throw new Error('the network log key is 32 bytes (base64)');
  const name = `${host}/v1/log`;
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, seed]), format: 'der', type: 'pkcs8' });
  const signer: NoteSigner = ed25519NoteSigner(name, privateKey);
  const raw = rawEd25519PublicKey(createPublicKey(privateKey));
  const x = raw.toString('base64url');
  // RFC 7638 thumbprint, as an inbox's keys are named.
  const kid = createHash('sha256').update(`{"crv":"Ed25519","kty":"OKP","x":"${x}"}`, 'utf8').digest('base64url');
  return {
    name,
    vkey: vkeyOf(name, raw),
    publicJwk: { kty: 'OKP', crv: 'Ed25519', x, kid, use: 'sig', alg: 'EdDSA' },
    sign: (text) => signNote(text, [signer]),
  };
}

/** The host a URL's origin names (with its port), as note names and origins write it. */
export function networkHostOf(baseUrl: string): string {
  return new URL(baseUrl).host;
}

export function loadNetworkKey(dataDir: string, baseUrl: string, fromEnvironment: string | undefined = process.env.DIRECTORY_LOG_KEY): NetworkKey {
  const host = networkHostOf(baseUrl);
  if (fromEnvironment) return networkKeyFromSeed(keyFromSetting('DIRECTORY_LOG_KEY', fromEnvironment, 32), host);
  const file = join(dataDir, 'network-log.key');
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    try {
      writeFileSync(file, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    } catch (error) {
      // Another process made it first: read that one.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    chmodSync(file, 0o600);
  }
  return networkKeyFromSeed(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64'), host);
}
