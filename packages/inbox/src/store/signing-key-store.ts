/** The instance's signing keys and its other sealed secrets made once (docs/receipts.md "Keys"). */
import type { Ed25519PublicJwk } from '@svc/shared';

export interface SigningKeyRecord {
  /** The RFC 7638 thumbprint of the public key. */
  kid: string;
  publicJwk: Ed25519PublicJwk;
  /** The private JWK, sealed with the SecretBox (purpose receipt-signing-key, bound to the kid). */
  sealedPrivate: string;
  createdAt: number;
  /** When a rotation retired it; null for the active key. Retired keys are kept to verify old receipts. */
  retiredAt: number | null;
}

export interface SigningKeyStore {
  /** Every key, the active one first, then retired ones newest first. */
  list(): Promise<SigningKeyRecord[]>;
  /** The key new receipts and signed requests use: the newest one not retired. */
  active(): Promise<SigningKeyRecord | null>;
  insert(key: SigningKeyRecord): Promise<void>;
  /** Retires a key still active; false when it was not. */
  retire(kid: string, atMs: number): Promise<boolean>;
  /** A sealed instance secret by name, or null. */
  getSecret(name: string): Promise<string | null>;
  /** Keeps a sealed secret under a name unless one is already kept; false when one was. */
  addSecret(name: string, sealed: string, atMs: number): Promise<boolean>;
  /** Keeps a sealed secret under a name in place of the one kept (one that can no longer be opened). */
  replaceSecret(name: string, sealed: string, atMs: number): Promise<void>;
}
