/**
 * What callers see of an item: the item view every door shares, the customer's status view (what
 * you may do next) and the owner's full view. Schemas here are the doors' output schemas too.
 */
import { z } from 'zod';
import { ACTOR_KINDS, ITEM_TYPES, type ItemEventRecord, type ItemRecord, type MessageRecord } from '../types.js';
import { isoUtc } from '../time.js';
import { anyPayload, contactSchema } from './payloads.js';
import { receiptViewSchema } from '../receipts/receipt-view.js';
import { agentViewSchema } from '../identity/agent-view.js';

export const actorSchema = z.object({
  kind: z.enum(ACTOR_KINDS),
  id: z.string().nullable(),
  name: z.string().nullable(),
});

export const itemViewSchema = z.object({
  id: z.string().describe('ULID of the item.'),
  type: z.enum(ITEM_TYPES),
  state: z.string(),
  version: z.number().int().describe('Rises by one with each transition; messages do not change it.'),
  sandbox: z.boolean(),
  needsHuman: z.boolean(),
  priority: z.number().int().min(0).max(3),
  payload: anyPayload,
  linkedItemId: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  closedAt: z.string().nullable(),
});

export const conversationEntrySchema = z.object({
  id: z.string(),
  from: z.enum(['customer', 'business', 'system']),
  authorKind: z.enum(ACTOR_KINDS),
  authorName: z.string().nullable(),
  text: z.string(),
  internal: z.boolean(),
  channel: z.string(),
  createdAt: z.string(),
});

export const nextStepSchema = z.object({
  event: z.string().describe('The event this step fires.'),
  operation: z.string().describe('The operation that does it.'),
  label: z.string(),
});

export const statusViewSchema = itemViewSchema.extend({
  next: z.array(nextStepSchema).describe('What you may do next.'),
  conversation: z.array(conversationEntrySchema),
  receipts: z
    .array(receiptViewSchema)
    .describe("Receipts the business signed for this item, in order; counter-sign one with acknowledge_receipt (docs/receipts.md)."),
});

export const identitySchema = z.object({
  recognised: z.enum(['strong', 'weak', 'none']),
  passes: z.array(z.object({ network: z.string(), pass: z.string() })),
  verify: z.object({ available: z.boolean(), sent_to: z.string().optional() }).optional(),
  networks: z.record(z.string(), z.string()),
  guide: z.url().describe('The agent guide: how to book, order, ask and follow up here (an absolute URL).'),
});

/** get_item_status: the status view with the item's identity. */
export const statusWithIdentitySchema = statusViewSchema.extend({ identity: identitySchema });

export const createdItemSchema = statusViewSchema.extend({
  accessToken: z.string().describe('Keep it: it reads, cancels and messages this item.'),
  identity: identitySchema,
});

export const eventViewSchema = z.object({
  id: z.string(),
  type: z.string().describe('<item type>.<event>'),
  event: z.string(),
  fromState: z.string().nullable(),
  toState: z.string(),
  version: z.number().int(),
  by: actorSchema,
  channel: z.string(),
  sandbox: z.boolean(),
  reason: z.string().nullable(),
  data: z.record(z.string(), z.unknown()).nullable(),
  timestamp: z.string(),
});

export const ownerTransitionSchema = z.object({
  event: z.string(),
  label: z.string(),
  input: z.record(z.string(), z.unknown()).nullable().describe('JSON Schema of the input the event takes.'),
});

export const customerViewSchema = z.object({
  match: z.enum(['strong', 'weak', 'none']),
  email_proven: z.boolean().describe('The customer proved the address of this item with a one-time code (verify_customer).'),
  possible: z.string().nullable(),
  known: z.boolean(),
  history: z.object({ items: z.number().int(), completed: z.number().int(), noShows: z.number().int(), cancelledLate: z.number().int() }),
  persons: z
    .array(
      z.object({
        network: z.string(),
        tier: z.enum(['new', 'building', 'trusted']),
        score: z.number(),
        kept: z.number().int(),
        broken: z.number().int(),
        businesses: z.number().int(),
        since: z.string(),
        email_proven: z.boolean(),
        unusual_use: z.boolean(),
        presented: z.enum(['with_this_request', 'earlier']),
        presented_at: z.string(),
      }),
    )
    .describe('Per network that presented the customer: their standing there, and whether with this request or earlier.'),
  agent: agentViewSchema.nullable(),
});

export const ownerItemViewSchema = itemViewSchema.extend({
  contact: contactSchema.nullable(),
  channel: z.string(),
  events: z.array(eventViewSchema),
  conversation: z.array(conversationEntrySchema),
  receipts: z.array(receiptViewSchema).describe('Receipts signed for this item, in order, with their acknowledgements.'),
  transitions: z.array(ownerTransitionSchema).describe('Events the caller may fire now.'),
  customer: customerViewSchema,
});

export const itemListEntrySchema = itemViewSchema.extend({
  contact: contactSchema.nullable(),
  channel: z.string(),
});

export type ItemView = z.infer<typeof itemViewSchema>;

export function itemView(item: ItemRecord): ItemView {
  return {
    id: item.id,
    type: item.type,
    state: item.state,
    version: item.version,
    sandbox: item.sandbox,
    needsHuman: item.needsHuman,
    priority: item.priority,
    payload: item.payload as ItemView['payload'],
    linkedItemId: item.linkedItemId,
    createdAt: isoUtc(item.createdAt),
    updatedAt: isoUtc(item.updatedAt),
    closedAt: item.closedAt === null ? null : isoUtc(item.closedAt),
  };
}

export function conversationEntry(m: MessageRecord): z.infer<typeof conversationEntrySchema> {
  const fromCustomer = m.authorKind === 'customer_agent' || m.authorKind === 'customer_human';
  return {
    id: m.id,
    from: fromCustomer ? 'customer' : m.authorKind === 'system' ? 'system' : 'business',
    authorKind: m.authorKind,
    authorName: m.authorName,
    text: m.body,
    internal: m.internal,
    channel: m.channel,
    createdAt: isoUtc(m.createdAt),
  };
}

/**
 * A conversation entry as the customer sees it: the business answers under its own name; which key,
 * app or rule wrote the words stays in the owner's own history (docs/items.md).
 */
export function customerConversationEntry(m: MessageRecord, businessName: string): z.infer<typeof conversationEntrySchema> {
  const entry = conversationEntry(m);
  return entry.from === 'business' ? { ...entry, authorName: businessName } : entry;
}

export function eventView(e: ItemEventRecord): z.infer<typeof eventViewSchema> {
  return {
    id: e.id,
    type: e.type,
    event: e.event,
    fromState: e.fromState,
    toState: e.toState,
    version: e.version,
    by: e.actor,
    channel: e.channel,
    sandbox: e.sandbox,
    reason: e.reason,
    data: e.data,
    timestamp: isoUtc(e.createdAt),
  };
}
