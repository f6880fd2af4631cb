/** Public item operations: create, read status, cancel, message, answer an offer (inbox spec §4). */
import { z } from 'zod';
import {
  cancelItem,
  createBooking,
  createOrder,
  customerMessage,
  getItemStatus,
  requestQuote,
  respondToOffer,
  startConversation,
} from '../domain/items/customer-items.js';
import { bookingRequestPayload, contactSchema, messagePayload, orderRequestPayload, quoteRequestPayload } from '../domain/items/payloads.js';
import { createdItemSchema, statusViewSchema, statusWithIdentitySchema } from '../domain/items/views.js';
import {
  CHANGE,
  CREATE,
  accessTokenField,
  expectedVersionField,
  idempotencyKeyField,
  inboxOperation,
  itemIdField,
  type OperationContext,
} from './context.js';

const messageField = z.string().trim().min(1).max(20_000).describe('Free text to the business.');
const sandboxField = z.boolean().optional().describe('A test item: handled like any other, kept apart in the owner\'s lists, never blocks a real slot.');
/**
 * A person's passes and key in the body of a public write (inbox spec §4, docs/identity.md). A read
 * (GET) takes passes from the Svc-Pass header only, so get_item_status has none of these: a pass or
 * key is never put in a URL (doors/rest/passes-in-url.ts refuses one there).
 */
export const passFields = {
  pass: z.string().max(1700).optional().describe('A person\'s passes, space-separated, at most 8 (or header Svc-Pass). A pass reference (no secret) works only in a signed request.'),
  key: z.string().max(200).optional().describe('A person\'s key from their network\'s mail, exchanged once for a pass (shown in identity.passes: keep it).'),
};

function createInput<P extends z.ZodType>(payload: P) {
  return z.object({
    payload,
    contact: contactSchema.optional(),
    message: messageField.optional(),
    sandbox: sandboxField,
    idempotency_key: idempotencyKeyField,
    ...passFields,
  });
}

function tokenOf(ctx: OperationContext, input: { access_token?: string | undefined }): string | undefined {
  return ctx.accessTokenHeader ?? input.access_token;
}

const CREATE_ERRORS = ['invalid_input', 'not_allowed', 'idempotency_mismatch'] as const;

export const requestQuoteOperation = inboxOperation({
  name: 'request_quote',
  title: 'Ask for a quote',
  description: 'Asks the business to price something custom. Keep the accessToken of the answer to follow up.',
  audience: 'public',
  kind: 'write',
  http: { method: 'POST', path: '/v1/quotes', successStatus: 201 },
  answers: { location: true },
  input: createInput(quoteRequestPayload),
  output: createdItemSchema,
  annotations: CREATE,
  errors: CREATE_ERRORS,
  run: (ctx, input, extras) => answerCreated(ctx, extras, requestQuote(ctx.domain, ctx.caller, input)),
});

export const createBookingOperation = inboxOperation({
  name: 'create_booking',
  title: 'Request a booking',
  description:
    'Requests a booking of a service at a start time (check_availability first). The business confirms it; a fixed-price service costs what the catalogue says. Keep the accessToken.',
  audience: 'public',
  kind: 'write',
  http: { method: 'POST', path: '/v1/bookings', successStatus: 201 },
  answers: { location: true },
  input: createInput(bookingRequestPayload),
  output: createdItemSchema,
  annotations: CREATE,
  errors: [...CREATE_ERRORS, 'slot_taken'],
  run: (ctx, input, extras) => answerCreated(ctx, extras, createBooking(ctx.domain, ctx.caller, input)),
});

export const createOrderOperation = inboxOperation({
  name: 'create_order',
  title: 'Place an order',
  description:
    'Orders products by productId or sku with quantities. Catalogue prices apply; lines the catalogue does not know wait for the business to price them. Keep the accessToken.',
  audience: 'public',
  kind: 'write',
  http: { method: 'POST', path: '/v1/orders', successStatus: 201 },
  answers: { location: true },
  input: createInput(orderRequestPayload),
  output: createdItemSchema,
  annotations: CREATE,
  errors: CREATE_ERRORS,
  run: (ctx, input, extras) => answerCreated(ctx, extras, createOrder(ctx.domain, ctx.caller, input)),
});

/** A create answer: `Location` of the new item, and the agent guide as an absolute URL. */
async function answerCreated<T extends { id: string; identity: { guide: string } }>(
  ctx: OperationContext,
  extras: { headers?: Record<string, string> },
  created: Promise<T>,
): Promise<T> {
  const item = await created;
  extras.headers = { ...extras.headers, location: `/v1/items/${item.id}` };
  return withAbsoluteGuide(ctx, item);
}

/** identity.guide is a URL (inbox spec §2): the domain names the guide's path, every answer gives it absolute. */
function withAbsoluteGuide<T extends { identity: { guide: string } }>(ctx: OperationContext, answer: T): T {
  return { ...answer, identity: { ...answer.identity, guide: `${ctx.config.publicBaseUrl}${answer.identity.guide}` } };
}

export const getItemStatusOperation = inboxOperation({
  name: 'get_item_status',
  title: 'Read an item\'s status',
  description: 'The item\'s state, version, conversation and what you may do next. Needs the item\'s access token.',
  audience: 'public',
  kind: 'read',
  http: { method: 'GET', path: '/v1/items/{id}' },
  itemAccess: 'required',
  // No pass or key: a GET reads passes from the Svc-Pass header only (inbox spec §4); MCP takes the header too.
  input: z.object({ id: itemIdField, access_token: accessTokenField }),
  output: statusWithIdentitySchema,
  annotations: { readOnlyHint: true, idempotentHint: true, destructiveHint: false },
  errors: ['not_found', 'unauthorized'],
  run: async (ctx, input) => withAbsoluteGuide(ctx, await getItemStatus(ctx.domain, ctx.caller, input.id, tokenOf(ctx, input))),
});

export const cancelItemOperation = inboxOperation({
  name: 'cancel_item',
  title: 'Cancel an item you created',
  description:
    'Cancels a booking (free inside the business\'s cancellation window; later it is recorded as late or refused, as the business chose), an order before it is paid, a quote request, or closes a conversation.',
  audience: 'public',
  kind: 'write',
  http: { method: 'POST', path: '/v1/items/{id}/cancel' },
  itemAccess: 'required',
  input: z.object({
    id: itemIdField,
    access_token: accessTokenField,
    reason: z.string().max(2000).optional(),
    expected_version: expectedVersionField,
    idempotency_key: idempotencyKeyField,
    ...passFields,
  }),
  output: statusViewSchema,
  annotations: CHANGE,
  errors: ['not_found', 'unauthorized', 'wrong_state', 'guard_failed', 'not_allowed', 'version_conflict', 'idempotency_mismatch'],
  run: (ctx, input) =>
    cancelItem(ctx.domain, ctx.caller, input.id, tokenOf(ctx, input), { reason: input.reason, expectedVersion: input.expected_version }),
});

export const sendMessageOperation = inboxOperation({
  name: 'send_message',
  title: 'Send a message',
  description:
    'Starts a new conversation with the business, or, with `item_id` and that item\'s access token, writes on an item you own (answering a request for details moves it on).',
  audience: 'public',
  kind: 'write',
  http: { method: 'POST', path: '/v1/messages', successStatus: 201 },
  itemAccess: 'optional',
  answers: { location: true, alsoStatuses: [200] },
  input: z.object({
    item_id: itemIdField.optional().describe('Reply on this item instead of starting a conversation.'),
    access_token: accessTokenField,
    message: messageField,
    payload: messagePayload.optional(),
    contact: contactSchema.optional(),
    sandbox: sandboxField,
    idempotency_key: idempotencyKeyField,
    ...passFields,
  }),
  output: z.union([createdItemSchema, statusViewSchema]),
  annotations: CREATE,
  errors: [...CREATE_ERRORS, 'not_found', 'unauthorized', 'wrong_state'],
  run: async (ctx, input, extras) => {
    if (input.item_id) {
      extras.status = 200;
      return customerMessage(ctx.domain, ctx.caller, input.item_id, tokenOf(ctx, input), input.message);
    }
    return answerCreated(
      ctx,
      extras,
      startConversation(ctx.domain, ctx.caller, { payload: input.payload ?? {}, contact: input.contact, message: input.message, sandbox: input.sandbox }),
    );
  },
});

const offerInput = z.object({
  id: itemIdField,
  access_token: accessTokenField,
  reason: z.string().max(2000).optional(),
  expected_version: expectedVersionField,
  idempotency_key: idempotencyKeyField,
  ...passFields,
});

export const acceptOfferOperation = inboxOperation({
  name: 'accept_offer',
  title: 'Accept what the business offered',
  description: 'Accepts the time the business proposed for a booking, or the quote it sent (which creates the booking or order).',
  audience: 'public',
  kind: 'write',
  http: { method: 'POST', path: '/v1/items/{id}/accept' },
  itemAccess: 'required',
  input: offerInput,
  output: statusViewSchema,
  annotations: CHANGE,
  errors: ['not_found', 'unauthorized', 'wrong_state', 'guard_failed', 'slot_taken', 'not_allowed', 'version_conflict', 'idempotency_mismatch'],
  run: (ctx, input) =>
    respondToOffer(ctx.domain, ctx.caller, input.id, tokenOf(ctx, input), 'accept', { expectedVersion: input.expected_version, reason: input.reason }),
});

export const declineOfferOperation = inboxOperation({
  name: 'decline_offer',
  title: 'Decline a quote',
  description: 'Declines the quote the business sent.',
  audience: 'public',
  kind: 'write',
  http: { method: 'POST', path: '/v1/items/{id}/decline' },
  itemAccess: 'required',
  input: offerInput,
  output: statusViewSchema,
  annotations: CHANGE,
  errors: ['not_found', 'unauthorized', 'wrong_state', 'not_allowed', 'version_conflict', 'idempotency_mismatch'],
  run: (ctx, input) =>
    respondToOffer(ctx.domain, ctx.caller, input.id, tokenOf(ctx, input), 'decline', { expectedVersion: input.expected_version, reason: input.reason }),
});
