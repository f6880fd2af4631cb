/**
 * Guard evaluation: each GuardId is a read-only check over a snapshot of the item and its world.
 * A failing guard answers guard_failed (409), except a full slot, which answers slot_taken (409).
 */
import { Problem } from '@svc/shared';
import type { DomainContext } from '../context.js';
import type { GuardId, TransitionRow } from '../machines/machine.js';
import type { Settings } from '../settings/settings-document.js';
import { parseInstant } from '../time.js';
import { slotProblem, slotTakenWithNextFree } from '../availability/booking-time.js';
import type { ActorKind, ItemRecord } from '../types.js';
import type { BookingPayload, OrderPayload, QuotePayload } from './payloads.js';

export interface GuardSnapshot {
  ctx: DomainContext;
  item: ItemRecord;
  row: TransitionRow;
  input: Record<string, unknown>;
  settings: Settings;
  actor: ActorKind;
  nowMs: number;
}

type Guard = (snap: GuardSnapshot) => Promise<Problem | null> | Problem | null;

const failed = (detail: string): Problem => new Problem('guard_failed', detail);

const GUARDS: Record<GuardId, Guard> = {
  slot_available: async ({ ctx, item, row }) => {
    const { startAt, endAt } = slotOf(item, row);
    if (!item.serviceId || startAt === null || endAt === null) return failed('The booking has no slot.');
    const taken = await slotProblem(ctx, item.serviceId, startAt, endAt, item.partySize ?? 1, item.id);
    if (taken?.code !== 'slot_taken') return taken;
    // What is free instead, so the owner (or the customer's agent) can move at once (docs/items.md).
    const service = await ctx.store.catalogue.getService(item.serviceId);
    return service ? slotTakenWithNextFree(ctx, taken, service, startAt, item.partySize ?? 1) : taken;
  },
  not_too_soon: async ({ ctx, item, row, nowMs }) => {
    const { startAt } = slotOf(item, row);
    const service = item.serviceId ? await ctx.store.catalogue.getService(item.serviceId) : null;
    const noticeMs = (service?.minNoticeMinutes ?? 0) * 60_000;
    return startAt !== null && startAt >= nowMs + noticeMs ? null : failed('The time is too soon (or already past) to book.');
  },
  has_started: ({ item, nowMs }) =>
    item.startAt !== null && item.startAt <= nowMs ? null : failed('The booking has not started yet.'),
  within_cancellation_window: ({ item, settings, nowMs }) => {
    const windowMs = settings.booking.cancellationWindowMinutes * 60_000;
    return item.startAt !== null && item.startAt - nowMs >= windowMs
      ? null
      : failed(`Free cancellation ends ${settings.booking.cancellationWindowMinutes} minutes before the start.`);
  },
  late_cancellation_recorded: ({ item, settings, nowMs }) => {
    const windowMs = settings.booking.cancellationWindowMinutes * 60_000;
    if (item.startAt !== null && item.startAt - nowMs >= windowMs) return failed('The booking is still inside the free cancellation window.');
    return settings.booking.lateCancellation === 'record'
      ? null
      : failed('The free cancellation window has passed and this business does not accept late cancellations.');
  },
  proposal_present: ({ item }) => ((item.payload as BookingPayload).proposal ? null : failed('There is no proposal to accept.')),
  quote_valid: ({ item, nowMs }) => {
    const quote = (item.payload as QuotePayload).quote;
    if (!quote) return failed('There is no quote to accept.');
    return parseInstant(quote.validThrough) > nowMs ? null : failed('The quote is no longer valid.');
  },
  quote_lapsed: ({ item, nowMs }) => {
    const quote = (item.payload as QuotePayload).quote;
    return quote && parseInstant(quote.validThrough) <= nowMs ? null : failed('The quote is still valid.');
  },
  order_priced: ({ item, input }) => {
    const payload = item.payload as OrderPayload;
    const given = new Set(((input.linePrices ?? []) as { line: number }[]).map((l) => l.line));
    const unpriced = payload.lines.map((line, index) => ({ line, index })).filter(({ line, index }) => line.price === null && !given.has(index));
    return unpriced.length === 0
      ? null
      : failed(`Lines ${unpriced.map((u) => u.index).join(', ')} have no price; give them in input.linePrices.`);
  },
  payment_overdue: ({ item, settings, nowMs }) => {
    const payload = item.payload as OrderPayload;
    if (payload.lapsedAt) return failed('The payment promise already lapsed.');
    if (!payload.paymentRequestedAt) return failed('Payment was never requested.');
    const dueMs = payload.paymentDueAt
      ? parseInstant(payload.paymentDueAt)
      : parseInstant(payload.paymentRequestedAt) + settings.orders.payDays * 86_400_000;
    return dueMs <= nowMs ? null : failed('Payment is not overdue yet.');
  },
  not_charged_back: ({ item }) => ((item.payload as OrderPayload).chargedBackAt ? failed('A charge-back is already recorded.') : null),
  // Spec §3 rule 2: unpriced work waits for the business. Only rules are held back; the owner, the
  // owner's AI and integrations price work as they confirm or accept it.
  business_priced: ({ item, input, actor }) => {
    if (actor !== 'rule') return null;
    if (input.price !== undefined || (Array.isArray(input.linePrices) && input.linePrices.length > 0)) {
      return failed('A rule never sets a price; the business prices the work itself.');
    }
    return isBusinessPriced(item) ? null : failed('The work awaits a price from the business, so no rule confirms or accepts it.');
  },
};

/**
 * Whether the catalogue or the business priced everything on a booking or order: a fixed-price
 * service booked for no longer than it lasts, or lines naming products, or prices the business set.
 */
export function isBusinessPriced(item: ItemRecord): boolean {
  if (item.type === 'booking') {
    const payload = item.payload as BookingPayload;
    return payload.priceStatus !== 'awaiting_business' && payload.price !== null;
  }
  if (item.type === 'order') {
    const payload = item.payload as OrderPayload;
    return payload.totalPrice !== null && payload.lines.every((line) => line.priceStatus !== 'awaiting_business' && line.price !== null);
  }
  return false;
}

/**
 * The slot a booking move would hold: the proposal's for a row that applies it (accept), else the
 * booking's own. A proposal left on the item (e.g. after request_info) never stands in for the
 * booked time when the owner confirms.
 */
function slotOf(item: ItemRecord, row: TransitionRow): { startAt: number | null; endAt: number | null } {
  const proposal = (item.payload as BookingPayload).proposal;
  if (proposal && row.effects.includes('apply_proposal')) {
    return { startAt: parseInstant(proposal.startTime), endAt: parseInstant(proposal.endTime) };
  }
  return { startAt: item.startAt, endAt: item.endAt };
}

/** The first failing guard's refusal, or null when every guard passes. */
export async function checkGuards(snap: GuardSnapshot): Promise<Problem | null> {
  for (const id of snap.row.guards) {
    const problem = await GUARDS[id](snap);
    if (problem) return problem;
  }
  return null;
}
