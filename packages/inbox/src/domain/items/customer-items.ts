/**
 * What a customer's agent does with items: create the four kinds it may create, read an item's
 * status with its access token, cancel it, message on it, accept an offer. Every function runs
 * inside the caller's transaction.
 */
import { Problem, invalidField, newId } from '@svc/shared';
import { loadProfile, type DomainContext } from '../context.js';
import { refuseImpossibleLength, refuseUnbookableTime } from '../availability/booking-time.js';
import { priceBooking, priceOrder } from '../catalogue/pricing.js';
import { isoInZone, parseInstant } from '../time.js';
import type { Actor, Caller, Contact, CustomerItemType, ItemRecord, ItemType, MessageRecord } from '../types.js';
import type { ReceiptRecord } from '../../store/receipt-store.js';
import { accessTokenMatches, newAccessToken } from './access-token.js';
import { addToSearchText, moveItem, openMoves, recordSideEvent, setNeedsHuman, writeNewItem, type Mover } from './item-writer.js';
import type { BookingPayload, BookingRequest, OrderRequest } from './payloads.js';
import { customerConversationEntry, itemView, type ItemView } from './views.js';
import { receiptView } from '../receipts/receipt-view.js';
import { itemNetworkStatuses, passesToKeep, presentedPersonOwns, recordNewItemIdentity } from '../identity/item-identity.js';

export interface CreateRequest<P> {
  payload: P;
  contact?: Contact | undefined;
  message?: string | undefined;
  sandbox?: boolean | undefined;
}

/** Which operation a customer uses for each event they may fire. */
const CUSTOMER_OPERATION: Record<string, string> = {
  cancel: 'cancel_item',
  cancel_late: 'cancel_item',
  close: 'cancel_item',
  decline: 'decline_offer',
  accept: 'accept_offer',
  provide_info: 'send_message',
  reopen: 'send_message',
};

/** cancel_item fires the customer's way out of each item type. */
const CANCEL_EVENTS: Record<ItemType, readonly string[]> = {
  booking: ['cancel', 'cancel_late'],
  order: ['cancel'],
  quote_request: ['decline'],
  message: ['close'],
  refund: [],
};

function moverOf(caller: Caller): Mover {
  return { actor: caller.actor, channel: caller.channel };
}

async function ensureAccepts(ctx: DomainContext, type: CustomerItemType): Promise<void> {
  const { profile } = await loadProfile(ctx.store);
  if (!profile.itemTypes.includes(type)) {
    throw new Problem('not_allowed', `This business does not accept ${type.replace('_', ' ')}s.`);
  }
}

export async function createBooking(ctx: DomainContext, caller: Caller, request: CreateRequest<BookingRequest>) {
  await ensureAccepts(ctx, 'booking');
  const { profile } = await loadProfile(ctx.store);
  const p = request.payload;
  const service = await ctx.store.catalogue.getService(p.serviceId);
  if (!service || !service.active) throw invalidField('payload.serviceId', `No bookable service has id ${p.serviceId}; see list_services.`);
  const startAt = parseInstant(p.startTime);
  const endAt = p.endTime ? parseInstant(p.endTime) : startAt + service.durationMinutes * 60_000;
  // An end before the start, or more than the availability window after it, is no booking at all.
  refuseImpossibleLength(startAt, endAt);
  if (p.partySize > service.maxPartySize) {
    throw invalidField('payload.partySize', `${service.name} takes parties of at most ${service.maxPartySize}.`);
  }
  // Past, too soon, closed, outside hours or full: refused before anything is stored.
  const timeCheck = { service, timeZone: profile.timeZone, startAt, endAt, partySize: p.partySize, endTimeGiven: p.endTime !== undefined };
  await refuseUnbookableTime(ctx, { ...timeCheck, sandbox: request.sandbox ?? false });

  const durationMinutes = Math.round((endAt - startAt) / 60_000);
  const pricing = priceBooking(service, durationMinutes, p.price);
  const payload: BookingPayload = {
    serviceId: service.id,
    // Pricing rule 3: the catalogue's name, whatever name the request gave.
    serviceName: service.name,
    startTime: isoInZone(startAt, profile.timeZone),
    endTime: isoInZone(endAt, profile.timeZone),
    durationMinutes,
    partySize: p.partySize,
    priceModel: service.priceModel,
    price: pricing.price,
    priceCurrency: service.priceCurrency,
    priceStatus: pricing.priceStatus,
  };
  if (pricing.customerStatedPrice !== undefined) payload.customerStatedPrice = pricing.customerStatedPrice;
  if (p.description) payload.description = p.description;
  return createFor(ctx, caller, request, {
    type: 'booking',
    payload,
    needsHuman: pricing.priceStatus === 'awaiting_business',
    serviceId: service.id,
    startAt,
    endAt,
    partySize: p.partySize,
  });
}

export async function createOrder(ctx: DomainContext, caller: Caller, request: CreateRequest<OrderRequest>) {
  await ensureAccepts(ctx, 'order');
  const { profile } = await loadProfile(ctx.store);
  const catalogue = ctx.store.catalogue;
  const { payload, awaitsBusiness } = await priceOrder(request.payload, profile.currency, {
    byId: (id) => catalogue.getProduct(id),
    bySku: (sku) => catalogue.getProductBySku(sku),
  });
  return createFor(ctx, caller, request, { type: 'order', payload, needsHuman: awaitsBusiness });
}

export async function requestQuote(ctx: DomainContext, caller: Caller, request: CreateRequest<Record<string, unknown>>) {
  await ensureAccepts(ctx, 'quote_request');
  const payload = request.payload;
  if (typeof payload.serviceId === 'string' && !(await ctx.store.catalogue.getService(payload.serviceId))) {
    throw invalidField('payload.serviceId', `No service has id ${payload.serviceId}; see list_services.`);
  }
  return createFor(ctx, caller, request, { type: 'quote_request', payload, needsHuman: true });
}

export async function startConversation(ctx: DomainContext, caller: Caller, request: CreateRequest<Record<string, unknown>>) {
  await ensureAccepts(ctx, 'message');
  if (!request.message) throw invalidField('message', 'A new conversation needs a message.', 'missing');
  return createFor(ctx, caller, request, { type: 'message', payload: request.payload, needsHuman: true });
}

async function createFor(
  ctx: DomainContext,
  caller: Caller,
  request: CreateRequest<unknown>,
  spec: { type: ItemType; payload: Record<string, unknown>; needsHuman: boolean; serviceId?: string; startAt?: number; endAt?: number; partySize?: number },
) {
  const { token, hash } = newAccessToken();
  const { item, messages } = await writeNewItem(ctx, moverOf(caller), {
    ...spec,
    contact: request.contact ?? null,
    sandbox: request.sandbox ?? false,
    accessTokenHash: hash,
    message: request.message,
  });
  // A signed agent is recorded on what it created: its signature opens the item later, and the owner sees how it signed.
  if (caller.kind === 'customer' && caller.agent) {
    await ctx.store.identity.seeAgent({ jkt: caller.agent.jkt, platform: caller.agent.platform, publicJwk: caller.agent.publicJwk }, item.createdAt);
    await ctx.store.identity.setItemAgent({ itemId: item.id, jkt: caller.agent.jkt, platform: caller.agent.platform, signedAt: item.createdAt });
  }
  const networks = await recordNewItemIdentity(ctx, item, caller);
  // The answer is built from what was just written: its one message, and no receipt (a create signs none; moves do).
  const status = await statusViewOf(ctx, item, caller.actor, messages, []);
  // A new item's address is not proven yet: a one-time code proves an item that exists (verify_customer).
  return { ...status, accessToken: token, identity: await identityAnswer(ctx, item, caller, networks, false) };
}

/**
 * The identity of a create or status answer (inbox spec §2): whether the business has seen the address
 * (weak) or it was proven (strong), passes to keep, whether a code can prove it, each network's status.
 */
export async function identityOf(ctx: DomainContext, item: ItemRecord, caller: Caller, networks: Record<string, string>) {
  return identityAnswer(ctx, item, caller, networks, (await ctx.store.identity.itemProof(item.id)) !== null);
}

async function identityAnswer(ctx: DomainContext, item: ItemRecord, caller: Caller, networks: Record<string, string>, proven: boolean) {
  const email = item.contact?.email;
  // Whether any other item has the address: one row, not the history.
  const weak = email ? await ctx.store.items.hasOtherWithEmail(email, item.id) : false;
  return {
    recognised: proven && weak ? ('strong' as const) : weak ? ('weak' as const) : ('none' as const),
    passes: passesToKeep(caller),
    // A weak match can be proven with a one-time code to the address (verify_customer).
    ...(weak && !proven ? { verify: { available: true } } : {}),
    networks,
    guide: '/docs/agents',
  };
}

export async function statusView(ctx: DomainContext, item: ItemRecord, actor: Actor) {
  const [messages, receipts] = await Promise.all([ctx.store.items.listMessages(item.id, false), ctx.store.receipts.listForItem(item.id)]);
  return statusViewOf(ctx, item, actor, messages, receipts);
}

/** The status view of an item whose customer-visible messages and receipts the caller has. */
async function statusViewOf(ctx: DomainContext, item: ItemRecord, actor: Actor, messages: readonly MessageRecord[], receipts: readonly ReceiptRecord[]) {
  const [moves, { profile }] = await Promise.all([openMoves(ctx, item, actor), loadProfile(ctx.store)]);
  return {
    ...itemView(item),
    next: moves.map((row) => ({
      event: row.event === 'cancel_late' ? 'cancel' : row.event,
      operation: CUSTOMER_OPERATION[row.event] ?? 'send_message',
      label: row.label,
    })),
    conversation: messages.map((m) => customerConversationEntry(m, profile.name)),
    receipts: receipts.map(receiptView),
  };
}

/** RFC 6750's challenge: the item token is a bearer credential (also taken as x-access-token and ?access_token=). */
const ITEM_CHALLENGE = 'Bearer realm="item access token"';

/**
 * Loads an item for its token holder, or for the agent that signed its creation when this request's
 * signature is bound to it (docs/identity.md): unknown ids are 404, a missing or wrong token 401.
 */
export async function loadOwnedItem(ctx: DomainContext, itemId: string, accessToken: string | undefined, caller?: Caller): Promise<ItemRecord> {
  const item = await ctx.store.items.get(itemId);
  if (!item) throw new Problem('not_found', `No item has id ${itemId}.`);
  const agent = caller?.kind === 'customer' ? caller.agent : undefined;
  if (agent?.bound) {
    const signer = await ctx.store.identity.itemAgent(item.id);
    if (signer !== null && signer.jkt === agent.jkt) return item;
  }
  // The item's own page, whose session the page checked (docs/web.md "The customer's page").
  if (caller?.kind === 'customer' && caller.pageItem === item.id) return item;
  // A person's pass opens what the business knows them by (inbox spec §4).
  if (caller && (await presentedPersonOwns(ctx, item, caller))) return item;
  if (!accessToken) {
    throw new Problem('unauthorized', 'This item needs its access token: header Authorization: Bearer <token> or x-access-token, or the access_token query parameter.', {
      headers: { 'www-authenticate': ITEM_CHALLENGE },
    });
  }
  if (!accessTokenMatches(accessToken, item.accessTokenHash)) {
    throw new Problem('unauthorized', 'That access token does not open this item.', { headers: { 'www-authenticate': `${ITEM_CHALLENGE}, error="invalid_token"` } });
  }
  return item;
}

export async function getItemStatus(ctx: DomainContext, caller: Caller, itemId: string, token: string | undefined) {
  const item = await loadOwnedItem(ctx, itemId, token, caller);
  const view = await statusView(ctx, item, caller.actor);
  return { ...view, identity: await identityOf(ctx, item, caller, await itemNetworkStatuses(ctx, item, caller)) };
}

export async function cancelItem(
  ctx: DomainContext,
  caller: Caller,
  itemId: string,
  token: string | undefined,
  options: { reason?: string | undefined; expectedVersion?: number | undefined },
) {
  const item = await loadOwnedItem(ctx, itemId, token, caller);
  if (CANCEL_EVENTS[item.type].length === 0) throw new Problem('not_allowed', `A ${item.type} cannot be cancelled by the customer.`);
  const moved = await moveItem(ctx, moverOf(caller), item, { events: CANCEL_EVENTS[item.type], reason: options.reason, expectedVersion: options.expectedVersion });
  return statusView(ctx, moved, caller.actor);
}

export async function respondToOffer(
  ctx: DomainContext,
  caller: Caller,
  itemId: string,
  token: string | undefined,
  answer: 'accept' | 'decline',
  options: { expectedVersion?: number | undefined; reason?: string | undefined },
) {
  const item = await loadOwnedItem(ctx, itemId, token, caller);
  const moved = await moveItem(ctx, moverOf(caller), item, { events: [answer], expectedVersion: options.expectedVersion, reason: options.reason });
  return statusView(ctx, moved, caller.actor);
}

/**
 * A customer's message on an item they own. It never changes the version by itself; an item waiting
 * for the customer's details moves on (provide_info), and a closed conversation reopens.
 */
export async function customerMessage(ctx: DomainContext, caller: Caller, itemId: string, token: string | undefined, text: string) {
  const item = await loadOwnedItem(ctx, itemId, token, caller);
  return addCustomerMessage(ctx, caller, item, text);
}

/** A customer's message on an item already known to be theirs (a door that checked its own credential: mail's reply address). */
export async function addCustomerMessage(ctx: DomainContext, caller: Caller, owned: ItemRecord, text: string) {
  let item = owned;
  const nowMs = ctx.clock.now();
  const message = {
    id: newId(nowMs),
    itemId: item.id,
    authorKind: caller.actor.kind,
    authorId: null,
    authorName: item.contact?.name ?? null,
    body: text,
    internal: false,
    channel: caller.channel,
    createdAt: nowMs,
  };
  await ctx.store.items.addMessage(message);
  await recordSideEvent(ctx, moverOf(caller), item, 'message', { messageId: message.id });
  item = await addToSearchText(ctx, item, text);
  const follow = item.state === 'needs_info' ? 'provide_info' : item.type === 'message' && item.state !== 'open' && item.state !== 'spam' ? 'reopen' : null;
  // A conversation the customer writes on waits for the business again (raised before the move it makes).
  if (item.type === 'message' && item.state !== 'spam') item = await setNeedsHuman(ctx, moverOf(caller), item, true);
  if (follow) item = await moveItem(ctx, moverOf(caller), item, { events: [follow] });
  return statusView(ctx, item, caller.actor);
}

export type { ItemView };
