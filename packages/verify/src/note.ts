/**
 * Signed notes as C2SP signed-note defines them, with Ed25519 keys (signature type 0x01): a text
 * that ends with a newline, a blank line, then one line per signature, `— <key name> <base64 of the
 * 4-byte key ID and the 64-byte signature>`. The key ID is the first four bytes of
 * SHA-256(<key name> "\n" 0x01 <32-byte public key>). A verifier key is written
 * `<name>+<key ID in hex>+<base64 of 0x01 and the public key>` (a "vkey").
 */
import { createHash, createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';

const ED25519 = 0x01;
const DASH = '\u2014';

export interface NoteSigner {
  name: string;
  keyId: Buffer;
  sign(message: Buffer): Buffer;
}

export interface NoteVerifier {
  name: string;
  keyId: Buffer;
  verify(message: Buffer, signature: Buffer): boolean;
}

export class NoteError extends Error {}

function checkKeyName(name: string): void {
  if (name.length === 0 || /[\s+]/u.test(name)) throw new NoteError(`a key name has no spaces and no '+': ${JSON.stringify(name)}`);
}

export function ed25519KeyId(name: string, publicKey: Uint8Array): Buffer {
  return createHash('sha256').update(name, 'utf8').update(Buffer.from([0x0a, ED25519])).update(publicKey).digest().subarray(0, 4);
}

/** The 32 bytes of an Ed25519 public key. */
export function rawEd25519PublicKey(key: KeyObject): Buffer {
  const jwk = key.export({ format: 'jwk' }) as { x?: string };
  if (!jwk.x) throw new NoteError('not an Ed25519 key');
  return Buffer.from(jwk.x, 'base64url');
}

export function ed25519PublicKeyFromRaw(raw: Uint8Array): KeyObject {
  if (raw.length !== 32) throw new NoteError('an Ed25519 public key has 32 bytes');
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(raw).toString('base64url') }, format: 'jwk' });
}

/** A signer from an Ed25519 private key (a KeyObject, or its 32-byte seed). */
export function ed25519NoteSigner(name: string, privateKey: KeyObject | Uint8Array): NoteSigner {
  checkKeyName(name);
  const key =
    privateKey instanceof Uint8Array
      ? createPrivateKey({ key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), Buffer.from(privateKey)]), format: 'der', type: 'pkcs8' })
      : privateKey;
  const publicRaw = rawEd25519PublicKey(createPublicKey(key));
  const keyId = ed25519KeyId(name, publicRaw);
  return { name, keyId, sign: (message) => sign(null, message, key) };
}

export function vkeyOf(name: string, publicKey: Uint8Array): string {
  checkKeyName(name);
  return `${name}+${ed25519KeyId(name, publicKey).toString('hex')}+${Buffer.concat([Buffer.from([ED25519]), Buffer.from(publicKey)]).toString('base64')}`;
}

/** A vkey's three parts: the name and key ID hold no '+', the base64 key may. */
function vkeyParts(vkey: string): [string, string, string] {
  const first = vkey.indexOf('+');
  const second = first < 0 ? -1 : vkey.indexOf('+', first + 1);
  if (second < 0) throw new NoteError('not a verifier key (name+keyid+key)');
  return [vkey.slice(0, first), vkey.slice(first + 1, second), vkey.slice(second + 1)];
}

export function ed25519PublicKeyOfVkey(vkey: string): Buffer {
  const [, , encoded] = vkeyParts(vkey);
  const key = Buffer.from(encoded, 'base64');
  if (key.length !== 33 || key[0] !== ED25519 || key.toString('base64') !== encoded) throw new NoteError('not an Ed25519 verifier key (name+keyid+key)');
  return key.subarray(1);
}

/** A verifier from a vkey; its key ID must be the one the key and name give. */
export function noteVerifier(vkey: string): NoteVerifier {
  const [name, hexId] = vkeyParts(vkey);
  checkKeyName(name);
  const raw = ed25519PublicKeyOfVkey(vkey);
  const keyId = ed25519KeyId(name, raw);
  if (keyId.toString('hex') !== hexId.toLowerCase()) throw new NoteError('the verifier key\'s ID does not match its name and key');
  const key = ed25519PublicKeyFromRaw(raw);
  return { name, keyId, verify: (message, signature) => signature.length === 64 && verify(null, message, key, signature) };
}

function checkText(text: string): void {
  if (!text.endsWith('\n')) throw new NoteError('a note\'s text ends with a newline');
  // No control characters but newlines (the form signed-note asks for).
  for (const char of text) {
    const code = char.charCodeAt(0);
    if ((code < 0x20 && code !== 0x0a) || code === 0x7f) throw new NoteError('a note\'s text holds no control characters');
  }
  if (text.includes('\n\n')) throw new NoteError('a note\'s text holds no blank line');
}

/** The note: its text, a blank line, a signature line per signer. */
export function signNote(text: string, signers: readonly NoteSigner[]): string {
  checkText(text);
  const message = Buffer.from(text, 'utf8');
  const lines = signers.map((s) => `${DASH} ${s.name} ${Buffer.concat([s.keyId, s.sign(message)]).toString('base64')}\n`);
  return `${text}\n${lines.join('')}`;
}

export interface OpenedNote {
  text: string;
  /** Names of the keys whose signatures verified. */
  verifiedBy: string[];
}

/**
 * Splits a note and checks its signatures against the known verifiers. Throws when the note is
 * malformed or no known key signed it; signatures of unknown keys are ignored, a wrong signature by
 * a known key is refused.
 */
export function openNote(note: string, verifiers: readonly NoteVerifier[]): OpenedNote {
  const split = note.lastIndexOf('\n\n');
  if (split < 0) throw new NoteError('a note has a blank line before its signatures');
  const text = note.slice(0, split + 1);
  checkText(text);
  const signatureBlock = note.slice(split + 2);
  if (!signatureBlock.endsWith('\n')) throw new NoteError('a note ends with a newline');
  const message = Buffer.from(text, 'utf8');
  const verifiedBy: string[] = [];
  for (const line of signatureBlock.slice(0, -1).split('\n')) {
    const match = /^\u2014 (\S+) ([A-Za-z0-9+/]+=*)$/u.exec(line);
    if (!match) throw new NoteError(`not a signature line: ${JSON.stringify(line.slice(0, 80))}`);
    const [, name, encoded] = match as unknown as [string, string, string];
    const bytes = Buffer.from(encoded, 'base64');
    if (bytes.length < 5) throw new NoteError('a signature is too short');
    const keyId = bytes.subarray(0, 4);
    const verifier = verifiers.find((v) => v.name === name && v.keyId.equals(keyId));
    if (!verifier) continue;
    if (!verifier.verify(message, bytes.subarray(4))) throw new NoteError(`the signature of ${name} does not verify`);
    if (!verifiedBy.includes(name)) verifiedBy.push(name);
  }
  if (verifiedBy.length === 0) throw new NoteError('no known key signed this note');
  return { text, verifiedBy };
}
