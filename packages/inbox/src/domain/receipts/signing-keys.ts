/**
 * The instance's Ed25519 signing key (docs/receipts.md "Keys"): made at first start, its private half
 * sealed with the SecretBox, `kid` its RFC 7638 thumbprint. It signs receipts and the instance's
 * requests to networks. A rotation retires the active key and makes a new one; retired keys stay
 * published so every receipt ever issued can still be verified. Also the receipt subject pepper, a
 * random secret made once, under which customer identities become pseudonyms (`sub`).
 */
import { createHmac, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import { Problem, ed25519PrivateKey, ed25519PublicJwk, generateEd25519Key, isEd25519PrivateJwk, type Ed25519PrivateJwk, type Ed25519PublicJwk } from '@svc/shared';
import { announcePublishedChange } from '../publishing/published-change.js';
import type { InboxStore } from '../../store/store.js';
import type { SigningKeyRecord } from '../../store/signing-key-store.js';
import type { SecretBox } from '../secrets/secret-box.js';

/** SecretBox purpose of a sealed private key; the kid is the row it is bound to. */
const KEY_PURPOSE = 'receipt-signing-key';
/** SecretBox purpose of the instance secrets; the name is the row. */
const SECRET_PURPOSE = 'instance-secret';
/** The pepper of receipt subjects: never rotated, or one customer would become two. */
export const SUBJECT_PEPPER = 'receipt-subject-pepper';

export interface ActiveSigningKey {
  kid: string;
  privateJwk: Ed25519PrivateJwk;
  privateKey: KeyObject;
}

/** A key as the manifest and /.well-known/jwks.json publish it: public members, kid, alg, use. */
export function publishedJwk(record: SigningKeyRecord): Ed25519PublicJwk {
  return ed25519PublicJwk(record.publicJwk);
}

function newKeyRecord(secrets: SecretBox, nowMs: number): SigningKeyRecord {
  const made = generateEd25519Key();
  return { kid: made.kid, publicJwk: made.publicJwk, sealedPrivate: secrets.seal(JSON.stringify(made.privateJwk), KEY_PURPOSE, made.kid), createdAt: nowMs, retiredAt: null };
}

function openKey(secrets: SecretBox, record: SigningKeyRecord): Ed25519PrivateJwk {
  const jwk = JSON.parse(secrets.open(record.sealedPrivate, KEY_PURPOSE, record.kid)) as unknown;
  if (!isEd25519PrivateJwk(jwk) || jwk.x !== record.publicJwk.x) throw new Error(`signing key ${record.kid} does not open to its own key`);
  return jwk;
}

/**
 * At start: makes the first key and the pepper when missing. An active key this instance can no longer
 * open (its data folder moved without secret.key, or INBOX_SECRET_KEY changed) is retired and replaced,
 * so receipts keep being issued; what it signed stays verifiable by its public half. Answers what it did.
 */
export async function ensureSigningKey(store: InboxStore, secrets: SecretBox, nowMs: number): Promise<'made' | 'kept' | 'replaced'> {
  return store.transaction(async (tx) => {
    await tx.signingKeys.addSecret(SUBJECT_PEPPER, secrets.seal(randomBytes(32).toString('base64url'), SECRET_PURPOSE, SUBJECT_PEPPER), nowMs);
    const active = await tx.signingKeys.active();
    if (active) {
      try {
        openKey(secrets, active);
        return 'kept';
      } catch {
        await tx.signingKeys.retire(active.kid, nowMs);
        await tx.signingKeys.insert(newKeyRecord(secrets, nowMs));
        return 'replaced';
      }
    }
    await tx.signingKeys.insert(newKeyRecord(secrets, nowMs));
    return 'made';
  });
}

/** Retires the active key and makes a new one, in the caller's transaction. Answers the new key. */
export async function rotateSigningKey(store: InboxStore, secrets: SecretBox, nowMs: number): Promise<SigningKeyRecord> {
  const active = await store.signingKeys.active();
  if (active) await store.signingKeys.retire(active.kid, nowMs);
  const made = newKeyRecord(secrets, nowMs);
  // Two keys made in one millisecond still sort: the new one is the only one not retired.
  await store.signingKeys.insert(made);
  // The manifest publishes the keys: networks read it again before the new key signs anything they must check.
  await announcePublishedChange(store, nowMs);
  return made;
}

/**
 * Opens keys and the pepper for signing, keeping what it opened: the active key is read from the
 * caller's store (its transaction) every time, so a rotation takes effect at once, and opened only
 * the first time its kid is seen.
 */
export class SigningKeyRing {
  readonly #secrets: SecretBox;
  readonly #opened = new Map<string, ActiveSigningKey>();
  #pepper: KeyObject | null = null;

  constructor(secrets: SecretBox) {
    this.#secrets = secrets;
  }

  async active(store: InboxStore): Promise<ActiveSigningKey> {
    const record = await store.signingKeys.active();
    if (!record) throw new Problem('unavailable', 'This inbox has no signing key yet; it is made at start.');
    let key = this.#opened.get(record.kid);
    if (!key) {
      const privateJwk = openKey(this.#secrets, record);
      key = { kid: record.kid, privateJwk, privateKey: ed25519PrivateKey(privateJwk) };
      this.#opened.set(record.kid, key);
    }
    return key;
  }

  /** A customer's pseudonym: base64url HMAC-SHA-256 of `identity` under the pepper. */
  async subject(store: InboxStore, identity: string): Promise<string> {
    if (!this.#pepper) {
      const sealed = await store.signingKeys.getSecret(SUBJECT_PEPPER);
      if (!sealed) throw new Problem('unavailable', 'This inbox has no receipt pepper yet; it is made at start.');
      this.#pepper = createSecretKey(Buffer.from(this.#secrets.open(sealed, SECRET_PURPOSE, SUBJECT_PEPPER), 'base64url'));
    }
    return createHmac('sha256', this.#pepper).update(identity, 'utf8').digest('base64url');
  }
}

/** What signs receipts: the issuer (this instance's origin) and its keys. */
export interface ReceiptSigning {
  /** `https://<domain>` of this instance: every receipt's `iss`. */
  issuer: string;
  keys: SigningKeyRing;
}
