/**
 * Standard Webhooks v1 signatures (inbox spec §6 "Signature"): HMAC-SHA256 over
 * `{webhook-id}.{webhook-timestamp}.{body}` keyed with the bytes after `whsec_`, sent as `v1,<base64>`;
 * during a rotation both secrets sign and the values travel space-separated.
 */
import { createHmac, createSecretKey, randomBytes } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 32;

export function newSigningSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;
}

export function signatureOf(secret: string, webhookId: string, timestampSec: number, body: string): string {
  // A KeyObject: Node 24 checks a Buffer key passed to createHmac at several times the HMAC's cost.
  const key = createSecretKey(Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64'));
  return `v1,${createHmac('sha256', key).update(`${webhookId}.${timestampSec}.${body}`).digest('base64')}`;
}

/** The `webhook-signature` header: one value per secret in force. */
export function signatureHeader(secrets: readonly string[], webhookId: string, timestampSec: number, body: string): string {
  return secrets.map((secret) => signatureOf(secret, webhookId, timestampSec, body)).join(' ');
}
