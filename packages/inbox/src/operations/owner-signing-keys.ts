/**
 * list_signing_keys and rotate_signing_key (docs/receipts.md "Keys"): the instance's Ed25519 keys
 * that sign receipts and requests to networks. Reading takes settings:read; rotating takes keys:write
 * and is the owner's alone, like the security section: a key an AI or an integration could turn over
 * would be a key nobody decided on.
 */
import { Problem } from '@svc/shared';
import { z } from 'zod';
import { publishedJwk, rotateSigningKey } from '../domain/receipts/signing-keys.js';
import type { SigningKeyRecord } from '../store/signing-key-store.js';
import type { InboxStore } from '../store/store.js';
import { CHANGE, READ, idempotencyKeyField, inboxOperation, type OperationContext } from './context.js';

const instant = z.string().describe('ISO 8601 instant, UTC.');

const signingKeySchema = z.object({
  kid: z.string().describe('RFC 7638 thumbprint of the public key: the kid of receipts and the keyid of signed requests.'),
  status: z.enum(['active', 'retired']).describe('active signs from now on; retired keys only verify what they signed.'),
  created_at: instant,
  retired_at: instant.nullable(),
  public_jwk: z.record(z.string(), z.unknown()).describe('The public key as published (OKP, Ed25519).'),
});

const signingKeysAnswer = z.object({
  keys: z.array(signingKeySchema).describe('The active key first, then retired ones, newest first.'),
  jwks_url: z.string().describe('Where the public keys are published as a JWK Set; the manifest lists them as receipt_keys too.'),
});

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

async function answer(ctx: OperationContext, store: InboxStore) {
  const keys = await store.signingKeys.list();
  return {
    keys: keys.map((key: SigningKeyRecord) => ({
      kid: key.kid,
      status: key.retiredAt === null ? ('active' as const) : ('retired' as const),
      created_at: new Date(key.createdAt).toISOString(),
      retired_at: iso(key.retiredAt),
      public_jwk: { ...publishedJwk(key) },
    })),
    jwks_url: `${ctx.config.publicBaseUrl}/.well-known/jwks.json`,
  };
}

export const listSigningKeysOperation = inboxOperation({
  name: 'list_signing_keys',
  title: 'List the signing keys',
  description: "The instance's Ed25519 keys: the active one that signs receipts and requests to networks, and retired ones kept so old receipts stay verifiable. Public halves only.",
  audience: 'owner',
  kind: 'read',
  http: { method: 'GET', path: '/v1/owner/signing-keys' },
  scope: 'settings:read',
  input: z.object({}),
  output: signingKeysAnswer,
  annotations: READ,
  errors: ['unauthorized', 'not_allowed'],
  run: (ctx) => answer(ctx, ctx.domain.store),
});

export const rotateSigningKeyOperation = inboxOperation({
  name: 'rotate_signing_key',
  title: 'Rotate the signing key',
  description:
    'Retires the active signing key and makes a new one, which signs every receipt and network request from now on. The retired key stays published, so receipts it signed stay verifiable. For the owner only.',
  audience: 'owner',
  kind: 'write',
  http: { method: 'POST', path: '/v1/owner/signing-keys/rotate' },
  scope: 'keys:write',
  input: z.object({ idempotency_key: idempotencyKeyField }).strict(),
  output: signingKeysAnswer,
  annotations: CHANGE,
  errors: ['unauthorized', 'not_allowed', 'idempotency_mismatch'],
  run: async (ctx) => {
    if (ctx.caller.actor.kind !== 'owner') throw new Problem('not_allowed', 'Only the owner rotates the signing key.');
    await rotateSigningKey(ctx.domain.store, ctx.secrets, ctx.domain.clock.now());
    return answer(ctx, ctx.domain.store);
  },
});
