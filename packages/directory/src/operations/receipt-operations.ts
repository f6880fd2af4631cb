/** Receipt publication, POST /v1/receipts (PROTOCOL-13 §3): a verified inbox publishes a receipt it signed. */
import { z } from 'zod';
import { takeReceipt } from '../domain/receipts/intake.js';
import { directoryOperation } from './context.js';

export const publishReceipt = directoryOperation({
  name: 'publish_receipt',
  title: 'Publish a receipt',
  description: [
    'An inbox publishes one receipt it signed (compact JWS, svc-receipt+jws), with the customer\'s acknowledgement (svc-receipt-ack+jws) when there is one.',
    'The call is signed by the inbox (svc-instance/1; 401 otherwise), which must be verified here (409 wrong_state before).',
    'The receipt must verify with a key of the inbox\'s manifest (422 unknown_key, 422 bad_receipt with receipt_error), be its own (iss equal to Svc-Instance, else 403 not_allowed) and not be issued more than 300 s ahead;',
    'an acknowledgement must verify with the key it carries and bind this receipt (422 bad_acknowledgement with ack_error). A receipt over 4096 characters, an acknowledgement over 2048 or a body over 16 KiB is 413 too_large.',
    'Held once per (iss, receipt id): 201 when new, 200 when held already (duplicate), or when an acknowledgement it lacked is added (state acknowledged). Sandbox receipts (sbx 1) are held and counted for nothing.',
  ].join(' '),
  audience: 'public',
  kind: 'write',
  http: { method: 'POST', path: '/v1/receipts', successStatus: 201 },
  input: z.object({
    receipt: z.string().min(1).describe('The receipt as the inbox signed it, compact JWS.'),
    ack: z.string().min(1).optional().describe('The customer agent\'s acknowledgement of this receipt, compact JWS.'),
  }),
  output: z.object({
    ok: z.literal(true),
    receipt_id: z.string(),
    state: z.enum(['issued', 'acknowledged']),
    duplicate: z.boolean(),
    counted: z.boolean().describe('False for a sandbox receipt: held, counted for nothing.'),
  }),
  annotations: { readOnlyHint: false, idempotentHint: true, destructiveHint: false },
  errors: ['bad_request', 'unauthorized', 'replayed_signature', 'not_allowed', 'wrong_state', 'too_large', 'bad_receipt', 'unknown_key', 'bad_acknowledgement'],
  run: async (ctx, input, extras) => {
    const { status, answer } = await takeReceipt(ctx.domain, ctx.caller, input);
    extras.status = status;
    return answer;
  },
});
