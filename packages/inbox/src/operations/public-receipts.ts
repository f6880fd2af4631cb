/** acknowledge_receipt (inbox spec §4; docs/receipts.md "Acknowledgement"): REST and the public MCP tool. */
import { RECEIPT_ACK_MAX_CHARS, RECEIPT_ACK_TYP } from '@svc/shared';
import { z } from 'zod';
import { acknowledgeReceipt } from '../domain/receipts/acknowledge-receipt.js';
import { receiptViewSchema } from '../domain/receipts/receipt-view.js';
import { accessTokenField, idempotencyKeyField, inboxOperation, itemIdField } from './context.js';
import { passFields } from './public-items.js';

export const acknowledgeReceiptOperation = inboxOperation({
  name: 'acknowledge_receipt',
  title: 'Counter-sign a receipt',
  description:
    `Counter-signs a receipt of an item you may open (its access token, or a request signed by the agent that created it, or a pass of the person it belongs to), with your agent's own Ed25519 key: send a compact JWS with header {alg: "EdDSA", typ: "${RECEIPT_ACK_TYP}", jwk: <your public key>} and payload {rcp: receipt_id, sha: base64url SHA-256 of the receipt's jws exactly as received, iat: now in seconds}, signed at most an hour before it arrives; ` +
    'or, in a request you sign (svc-agent/1), send receipt_id alone: the request\'s signature is the counter-signature, kept as signed (so the token goes in X-Access-Token, never in what is signed). ' +
    'Acknowledging again with the same key answers as the first time and stores nothing new. Networks get a JWS acknowledgement with the receipt.',
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
      .optional()
      .describe(
        `The acknowledgement: a compact JWS of typ ${RECEIPT_ACK_TYP} (at most ${RECEIPT_ACK_MAX_CHARS} characters; ours are about 450). Required unless a request you sign names the receipt by receipt_id.`,
      ),
    receipt_id: z
      .string()
      .regex(/^[0-9a-f]{32}$/, 'A receipt id is 32 lowercase hex characters.')
      .optional()
      .describe('The receipt you acknowledge: with ack it must be the one the acknowledgement names (rcp); without ack, in a request you sign, the signature acknowledges it.'),
    idempotency_key: idempotencyKeyField,
    ...passFields,
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
    'invalid_input',
    'idempotency_mismatch',
  ],
  run: (ctx, input) =>
    acknowledgeReceipt(ctx.domain, ctx.caller, input.id, ctx.accessTokenHeader ?? input.access_token, { ack: input.ack, receiptId: input.receipt_id }),
});
