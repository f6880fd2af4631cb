/** verify_customer (inbox spec §4): prove the address an item carries with a one-time code. */
import { z } from 'zod';
import { verifyCustomer } from '../domain/identity/verify-customer.js';
import { idempotencyKeyField, inboxOperation, itemIdField } from './context.js';

export const verifyCustomerOperation = inboxOperation({
  name: 'verify_customer',
  title: 'Prove the customer\'s address with a one-time code',
  description:
    'First call (item_id and its access token): six digits go to the e-mail address the item was made with; the answer (202) says where, masked. Ask the person for the code, then call again with `code`: 200 {recognised: strong}. Codes last ten minutes and allow five attempts.',
  audience: 'public',
  kind: 'write',
  http: { method: 'POST', path: '/v1/customers/verify', successStatus: 200 },
  itemAccess: 'required',
  answers: { alsoStatuses: [202] },
  input: z.object({
    item_id: itemIdField.describe('The item whose address to prove.'),
    access_token: z.string().min(1).max(200).optional().describe('The item\'s access token; or header x-access-token.'),
    code: z.string().regex(/^[0-9]{6}$/, 'six digits').optional().describe('The six digits the person received; leave out to have a code sent.'),
    idempotency_key: idempotencyKeyField,
  }),
  output: z.union([
    z.object({ sent_to: z.string().describe('Where the code went, masked.'), expires_in: z.number().int().describe('Seconds the code lasts.') }),
    z.object({ recognised: z.literal('strong'), email_proven: z.literal(true) }),
  ]),
  annotations: { readOnlyHint: false, idempotentHint: false, destructiveHint: false },
  errors: ['not_found', 'unauthorized', 'nothing_to_verify', 'already_verified', 'bad_code', 'code_expired', 'too_many_attempts', 'idempotency_mismatch'],
  run: async (ctx, input, extras) => {
    const answer = await verifyCustomer(ctx.domain, { keys: ctx.identity.keys, secrets: ctx.secrets, mailHost: ctx.identity.mailHost }, ctx.caller, {
      itemId: input.item_id,
      token: ctx.accessTokenHeader ?? input.access_token,
      code: input.code,
    });
    extras.status = answer.status;
    return answer.body;
  },
});
