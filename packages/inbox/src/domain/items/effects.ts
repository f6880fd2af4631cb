/**
 * Effects of a transition: changes to the item's draft, plus follow-ups (jobs to schedule, items
 * to create) that the transition writes in the same transaction. Effects never write themselves.
 */
import { Problem, invalidField } from '@svc/shared';
import type { DomainContext } from '../context.js';
import type { EffectId } from '../machines/machine.js';
import type { Settings } from '../settings/settings-document.js';
import { isoInZone, isoUtc, parseInstant } from '../time.js';
import type { ItemRecord, ItemType } from '../types.js';
import { orderTotal } from '../catalogue/pricing.js';
import type { BookingPayload, OrderPayload, QuotePayload, RefundPayload } from './payloads.js';

export interface ScheduledJob {
  kind: string;
  payload: Record<string, unknown>;
  runAt: number;
  dedupeKey: string;
}

export interface NewItemRequest {
  type: ItemType;
  payload: Record<string, unknown>;
  serviceId?: string;
  startAt?: number;
  endAt?: number;
  partySize?: number;
  /** Called with the new item's id so the source item can point at it. */
  link: (newItemId: string) => void;
}

export interface EffectScope {
  ctx: DomainContext;
  draft: ItemRecord;
  input: Record<string, unknown>;
  settings: Settings;
  timeZone: string;
  currency: string;
  nowMs: number;
  jobs: ScheduledJob[];
  newItems: NewItemRequest[];
}

type Effect = (scope: EffectScope) => Promise<void> | void;

/** The job that fires a system event on an item later; re-scheduling the same event moves it. */
export function systemEventJob(itemId: string, itemType: ItemType, event: string, runAt: number): ScheduledJob {
  return { kind: 'item.system_event', payload: { itemId, event }, runAt, dedupeKey: `${itemType}.${event}:${itemId}` };
}

const EFFECTS: Record<EffectId, Effect> = {
  store_proposal: async ({ ctx, draft, input, timeZone, nowMs }) => {
    const payload = draft.payload as BookingPayload;
    const startAt = parseInstant(String(input.startTime));
    if (startAt <= nowMs) throw invalidField('input.startTime', 'A proposed time must be in the future.');
    const service = draft.serviceId ? await ctx.store.catalogue.getService(draft.serviceId) : null;
    const endAt = input.endTime ? parseInstant(String(input.endTime)) : startAt + (service?.durationMinutes ?? payload.durationMinutes) * 60_000;
    if (endAt <= startAt) throw invalidField('input.endTime', 'endTime must be after startTime.');
    payload.proposal = { startTime: isoInZone(startAt, timeZone), endTime: isoInZone(endAt, timeZone) };
    if (typeof input.price === 'number') payload.proposal.price = input.price;
    if (typeof input.note === 'string') payload.proposal.note = input.note;
  },
  apply_proposal: ({ draft }) => {
    const payload = draft.payload as BookingPayload;
    const proposal = payload.proposal;
    if (!proposal) return;
    draft.startAt = parseInstant(proposal.startTime);
    draft.endAt = parseInstant(proposal.endTime);
    payload.startTime = proposal.startTime;
    payload.endTime = proposal.endTime;
    payload.durationMinutes = Math.round((draft.endAt - draft.startAt) / 60_000);
    if (proposal.price !== undefined) {
      payload.price = proposal.price;
      payload.priceStatus = 'business';
    }
    delete payload.proposal;
  },
  price_booking: ({ draft, input }) => {
    if (typeof input.price !== 'number') return;
    const payload = draft.payload as BookingPayload;
    // Pricing rule 1 (spec §4): a fixed-price booking costs what the catalogue says.
    if (payload.priceStatus === 'catalogue') {
      if (input.price === payload.price) return;
      throw invalidField('input.price', `This booking costs what the catalogue says (${payload.price}); change the service to change its price.`);
    }
    payload.price = input.price;
    payload.priceStatus = 'business';
  },
  store_quote: ({ draft, input, settings, currency, nowMs }) => {
    const payload = draft.payload as QuotePayload;
    const validThroughMs = input.validThrough ? parseInstant(String(input.validThrough)) : nowMs + settings.quotes.defaultValidityHours * 3_600_000;
    if (validThroughMs <= nowMs) throw invalidField('input.validThrough', 'validThrough must be in the future.');
    if (input.creates === 'booking') {
      if (!payload.serviceId) throw invalidField('input.creates', 'The request names no service, so its quote can create an order, not a booking.');
      const startAt = parseInstant(String(input.startTime));
      if (startAt <= nowMs) throw invalidField('input.startTime', 'startTime must be in the future.');
      if (typeof input.endTime === 'string' && parseInstant(input.endTime) <= startAt) throw invalidField('input.endTime', 'endTime must be after startTime.');
    }
    payload.quote = {
      totalPrice: Number(input.totalPrice),
      priceCurrency: currency,
      validThrough: isoUtc(validThroughMs),
      creates: input.creates === 'booking' ? 'booking' : 'order',
    };
    if (typeof input.description === 'string') payload.quote.description = input.description;
    if (typeof input.startTime === 'string') payload.quote.startTime = input.startTime;
    if (typeof input.endTime === 'string') payload.quote.endTime = input.endTime;
  },
  price_lines: ({ draft, input }) => {
    const payload = draft.payload as OrderPayload;
    for (const { line, price } of (input.linePrices ?? []) as { line: number; price: number }[]) {
      const target = payload.lines[line];
      if (!target) throw invalidField(`input.linePrices`, `The order has no line ${line}.`);
      // Pricing rule 1 (spec §4): a line naming a product costs what the catalogue says.
      if (target.priceStatus === 'catalogue' && price !== target.price) {
        throw invalidField('input.linePrices', `Line ${line} costs what the catalogue says (${target.price}); only unpriced lines take a price.`);
      }
      if (target.priceStatus === 'catalogue') continue;
      target.price = price;
      target.priceStatus = 'business';
    }
    try {
      payload.totalPrice = orderTotal(payload.lines);
    } catch (error) {
      if (error instanceof Problem && error.code === 'invalid_input') throw invalidField('input.linePrices', error.message);
      throw error;
    }
  },
  record_payment_request: ({ draft, input, settings, nowMs }) => {
    const payload = draft.payload as OrderPayload;
    payload.paymentRequestedAt = isoUtc(nowMs);
    // The pay-by date is fixed when payment is asked for; a later change of orders.payDays does not move it.
    payload.paymentDueAt = isoUtc(nowMs + settings.orders.payDays * 86_400_000);
    if (typeof input.paymentUrl === 'string') payload.paymentUrl = input.paymentUrl;
    delete payload.lapsedAt;
  },
  mark_lapsed: ({ draft, nowMs }) => {
    (draft.payload as OrderPayload).lapsedAt = isoUtc(nowMs);
  },
  mark_charged_back: ({ draft, nowMs }) => {
    (draft.payload as OrderPayload).chargedBackAt = isoUtc(nowMs);
  },
  link_item: async ({ ctx, draft, newItems, timeZone }) => {
    const payload = draft.payload as QuotePayload;
    const quote = payload.quote;
    if (!quote) throw new Problem('guard_failed', 'There is no quote to accept.');
    const link = (id: string): void => {
      payload.acceptedItemId = id;
      draft.linkedItemId = id;
    };
    const name = quote.description ?? payload.description.slice(0, 300);
    if (quote.creates === 'booking' && quote.startTime) {
      const service = payload.serviceId ? await ctx.store.catalogue.getService(payload.serviceId) : null;
      if (!service) throw new Problem('guard_failed', 'The quoted service no longer exists; ask the business for a new quote.');
      const startAt = parseInstant(quote.startTime);
      const endAt = quote.endTime ? parseInstant(quote.endTime) : startAt + service.durationMinutes * 60_000;
      newItems.push({
        type: 'booking',
        serviceId: service.id,
        startAt,
        endAt,
        partySize: 1,
        payload: {
          serviceId: service.id,
          serviceName: name,
          startTime: isoInZone(startAt, timeZone),
          endTime: isoInZone(endAt, timeZone),
          durationMinutes: Math.round((endAt - startAt) / 60_000),
          partySize: 1,
          priceModel: 'quote',
          price: quote.totalPrice,
          priceCurrency: quote.priceCurrency,
          priceStatus: 'business',
          description: payload.description,
        } satisfies BookingPayload,
        link,
      });
    } else {
      newItems.push({
        type: 'order',
        payload: {
          lines: [{ productId: null, sku: null, name, quantity: 1, price: quote.totalPrice, priceStatus: 'business' }],
          totalPrice: quote.totalPrice,
          priceCurrency: quote.priceCurrency,
          description: payload.description,
        } satisfies OrderPayload,
        link,
      });
    }
  },
  record_refund: ({ draft, input }) => {
    const payload = draft.payload as RefundPayload;
    const amount = typeof input.amount === 'number' ? input.amount : payload.amount;
    if (amount > payload.amount) throw invalidField('input.amount', `At most the amount asked (${payload.amount}) can be refunded.`);
    payload.refundedAmount = amount;
  },
  open_refund: ({ draft, newItems }) => {
    const payload = draft.payload as OrderPayload;
    newItems.push({
      type: 'refund',
      payload: {
        orderId: draft.id,
        amount: payload.totalPrice ?? 0,
        priceCurrency: payload.priceCurrency,
        reason: 'Order cancelled after payment.',
      } satisfies RefundPayload,
      link: (id) => {
        payload.refundItemId = id;
      },
    });
  },
  schedule_auto_complete: ({ draft, settings, jobs }) => {
    if (draft.endAt === null) return;
    jobs.push(systemEventJob(draft.id, 'booking', 'complete', draft.endAt + settings.booking.autoCompleteHours * 3_600_000));
  },
  schedule_lapse: ({ draft, jobs }) => {
    const dueAt = (draft.payload as OrderPayload).paymentDueAt;
    if (dueAt) jobs.push(systemEventJob(draft.id, 'order', 'lapse', parseInstant(dueAt)));
  },
  schedule_quote_expiry: ({ draft, jobs }) => {
    const quote = (draft.payload as QuotePayload).quote;
    if (quote) jobs.push(systemEventJob(draft.id, 'quote_request', 'expire', parseInstant(quote.validThrough)));
  },
};

export async function applyEffects(effects: readonly EffectId[], scope: EffectScope): Promise<void> {
  for (const id of effects) await EFFECTS[id](scope);
}
