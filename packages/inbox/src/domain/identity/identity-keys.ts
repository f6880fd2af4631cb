/**
 * The instance's identity pepper (docs/identity.md): one random secret made at first start, kept
 * sealed in instance_secrets, from which every keyed hash of customer data is made with its own label:
 * one-time codes, addresses looked up without keeping them in clear, reply-address tokens. Lost with
 * secret.key, it is made again: codes in flight stop working, nothing else depends on it.
 */
import { createHmac, createSecretKey, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';
import type { InboxStore } from '../../store/store.js';
import type { SecretBox } from '../secrets/secret-box.js';

const NAME = 'identity-pepper';
const PURPOSE = 'instance-secret';

export class IdentityKeys {
  /** A KeyObject, not the bytes: Node 24 checks a Buffer key on every HMAC at several times the HMAC's own cost. */
  readonly #pepper: KeyObject;
  constructor(pepper: Buffer) {
    this.#pepper = createSecretKey(pepper);
  }

  /** base64url HMAC-SHA-256 of `value` under the pepper, for `label` (never the same hash for two uses). */
  hash(label: string, value: string): string {
    return createHmac('sha256', this.#pepper).update(`${label}\u0000${value}`, 'utf8').digest('base64url');
  }

  /** Compares a hash made now with a stored one in constant time. */
  matches(label: string, value: string, stored: string): boolean {
    const made = Buffer.from(this.hash(label, value));
    const held = Buffer.from(stored);
    return made.length === held.length && timingSafeEqual(made, held);
  }
}

/** Opens the pepper, making it on first start (or anew when the one kept cannot be opened with this secret key). */
export async function loadIdentityKeys(store: InboxStore, secrets: SecretBox, nowMs: number): Promise<IdentityKeys> {
  return store.transaction(async (tx) => {
    await tx.signingKeys.addSecret(NAME, secrets.seal(randomBytes(32).toString('base64url'), PURPOSE, NAME), nowMs);
    const sealed = (await tx.signingKeys.getSecret(NAME)) as string;
    try {
      return new IdentityKeys(Buffer.from(secrets.open(sealed, PURPOSE, NAME), 'base64url'));
    } catch {
      // Sealed under another secret key: an ephemeral pepper keeps the inbox working (codes in flight fail).
      return new IdentityKeys(randomBytes(32));
    }
  });
}

/** The label a customer's address is hashed under (identity rows, codes sent to it). */
export const ADDRESS_LABEL = 'customer-address';

/** An address in the one form keys are made from: trimmed, lowercased (ASCII), nothing else repaired. */
export function normaliseAddress(address: string): string {
  return address.trim().toLowerCase();
}
