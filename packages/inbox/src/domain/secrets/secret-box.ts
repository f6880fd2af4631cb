/**
 * Seals secrets the inbox must be able to read again (webhook signing secrets, webhook extra header
 * values, stored answers that carried a secret) with AES-256-GCM. The purpose and the row's id are
 * bound as additional data, so a sealed value copied to another row or purpose does not open.
 * Sealed form: `v1.<iv>.<ciphertext+tag>` in base64url.
 */
import { createCipheriv, createDecipheriv, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import { keyFromSetting, pooledRandomBytes } from '@svc/shared';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class SecretBox {
  /** A KeyObject, not the bytes: Node 24 checks a Buffer key on every cipher at four times the cipher's own cost. */
  readonly #key: KeyObject;

  constructor(key: Buffer) {
    if (key.length !== KEY_BYTES) throw new Error(`a secret box key has ${KEY_BYTES} bytes, not ${key.length}`);
    this.#key = createSecretKey(key);
  }

  seal(plain: string, purpose: string, rowId: string): string {
    const iv = pooledRandomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(Buffer.from(`${purpose}\u0000${rowId}`));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `v1.${iv.toString('base64url')}.${body.toString('base64url')}`;
  }

  /** Throws when the value was sealed under another key, purpose or row, or was altered. */
  open(sealed: string, purpose: string, rowId: string): string {
    const [version, ivText, bodyText] = sealed.split('.');
    if (version !== 'v1' || !ivText || !bodyText) throw new Error('not a sealed value');
    const iv = Buffer.from(ivText, 'base64url');
    const body = Buffer.from(bodyText, 'base64url');
    if (iv.length !== IV_BYTES || body.length < TAG_BYTES) throw new Error('not a sealed value');
    const decipher = createDecipheriv('aes-256-gcm', this.#key, iv);
    decipher.setAAD(Buffer.from(`${purpose}\u0000${rowId}`));
    decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
    return Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_BYTES)), decipher.final()]).toString('utf8');
  }
}

/**
 * The instance's sealing key: INBOX_SECRET_KEY (base64 of 32 bytes) when set, otherwise
 * `<dataDir>/secret.key`, made on first start and readable by its owner only. Losing it makes
 * sealed secrets unreadable, so it lives beside the database it protects and is backed up with it.
 */
export function loadSecretBox(dataDir: string, fromEnvironment: string | undefined = process.env.INBOX_SECRET_KEY): SecretBox {
  if (fromEnvironment) return new SecretBox(keyFromSetting('INBOX_SECRET_KEY', fromEnvironment, KEY_BYTES));
  const file = join(dataDir, 'secret.key');
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    writeFileSync(file, `${randomBytes(KEY_BYTES).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    chmodSync(file, 0o600);
  }
  return new SecretBox(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64'));
}
