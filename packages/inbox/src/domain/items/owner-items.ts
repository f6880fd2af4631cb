/** What the owner (or an integration, or the owner's AI) does with items: list, read, move, reply, flag. */
import { Problem, jsonSchemaOf, newId } from '@svc/shared';
import type { DomainContext } from '../context.js';
import { searchWords } from '../text.js';
import type { Caller, ItemRecord, ItemType } from '../types.js';
import { addToSearchText, moveItem, openMoves, recordSideEvent, setNeedsHuman } from './item-writer.js';
import { conversationEntry, eventView, itemView } from './views.js';
import { receiptView } from '../receipts/receipt-view.js';
import { agentView } from '../identity/agent-view.js';
import { queueNotice } from '../mail/notices.js';
import { personsView } from '../identity/item-identity.js';

export interface ListItemsQuery {
  type?: ItemType | undefined;
  state?: string | undefined;
  needsHuman?: boolean | undefined;
  openOnly: boolean;
  sandbox?: boolean | undefined;
  q?: string | undefined;
  after?: string | undefined;
  limit: number;
}

export async function listItems(ctx: DomainContext, query: ListItemsQuery) {
  const rows = await ctx.store.items.list(
    { type: query.type, state: query.state, needsHuman: query.needsHuman, openOnly: query.openOnly, sandbox: query.sandbox, words: searchWords(query.q) },
    { after: query.after, limit: query.limit + 1 },
  );
  const page = rows.slice(0, query.limit);
  return {
    items: page.map((item) => ({ ...itemView(item), contact: item.contact, channel: item.channel })),
    lastId: rows.length > query.limit ? (page[page.length - 1]?.id ?? null) : null,
  };
}

export async function loadItem(ctx: DomainContext, itemId: string): Promise<ItemRecord> {
  const item = await ctx.store.items.get(itemId);
  if (!item) throw new Problem('not_found', `No item has id ${itemId}.`);
  return item;
}

export async function ownerView(ctx: DomainContext, caller: Caller, item: ItemRecord) {
  const [events, messages, moves, history, receipts, agent, proof, persons] = await Promise.all([
    ctx.store.items.listEvents(item.id),
    ctx.store.items.listMessages(item.id, true),
    openMoves(ctx, item, caller.actor),
    item.contact?.email ? ctx.store.items.historyByEmail(item.contact.email, item.id) : Promise.resolve([]),
    ctx.store.receipts.listForItem(item.id),
    agentView(ctx.store, item.id),
    ctx.store.identity.itemProof(item.id),
    personsView(ctx, item),
  ]);
  return {
    ...itemView(item),
    contact: item.contact,
    channel: item.channel,
    events: events.map(eventView),
    conversation: messages.map(conversationEntry),
    receipts: receipts.map(receiptView),
    transitions: moves.map((row) => ({
      event: row.event,
      label: row.label,
      input: row.input ? jsonSchemaOf(row.input, 'input') : null,
    })),
    customer: {
      // An email seen before is a weak match until the customer proves it (verify_customer): then strong.
      match: history.length > 0 ? (proof ? ('strong' as const) : ('weak' as const)) : ('none' as const),
      email_proven: proof !== null,
      possible: history.length > 0 ? (item.contact?.email ?? null) : null,
      known: history.length > 0,
      history: {
        items: history.length,
        completed: history.filter((h) => h.state === 'completed').length,
        noShows: history.filter((h) => h.state === 'no_show').length,
        cancelledLate: history.filter((h) => h.state === 'cancelled_late').length,
      },
      persons,
      agent,
    },
  };
}

export async function transitionItem(
  ctx: DomainContext,
  caller: Caller,
  itemId: string,
  request: { event: string; input?: Record<string, unknown> | undefined; reason?: string | undefined; expectedVersion?: number | undefined },
) {
  const item = await loadItem(ctx, itemId);
  const moved = await moveItem(ctx, { actor: caller.actor, channel: caller.channel }, item, {
    events: [request.event],
    input: request.input,
    reason: request.reason,
    expectedVersion: request.expectedVersion,
  });
  return ownerView(ctx, caller, moved);
}

/** Replies to the customer (an open conversation becomes answered), or leaves an internal note. */
export async function replyToItem(ctx: DomainContext, caller: Caller, itemId: string, request: { message: string; internal: boolean }) {
  let item = await loadItem(ctx, itemId);
  const nowMs = ctx.clock.now();
  const messageId = newId(nowMs);
  await ctx.store.items.addMessage({
    id: messageId,
    itemId: item.id,
    authorKind: caller.actor.kind,
    authorId: caller.actor.id,
    authorName: caller.actor.name,
    body: request.message,
    internal: request.internal,
    channel: caller.channel,
    createdAt: nowMs,
  });
  item = await addToSearchText(ctx, item, request.message);
  // The business's reply goes to the customer by mail too (docs/mail.md); a note stays inside.
  if (!request.internal) await queueNotice(ctx, item, 'reply', { messageId });
  // Answered: the "needs you" flag a conversation came with clears (a flags event, as when cleared by hand), before the move it makes.
  if (!request.internal && item.needsHuman) item = await setNeedsHuman(ctx, { actor: caller.actor, channel: caller.channel }, item, false);
  if (!request.internal && item.type === 'message' && item.state === 'open') {
    item = await moveItem(ctx, { actor: caller.actor, channel: caller.channel }, item, { events: ['answer'] });
  }
  return ownerView(ctx, caller, item);
}

/** Raises or clears needsHuman, or moves priority: a `<type>.flags` event, no version change. */
export async function setItemFlags(
  ctx: DomainContext,
  caller: Caller,
  itemId: string,
  flags: { needsHuman?: boolean | undefined; priority?: number | undefined },
) {
  const item = await loadItem(ctx, itemId);
  const nowMs = ctx.clock.now();
  const updated = {
    ...item,
    needsHuman: flags.needsHuman ?? item.needsHuman,
    priority: flags.priority ?? item.priority,
    updatedAt: nowMs,
  };
  const changed = updated.needsHuman !== item.needsHuman || updated.priority !== item.priority;
  if (changed) {
    if (!(await ctx.store.items.update(updated, item.version))) throw new Problem('version_conflict', 'The item changed; try again.');
    await recordSideEvent(ctx, { actor: caller.actor, channel: caller.channel }, item, 'flags', {
      needsHuman: updated.needsHuman,
      priority: updated.priority,
    });
  }
  return ownerView(ctx, caller, changed ? updated : item);
}

