/** One line about an item, for the list and for live announcements: who, what and when. */
import type { AppCall, AppLanguage } from '../app-kit.js';
import type { Messages } from '../messages-en.js';
import { formatInstant, formatMoney } from './format.js';

/** The typed fields of every item type (docs/items.md), as the pages read them. */
export interface ItemPayload {
  [field: string]: unknown;
  serviceName?: string;
  startTime?: string;
  endTime?: string;
  partySize?: number;
  price?: number | null;
  priceCurrency?: string;
  customerStatedPrice?: number;
  proposal?: { startTime: string; endTime: string; note?: string };
  lines?: { name: string; quantity: number; price: number | null; sku: string | null; customerStatedPrice?: number }[];
  totalPrice?: number | null;
  paymentUrl?: string;
  paymentDueAt?: string;
  description?: string;
  preferredTime?: string;
  budget?: number;
  quote?: { totalPrice: number; priceCurrency: string; validThrough: string };
  amount?: number;
  reason?: string;
  orderId?: string;
  subject?: string;
}

export interface ListedItem {
  id: string;
  type: string;
  state: string;
  version: number;
  sandbox: boolean;
  needsHuman: boolean;
  priority: number;
  payload: ItemPayload;
  contact: { name?: string; email?: string; phone?: string } | null;
  createdAt: string;
  updatedAt: string;
}

export function whoOf(item: ListedItem): string {
  return item.contact?.name ?? item.contact?.email ?? item.contact?.phone ?? '—';
}

export function typeLabel(t: Messages, type: string): string {
  return t.types[type] ?? type.replace(/_/g, ' ');
}

export function stateLabel(t: Messages, state: string): string {
  return t.states[state] ?? state.replace(/_/g, ' ');
}

/** An order's moves and states in the words that fit how the business hands orders over. */
export type HandoverWords = Messages['handover']['both'];

/** The words of settings orders.handover (Setup › Settings), read once per page. */
export async function handoverWordsOf(app: AppCall): Promise<HandoverWords> {
  const { settings } = await app.call<{ settings: { orders: { handover?: 'collection' | 'delivery' | 'both' } } }>('get_settings');
  return app.t.handover[settings.orders.handover ?? 'both'];
}

/** The words of an item's state; an order's in the handover's words. */
export function itemStateLabel(t: Messages, item: { type: string; state: string }, handover: HandoverWords): string {
  return (item.type === 'order' ? handover.states[item.state] : undefined) ?? stateLabel(t, item.state);
}

export function whatOf(item: ListedItem, t: Messages, zone: string, lang: AppLanguage): string {
  const p = item.payload;
  switch (item.type) {
    case 'booking':
      return [p.serviceName, formatInstant(p.startTime, zone, lang)].filter(Boolean).join(' · ');
    case 'order': {
      const lines = p.lines ?? [];
      const names = lines.slice(0, 3).map((line) => `${line.quantity} × ${line.name}`).join(', ');
      const total = formatMoney(p.totalPrice, p.priceCurrency ?? 'EUR', lang);
      return [names + (lines.length > 3 ? '…' : ''), total].filter(Boolean).join(' · ');
    }
    case 'quote_request':
      return String(p.description ?? '').slice(0, 120);
    case 'refund':
      return formatMoney(p.amount, p.priceCurrency ?? 'EUR', lang);
    case 'message':
      return String(p.subject ?? '');
    default:
      return typeLabel(t, item.type);
  }
}
