/**
 * The facts a rule's conditions read, and their evaluation over an item as it stands now. Facts
 * only read; a fact about another item type does not hold. The `customer_*` facts are the
 * customer's standing (inbox spec §7 positive_only): rule-validation.ts refuses rules that read
 * them and refuse, cancel or expire.
 */
import { loadProfile, type DomainContext } from '../context.js';
import { isWithinOpeningHours } from '../availability/free-starts.js';
import { isBusinessPriced } from '../items/guards.js';
import { slotProblem } from '../availability/booking-time.js';
import type { BookingPayload, OrderPayload, QuotePayload } from '../items/payloads.js';
import { ITEM_TYPES, type ItemRecord, type ItemType } from '../types.js';
import type { RuleCondition, RuleFact } from './rule-schema.js';

/** The item types each fact can be true of. */
export const FACT_TYPES: Readonly<Record<RuleFact, readonly ItemType[]>> = {
  price_model: ['booking'],
  price_at_most: ['booking', 'order', 'quote_request'],
  fully_priced: ['booking', 'order'],
  within_opening_hours: ['booking'],
  slot_free: ['booking'],
  party_size_at_most: ['booking'],
  service: ['booking', 'quote_request'],
  sandbox: ITEM_TYPES,
  customer_completed_at_least: ITEM_TYPES,
  customer_no_shows_at_most: ITEM_TYPES,
  customer_no_shows_at_least: ITEM_TYPES,
};

/** Facts about the customer's standing rather than the request. */
export const STANDING_FACTS: ReadonlySet<RuleFact> = new Set(['customer_completed_at_least', 'customer_no_shows_at_most', 'customer_no_shows_at_least']);

export interface ConditionOutcome {
  fact: RuleFact;
  holds: boolean;
  /** What was read, in a few words (shown by test_rule). */
  detail: string;
}

interface Standing {
  completed: number;
  noShows: number;
}

/** Reads each condition in turn; standing and opening hours are loaded once, when first needed. */
export async function evaluateConditions(ctx: DomainContext, item: ItemRecord, conditions: readonly RuleCondition[]): Promise<ConditionOutcome[]> {
  let standing: Standing | null = null;
  const standingOf = async (): Promise<Standing> => (standing ??= await loadStanding(ctx, item));
  const outcomes: ConditionOutcome[] = [];
  for (const condition of conditions) {
    if (!FACT_TYPES[condition.fact].includes(item.type)) {
      outcomes.push({ fact: condition.fact, holds: false, detail: `${condition.fact} says nothing about a ${item.type}` });
      continue;
    }
    outcomes.push({ fact: condition.fact, ...(await evaluate(ctx, item, condition, standingOf)) });
  }
  return outcomes;
}

async function evaluate(
  ctx: DomainContext,
  item: ItemRecord,
  condition: RuleCondition,
  standingOf: () => Promise<Standing>,
): Promise<{ holds: boolean; detail: string }> {
  switch (condition.fact) {
    case 'price_model': {
      const model = (item.payload as BookingPayload).priceModel;
      return { holds: condition.in.includes(model), detail: `price model ${model}` };
    }
    case 'price_at_most': {
      const price = businessPriceOf(item);
      if (price === null) return { holds: false, detail: 'no price set by the catalogue or the business' };
      return { holds: price <= condition.amountMinor, detail: `price ${price}` };
    }
    case 'fully_priced': {
      const priced = isBusinessPriced(item);
      return { holds: priced === condition.is, detail: priced ? 'every price is set' : 'a price awaits the business' };
    }
    case 'within_opening_hours': {
      if (item.startAt === null || item.endAt === null) return { holds: false, detail: 'no booked time' };
      const [{ profile }, hours, closures] = await Promise.all([loadProfile(ctx.store), ctx.store.catalogue.getOpeningHours(), ctx.store.catalogue.getClosures()]);
      const within = isWithinOpeningHours(item.startAt, item.endAt, profile.timeZone, hours, closures);
      return { holds: within === condition.is, detail: within ? 'inside opening hours' : 'outside opening hours' };
    }
    case 'slot_free': {
      if (!item.serviceId || item.startAt === null || item.endAt === null) return { holds: false, detail: 'no booked time' };
      const taken = await slotProblem(ctx, item.serviceId, item.startAt, item.endAt, item.partySize ?? 1, item.id);
      const free = taken === null;
      return { holds: free === condition.is, detail: free ? 'the slot has room' : 'the slot is full' };
    }
    case 'party_size_at_most': {
      const size = item.partySize ?? 1;
      return { holds: size <= condition.size, detail: `party of ${size}` };
    }
    case 'service': {
      const serviceId = item.serviceId ?? (item.payload as QuotePayload).serviceId ?? null;
      return { holds: serviceId !== null && condition.in.includes(serviceId), detail: serviceId ? `service ${serviceId}` : 'no service named' };
    }
    case 'sandbox':
      return { holds: item.sandbox === condition.is, detail: item.sandbox ? 'a sandbox item' : 'a real item' };
    case 'customer_completed_at_least': {
      const { completed } = await standingOf();
      return { holds: completed >= condition.count, detail: `${completed} completed before` };
    }
    case 'customer_no_shows_at_most': {
      const { noShows } = await standingOf();
      return { holds: noShows <= condition.count, detail: `${noShows} no-shows before` };
    }
    case 'customer_no_shows_at_least': {
      const { noShows } = await standingOf();
      return { holds: noShows >= condition.count, detail: `${noShows} no-shows before` };
    }
  }
}

/**
 * The price the catalogue or the business set: a booking's price, an order's total, a quote's
 * total. Never the customer's stated price (inbox spec §2: never read by rules).
 */
function businessPriceOf(item: ItemRecord): number | null {
  switch (item.type) {
    case 'booking': {
      const payload = item.payload as BookingPayload;
      return payload.priceStatus === 'awaiting_business' ? null : payload.price;
    }
    case 'order':
      return (item.payload as OrderPayload).totalPrice;
    case 'quote_request':
      return (item.payload as QuotePayload).quote?.totalPrice ?? null;
    default:
      return null;
  }
}

/**
 * Earlier items with the same contact email: how many completed, how many bookings were no-shows.
 * Sandbox items count only for sandbox items, so trying rules out never builds or spoils a standing.
 */
async function loadStanding(ctx: DomainContext, item: ItemRecord): Promise<Standing> {
  const email = item.contact?.email;
  if (!email) return { completed: 0, noShows: 0 };
  const history = (await ctx.store.items.historyByEmail(email, item.id)).filter((h) => h.sandbox === item.sandbox);
  return {
    completed: history.filter((h) => h.state === 'completed').length,
    noShows: history.filter((h) => h.type === 'booking' && h.state === 'no_show').length,
  };
}
