/**
 * The shapes of an event (inbox spec §6) as zod schemas: the thin envelope (also the polled
 * stream's entry), the full one, and the `inbox.test` body; and every event type the inbox can
 * send, read off the state machines so the list cannot drift from what they emit. The OpenAPI
 * document's `webhooks` section is built from these, and tests parse real bodies with them.
 */
import { z } from 'zod';
import { MACHINES } from '../machines/index.js';
import { actorSchema, conversationEntrySchema, itemViewSchema } from '../items/views.js';
import { receiptViewSchema } from '../receipts/receipt-view.js';
import { ITEM_TYPES, type ItemType } from '../types.js';
import { TEST_EVENT_TYPE } from '../webhooks/test-event.js';

/** Events that are not transitions: they never bump the item's version. */
export const SIDE_EVENTS = ['message', 'flags'] as const;

/**
 * Receipt events (docs/receipts.md): they never bump the item's version either. receipt_not_logged:
 * a network took the receipt but its evidence log does not hold it an hour later (docs/verifiable-order.md).
 */
export const RECEIPT_EVENTS = ['receipt_issued', 'receipt_acknowledged', 'receipt_not_logged'] as const;

/** Item types whose moves sign receipts, read off the machines. */
export function receiptTypes(): ItemType[] {
  return ITEM_TYPES.filter((type) => MACHINES[type].transitions.some((row) => (row.receipts ?? []).length > 0));
}

/** `create`, every event of the type's machine, the side events, then the receipt events of a type that has receipts. */
export function eventsOf(type: ItemType): string[] {
  const receipts = receiptTypes().includes(type) ? RECEIPT_EVENTS : [];
  return ['create', ...new Set(MACHINES[type].transitions.map((row) => row.event)), ...SIDE_EVENTS, ...receipts];
}

export function isReceiptEventType(type: string): boolean {
  return RECEIPT_EVENTS.some((event) => type.endsWith(`.${event}`));
}

/** Every event type the inbox can send, `<item type>.<event>`, then inbox.test. */
export function allEventTypes(): string[] {
  return [...ITEM_TYPES.flatMap((type) => eventsOf(type).map((event) => `${type}.${event}`)), TEST_EVENT_TYPE];
}

export const thinEventDataSchema = z.object({
  id: z.string().describe('The item id.'),
  type: z.enum(ITEM_TYPES).describe('The item type.'),
  state: z.string().describe("The item's state after a transition event; as it stands when sent on a side event."),
  version: z.number().int().describe("The item's version after a transition event; as it stands when sent on a side event."),
  url: z.string().describe('Owner API URL of the item.'),
  actor: actorSchema,
  channel: z.string().describe('The door the event came through (rest, mcp_public, mcp_owner, email, system…).'),
  sandbox: z.boolean(),
});

export const thinEventSchema = z.object({
  id: z.string().describe('ULID of the event; also its webhook-id. Deduplicate on it.'),
  type: z.string().describe('<item type>.<event>'),
  timestamp: z.string().describe('ISO 8601 UTC with milliseconds.'),
  data: thinEventDataSchema,
});

export const fullEventSchema = thinEventSchema.extend({
  data: thinEventDataSchema.extend({
    item: itemViewSchema.extend({ channel: z.string() }).describe('The whole item as it stands now.'),
    transitions: z.array(z.object({ event: z.string(), label: z.string() })).describe('Events the owner may fire now, each with its label.'),
    human: z.string().describe('One sentence saying what happened.'),
    party: z.object({ name: z.string().nullable(), email: z.string().nullable(), phone: z.string().nullable() }).describe('The customer.'),
    message: conversationEntrySchema.nullable().optional().describe('On a <type>.message event: the message.'),
    receipt: receiptViewSchema.nullable().optional().describe('On a <type>.receipt_issued or <type>.receipt_acknowledged event: the receipt as it stands now.'),
  }),
});

/** The full body of a receipt event: data.receipt is always there (docs/receipts.md). */
export const fullReceiptEventSchema = fullEventSchema.extend({
  data: fullEventSchema.shape.data.extend({
    receipt: receiptViewSchema.describe('The receipt as it stands now: the JWS exactly as signed, its claims, and the acknowledgement once there is one.'),
  }),
});

export const testEventSchema = z.object({
  id: z.string(),
  type: z.literal(TEST_EVENT_TYPE),
  timestamp: z.string(),
  test: z.literal(true),
  data: z.object({
    id: z.string().describe('An id no item has.'),
    type: z.literal('test'),
    state: z.literal('test'),
    version: z.literal(0),
    url: z.null(),
    actor: actorSchema,
    channel: z.string(),
    sandbox: z.literal(true),
    test: z.literal(true),
    human: z.string().describe('A sentence saying nothing was created.'),
  }),
});
