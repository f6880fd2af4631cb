/**
 * The network's pepper (docs/identity.md): addresses are kept only as HMACs under it, and the pairwise
 * person ids businesses see are made with it. `<data folder>/persons.key`, made at first start and
 * readable by its owner only, or DIRECTORY_PERSONS_KEY (base64 of 32 bytes).
 */
import { keyFromSetting } from '@svc/shared';
import { createHmac, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export class NetworkPepper {
  /** A KeyObject, not the bytes: Node 24 checks a Buffer key on every HMAC at several times the HMAC's own cost. */
  readonly #key: KeyObject;
  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('the persons key has 32 bytes');
    this.#key = createSecretKey(key);
  }
  mac(label: string, value: string): string {
    return createHmac('sha256', this.#key).update(`${label}\u0000${value}`, 'utf8').digest('base64url');
  }
}

export function loadNetworkPepper(dataDir: string, fromEnvironment: string | undefined = process.env.DIRECTORY_PERSONS_KEY): NetworkPepper {
  if (fromEnvironment) return new NetworkPepper(keyFromSetting('DIRECTORY_PERSONS_KEY', fromEnvironment, 32));
  const file = join(dataDir, 'persons.key');
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    writeFileSync(file, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    chmodSync(file, 0o600);
  }
  return new NetworkPepper(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64'));
}

/**
 * An address in the one form its MAC is made from (upstream's rules): trimmed, split at the last @, the
 * local part a dot-atom lowercased in ASCII, one trailing dot dropped from the domain, labels lowercased;
 * anything else is refused, never repaired.
 */
export function normaliseEmail(value: string): string | null {
  const trimmed = value.trim();
  const at = trimmed.lastIndexOf('@');
  if (at <= 0 || trimmed.length > 254) return null;
  const local = trimmed.slice(0, at);
  const domain = trimmed.slice(at + 1).replace(/\.$/, '');
  if (!/^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/.test(local) || local.length > 64) return null;
  if (!/^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/.test(domain)) return null;
  return `${local.toLowerCase()}@${domain.toLowerCase()}`;
}
