/**
 * What an event says, in the shapes of inbox spec §6: the thin envelope (also the polled stream's
 * entry) and the full one with the item, its open transitions, a sentence, the party and, on a
 * `<type>.message` event, the message. Bodies are built from stored rows only, so a thin transition
 * event rebuilds to the same bytes every time.
 */
import type { DomainContext } from '../context.js';
import { openMoves } from '../items/item-writer.js';
import { conversationEntry, itemView } from '../items/views.js';
import { receiptView } from '../receipts/receipt-view.js';
import { isoUtc } from '../time.js';
import type { Actor, ItemEventRecord, ItemRecord } from '../types.js';

export interface ThinEventData {
  id: string;
  type: string;
  state: string;
  version: number;
  url: string;
  actor: Actor;
  channel: string;
  sandbox: boolean;
}

export interface EventEnvelope {
  id: string;
  type: string;
  timestamp: string;
  data: ThinEventData & Record<string, unknown>;
}

/** The owner's view of the item the event is about (the stream and thin webhooks link to it). */
export function itemUrl(publicBaseUrl: string, itemId: string): string {
  return `${publicBaseUrl}/v1/owner/items/${itemId}`;
}

/** A transition moves the version; `<type>.message` and `<type>.flags` do not. */
export function isTransitionEvent(event: ItemEventRecord): boolean {
  return event.seq !== null;
}

/**
 * The thin envelope. `current` is the item as it stands now; a transition event ignores it (its
 * state and version are those it produced), a side event reports it (inbox spec §6).
 */
export function thinEnvelope(event: ItemEventRecord, publicBaseUrl: string, current?: Pick<ItemRecord, 'state' | 'version'> | null): EventEnvelope {
  const asNow = !isTransitionEvent(event) && current ? current : null;
  return {
    id: event.id,
    type: event.type,
    timestamp: isoUtc(event.createdAt),
    data: {
      id: event.itemId,
      type: event.type.slice(0, event.type.indexOf('.')),
      state: asNow ? asNow.state : event.toState,
      version: asNow ? asNow.version : event.version,
      url: itemUrl(publicBaseUrl, event.itemId),
      actor: event.actor,
      channel: event.channel,
      sandbox: event.sandbox,
    },
  };
}

const OWNER: Actor = { kind: 'owner', id: null, name: null };

/** The full envelope: the thin one plus the item as it stands now and what goes with it. */
export async function fullEnvelope(ctx: DomainContext, event: ItemEventRecord, item: ItemRecord, publicBaseUrl: string): Promise<EventEnvelope> {
  const envelope = thinEnvelope(event, publicBaseUrl, item);
  const moves = await openMoves(ctx, item, OWNER);
  const data: EventEnvelope['data'] = {
    ...envelope.data,
    item: { ...itemView(item), channel: item.channel },
    transitions: moves.map((row) => ({ event: row.event, label: row.label })),
    human: describeEvent(event, item),
    party: { name: item.contact?.name ?? null, email: item.contact?.email ?? null, phone: item.contact?.phone ?? null },
  };
  if (event.event === 'message') {
    const messageId = typeof event.data?.messageId === 'string' ? event.data.messageId : null;
    const messages = await ctx.store.items.listMessages(item.id, false);
    const message = messages.find((m) => m.id === messageId) ?? null;
    data.message = message ? conversationEntry(message) : null;
  }
  if (event.event === 'receipt_issued' || event.event === 'receipt_acknowledged' || event.event === 'receipt_not_logged') {
    // The receipt as it stands now (with its acknowledgement once there is one), like the item.
    const id = typeof event.data?.receipt_id === 'string' ? event.data.receipt_id : null;
    const receipt = id ? await ctx.store.receipts.get(id) : null;
    data.receipt = receipt ? receiptView(receipt) : null;
  }
  return { ...envelope, data };
}

const CREATE_PHRASES: Record<string, string> = {
  booking: 'asked for a booking',
  order: 'placed an order',
  quote_request: 'asked for a quote',
  message: 'started a conversation',
  refund: 'opened a refund',
};

/** One plain sentence for people reading a notification (the full payload's `human`). */
export function describeEvent(event: ItemEventRecord, item: ItemRecord): string {
  const who = actorPhrase(event.actor, item);
  const what = itemPhrase(item);
  if (event.event === 'create') return `${who} ${CREATE_PHRASES[item.type] ?? `created a ${item.type}`}${what}; it is ${event.toState}.`;
  if (event.event === 'message') return `${who} wrote a message on ${item.type.replace('_', ' ')} ${item.id}${what}.`;
  if (event.event === 'flags') return `${who} changed the flags of ${item.type.replace('_', ' ')} ${item.id}${what}.`;
  if (event.event === 'receipt_issued') {
    const outcome = typeof event.data?.outcome === 'string' ? `: ${event.data.outcome}` : '';
    return `The inbox signed a receipt (${String(event.data?.kind ?? 'receipt')}${outcome}) for ${item.type.replace('_', ' ')} ${item.id}${what}.`;
  }
  if (event.event === 'receipt_not_logged') {
    return `The network ${String(event.data?.network ?? '')} took receipt ${String(event.data?.receipt_id ?? '')} of ${item.type.replace('_', ' ')} ${item.id}${what}, but its public evidence log does not hold it an hour later: it may not count it.`;
  }
  if (event.event === 'receipt_acknowledged') return `The customer's agent counter-signed receipt ${String(event.data?.receipt_id ?? '')} of ${item.type.replace('_', ' ')} ${item.id}${what}.`;
  const move = event.fromState === event.toState ? `(still ${event.toState})` : `from ${event.fromState ?? 'new'} to ${event.toState}`;
  return `${who} did ${event.event.replace(/_/g, ' ')} on ${item.type.replace('_', ' ')} ${item.id}${what}, ${move}.`;
}

function actorPhrase(actor: Actor, item: ItemRecord): string {
  switch (actor.kind) {
    case 'customer_agent':
    case 'customer_human':
      return item.contact?.name ?? 'The customer';
    case 'owner':
      return 'The owner';
    case 'owner_ai':
      return actor.name ? `The owner's AI (${actor.name})` : "The owner's AI";
    case 'integration':
      return actor.name ? `Integration "${actor.name}"` : 'An integration';
    case 'connector':
      return 'A connector';
    case 'rule':
      return actor.name ? `Rule "${actor.name}"` : 'A rule';
    case 'system':
      return 'The inbox';
  }
}

function itemPhrase(item: ItemRecord): string {
  const payload = item.payload as { serviceName?: unknown; startTime?: unknown; subject?: unknown };
  const parts = [payload.serviceName, payload.startTime, payload.subject].filter((p): p is string => typeof p === 'string' && p.length > 0);
  return parts.length > 0 ? ` (${parts.join(', ')})` : '';
}
