/** Owner item operations: list, read, move, reply, flag (inbox spec §4 owner operations). */
import { z } from 'zod';
import { listItems, loadItem, ownerView, replyToItem, setItemFlags, transitionItem } from '../domain/items/owner-items.js';
import { itemListEntrySchema, ownerItemViewSchema } from '../domain/items/views.js';
import { ITEM_TYPES } from '../domain/types.js';
import { isUlid } from '@svc/shared';
import {
  CHANGE,
  CREATE,
  READ,
  cursorPosition,
  expectedVersionField,
  idempotencyKeyField,
  inboxOperation,
  itemIdField,
  nextCursor,
  pageFields,
} from './context.js';
import { keptAnswer } from './kept-answers.js';

const OWNER_ERRORS = ['unauthorized', 'not_allowed'] as const;

export const listItemsOperation = inboxOperation({
  name: 'list_items',
  title: 'List items',
  description: 'Items newest first. Filters: type, state, needs_human, open_only (default true), sandbox, and q (every word, in names, contact, lines and messages). Paged.',
  audience: 'owner',
  kind: 'read',
  http: { method: 'GET', path: '/v1/owner/items' },
  scope: 'inbox:read',
  input: z.object({
    type: z.enum(ITEM_TYPES).optional(),
    state: z.string().min(1).max(40).optional(),
    needs_human: z.boolean().optional(),
    open_only: z.boolean().default(true).describe('Leave out items in a final state.'),
    sandbox: z.boolean().optional().describe('Only test items (true) or only real ones (false).'),
    q: z.string().max(200).optional(),
    ...pageFields,
  }),
  output: z.object({ items: z.array(itemListEntrySchema), next_cursor: z.string().nullable() }),
  annotations: READ,
  errors: [...OWNER_ERRORS, 'invalid_input'],
  // Kept while no item changes (kept-answers.ts): integrations poll this list.
  run: (ctx, input, extras) =>
    keptAnswer(ctx, extras, 'list_items', input, ['items'], async () => {
      const after = cursorPosition(input.cursor, isUlid);
      const { items, lastId } = await listItems(ctx.domain, {
        type: input.type,
        state: input.state,
        needsHuman: input.needs_human,
        openOnly: input.open_only,
        sandbox: input.sandbox,
        q: input.q,
        after,
        limit: input.limit,
      });
      return { body: { items, next_cursor: nextCursor(lastId) } };
    }),
});

export const getItemOperation = inboxOperation({
  name: 'get_item',
  title: 'Read one item',
  description: 'The item with its typed fields, events, conversation (with internal notes), receipts, valid next transitions and what is known of the customer.',
  audience: 'owner',
  kind: 'read',
  http: { method: 'GET', path: '/v1/owner/items/{id}' },
  scope: 'inbox:read',
  input: z.object({ id: itemIdField }),
  output: ownerItemViewSchema,
  annotations: READ,
  errors: [...OWNER_ERRORS, 'not_found'],
  run: async (ctx, input) => ownerView(ctx.domain, ctx.caller, await loadItem(ctx.domain, input.id)),
});

export const transitionItemOperation = inboxOperation({
  name: 'transition_item',
  title: 'Move an item',
  description:
    'Fires one event of the item (see `transitions` in get_item), with its input, a reason and expected_version. Refusals: unknown_event 400, not_allowed 403, wrong_state 409, guard_failed 409, slot_taken 409, version_conflict 409.',
  audience: 'owner',
  kind: 'write',
  http: { method: 'POST', path: '/v1/owner/items/{id}/transitions' },
  scope: 'inbox:write',
  input: z.object({
    id: itemIdField,
    event: z.string().min(1).max(80).describe('The event, e.g. confirm or booking.confirm.'),
    input: z.record(z.string(), z.unknown()).optional().describe('The event\'s input, as its schema in get_item says.'),
    reason: z.string().max(2000).optional(),
    expected_version: expectedVersionField,
    idempotency_key: idempotencyKeyField,
  }).strict(),
  output: ownerItemViewSchema,
  annotations: CHANGE,
  errors: [...OWNER_ERRORS, 'not_found', 'unknown_event', 'wrong_state', 'guard_failed', 'slot_taken', 'version_conflict', 'invalid_input', 'idempotency_mismatch'],
  run: (ctx, input) =>
    transitionItem(ctx.domain, ctx.caller, input.id, { event: input.event, input: input.input, reason: input.reason, expectedVersion: input.expected_version }),
});

export const replyOperation = inboxOperation({
  name: 'reply',
  title: 'Reply to the customer',
  description: 'Writes to the customer on the item (an open conversation becomes answered), or, with internal: true, leaves a note only the business sees.',
  audience: 'owner',
  kind: 'write',
  http: { method: 'POST', path: '/v1/owner/items/{id}/replies', successStatus: 201 },
  scope: 'inbox:write',
  input: z.object({
    id: itemIdField,
    message: z.string().trim().min(1).max(20_000),
    internal: z.boolean().default(false).describe('An internal note, never shown to the customer.'),
    idempotency_key: idempotencyKeyField,
  }).strict(),
  output: ownerItemViewSchema,
  annotations: CREATE,
  errors: [...OWNER_ERRORS, 'not_found', 'invalid_input', 'idempotency_mismatch'],
  run: (ctx, input) => replyToItem(ctx.domain, ctx.caller, input.id, { message: input.message, internal: input.internal }),
});

export const setItemFlagsOperation = inboxOperation({
  name: 'set_item_flags',
  title: 'Raise or clear needsHuman, set priority',
  description: 'Changes the item\'s flags; recorded as a <type>.flags event; the version does not change.',
  audience: 'owner',
  kind: 'write',
  http: { method: 'PATCH', path: '/v1/owner/items/{id}/flags' },
  scope: 'inbox:write',
  input: z.object({
    id: itemIdField,
    needsHuman: z.boolean().optional(),
    priority: z.number().int().min(0).max(3).optional().describe('0 normal … 3 urgent.'),
    idempotency_key: idempotencyKeyField,
  }).strict(),
  output: ownerItemViewSchema,
  annotations: { readOnlyHint: false, idempotentHint: true, destructiveHint: false },
  errors: [...OWNER_ERRORS, 'not_found', 'invalid_input'],
  run: (ctx, input) => setItemFlags(ctx.domain, ctx.caller, input.id, { needsHuman: input.needsHuman, priority: input.priority }),
});
