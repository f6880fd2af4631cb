/** acknowledge_receipt (inbox spec §4; docs/receipts.md "Acknowledgement"): REST and the public MCP tool. */
import { RECEIPT_ACK_MAX_CHARS, RECEIPT_ACK_TYP } from '@svc/shared';
import { z } from 'zod';
import { acknowledgeReceipt } from '../domain/receipts/acknowledge-receipt.js';
import { receiptViewSchema } from '../domain/receipts/receipt-view.js';
import { accessTokenField, idempotencyKeyField, inboxOperation, itemIdField } from './context.js';

export const acknowledgeReceiptOperation = inboxOperation({
  name: 'acknowledge_receipt',
  title: 'Counter-sign a receipt',
  description:
    `Counter-signs a receipt of an item you hold the access token of, with your agent's own Ed25519 key: send a compact JWS with header {alg: "EdDSA", typ: "${RECEIPT_ACK_TYP}", jwk: <your public key>} and payload {rcp: receipt_id, sha: base64url SHA-256 of the receipt's jws exactly as received, iat: now in seconds}, signed at most an hour before it arrives. ` +
    'Acknowledging again with the same key answers as the first time and stores nothing new. Networks get the acknowledgement with the receipt.',
  audience: 'public',
  kind: 'write',
  http: { method: 'POST', path: '/v1/items/{id}/receipt-ack' },
  itemAccess: 'required',
  input: z.object({
    id: itemIdField,
    access_token: accessTokenField,
    ack: z
      .string()
      .min(1)
      .max(RECEIPT_ACK_MAX_CHARS)
      .describe(`The acknowledgement: a compact JWS of typ ${RECEIPT_ACK_TYP} (at most ${RECEIPT_ACK_MAX_CHARS} characters; ours are about 450).`),
    receipt_id: z
      .string()
      .regex(/^[0-9a-f]{32}$/, 'A receipt id is 32 lowercase hex characters.')
      .optional()
      .describe('The receipt you acknowledge; when sent it must be the one the acknowledgement names (rcp).'),
    idempotency_key: idempotencyKeyField,
  }),
  output: z.object({
    item_id: z.string(),
    receipt: receiptViewSchema.describe('The receipt with its acknowledgement as stored (the first one, when it was acknowledged before by the same key).'),
  }),
  annotations: { readOnlyHint: false, idempotentHint: true, destructiveHint: false },
  errors: [
    'not_found',
    'unauthorized',
    'bad_acknowledgement',
    'wrong_receipt',
    'receipt_of_other_item',
    'acknowledgement_expired',
    'acknowledgement_not_yet_valid',
    'already_acknowledged',
    'idempotency_mismatch',
  ],
  run: (ctx, input) =>
    acknowledgeReceipt(ctx.domain, ctx.caller, input.id, ctx.accessTokenHeader ?? input.access_token, { ack: input.ack, receiptId: input.receipt_id }),
});
