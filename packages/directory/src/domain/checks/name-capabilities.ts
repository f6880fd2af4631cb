/**
 * What a door's tool, skill or operation offers, from its name: the name is split into words (on
 * anything not a letter or digit, and between camelCase parts), and a capability holds when each of
 * its word lists gives a word (or a word that stands alone is there) and none of its excluding
 * words is. A tool that only reads (an MCP readOnlyHint, an HTTP GET) gives only the capabilities
 * a read can give. Signing up is never read from signing in.
 */
import type { CapabilityId } from './capabilities.js';

interface NameRule {
  capability: CapabilityId;
  /** Each list must give a word. */
  all: readonly (readonly string[])[];
  /** Any one of these alone is enough. */
  alone?: readonly string[];
  /** None of these may be there. */
  none?: readonly string[];
}

const BOOKING_THINGS = ['booking', 'bookings', 'appointment', 'appointments', 'reservation', 'reservations', 'order', 'orders', 'item', 'items', 'request', 'visit', 'slot'];

const RULES: readonly NameRule[] = [
  { capability: 'cancel', all: [['cancel', 'cancellation', 'cancels']] },
  { capability: 'change', all: [['modify', 'amend', 'change', 'update', 'edit'], BOOKING_THINGS], alone: ['reschedule', 'rebook'], none: ['cancel'] },
  { capability: 'return', all: [['return', 'returns', 'refund', 'refunds', 'exchange', 'rma']], none: ['policy', 'policies'] },
  { capability: 'track', all: [['status', 'track', 'tracking', 'whereis'], ['order', 'orders', 'shipment', 'delivery', 'parcel', 'item', 'request', 'booking']], alone: ['track', 'tracking'] },
  { capability: 'receipt', all: [['receipt', 'receipts', 'invoice', 'invoices']] },
  { capability: 'pay', all: [['pay', 'payment', 'payments', 'charge', 'deposit']], alone: ['pay'], none: ['refund', 'refunds', 'methods', 'policy'] },
  { capability: 'pay', all: [['complete', 'confirm'], ['checkout']] },
  { capability: 'order', all: [['order', 'orders', 'checkout', 'purchase', 'buy', 'cart', 'basket']], none: ['cancel', 'refund', 'return', 'status', 'track', 'tracking', 'update', 'modify'] },
  { capability: 'book', all: [['book', 'booking', 'bookings', 'reserve', 'reservation', 'reservations', 'appointment', 'appointments']], none: ['cancel', 'reschedule', 'rebook', 'modify', 'change', 'update', 'status', 'policy'] },
  { capability: 'signup', all: [['signup', 'enroll', 'enrol', 'enrollment', 'enrolment', 'register', 'registration', 'join']], none: ['login', 'signin', 'sign', 'in'] },
  { capability: 'signup', all: [['sign'], ['up']], none: ['in'] },
  { capability: 'subscription', all: [['subscription', 'subscriptions', 'membership', 'memberships', 'subscribe']] },
  { capability: 'message', all: [['message', 'messages', 'contact', 'inquiry', 'enquiry', 'question', 'chat']], none: ['list', 'read'] },
  { capability: 'negotiate', all: [['quote', 'quotes', 'quotation', 'estimate', 'negotiate', 'proposal']] },
  { capability: 'availability', all: [['availability', 'available', 'slots', 'openings', 'calendar', 'vacancy', 'vacancies', 'stock']] },
  { capability: 'catalogue', all: [['catalog', 'catalogue', 'menu', 'product', 'products', 'service', 'services', 'inventory', 'price', 'prices', 'pricing', 'offers', 'feed']] },
  { capability: 'find', all: [['search', 'find', 'locate', 'location', 'locations', 'store', 'stores', 'business', 'profile', 'about', 'hours']] },
  { capability: 'policies', all: [['policy', 'policies', 'terms', 'conditions']] },
  { capability: 'feedback', all: [['review', 'reviews', 'feedback', 'rating', 'ratings']] },
  { capability: 'vouchers', all: [['voucher', 'vouchers', 'giftcard', 'coupon', 'coupons']], alone: ['gift'] },
  { capability: 'waitlist', all: [['waitlist', 'waitinglist', 'queue']] },
  { capability: 'support', all: [['support', 'ticket', 'tickets', 'helpdesk']] },
];

/** Capabilities a read (nothing changes) can give. */
export const READ_ONLY_CAPABILITIES: ReadonlySet<CapabilityId> = new Set(['find', 'catalogue', 'availability', 'track', 'policies', 'receipt']);

/** Words of a name: split on non-alphanumerics and camelCase, lower case. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0);
}

export interface NameContext {
  /** The tool or operation only reads (MCP readOnlyHint; HTTP GET or HEAD). */
  readOnly?: boolean;
  /** HTTP method of an operation: DELETE adds "cancel", PUT and PATCH add "change". */
  method?: string;
}

export function capabilitiesOfName(name: string, context: NameContext = {}): CapabilityId[] {
  const words = new Set(nameWords(name));
  const method = context.method?.toUpperCase();
  if (method === 'DELETE') words.add('cancel');
  if (method === 'PUT' || method === 'PATCH') words.add('update');
  const found = new Set<CapabilityId>();
  for (const rule of RULES) {
    if (rule.none?.some((w) => words.has(w))) continue;
    const alone = rule.alone?.some((w) => words.has(w)) ?? false;
    const used = new Set<string>();
    const all = rule.all.every((list) => {
      const word = list.find((w) => words.has(w) && !used.has(w));
      if (word) used.add(word);
      return word !== undefined;
    });
    if (alone || all) found.add(rule.capability);
  }
  const readOnly = context.readOnly ?? (method === 'GET' || method === 'HEAD');
  return [...found].filter((c) => !readOnly || READ_ONLY_CAPABILITIES.has(c));
}
