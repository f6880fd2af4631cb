/**
 * The customer notices a real inbox sends by mail (docs/mail.md): the business's reply, a booking
 * confirmed, declined, moved to another time or cancelled by the business, details asked for, a quote,
 * a payment request, and the reminder the day before. A move or a reply queues a durable job in its
 * own transaction; the job writes the notice from the item as it stands when it runs, so a notice never
 * goes out for a move that did not commit. Sandbox items and items without an address get none.
 * Each notice is in the customer's language (contact.locale, else the business's), its times in the
 * business's zone as people write them, and it links to the item's page (customer-page token).
 */
import { newId } from '@svc/shared';
import type { DomainContext } from '../context.js';
import type { BusinessProfile } from '../catalogue/profile.js';
import type { Settings } from '../settings/settings-document.js';
import type { ItemRecord } from '../types.js';
import { noticeTexts, type NoticeTexts } from './notice-texts.js';
import { readerOf, writeDay, writeMoney, writeWhen, type Reader } from './reader-language.js';

export const NOTICE_JOB = 'mail.notice';

export type NoticeKind =
  | 'reply'
  | 'confirmed'
  | 'declined'
  | 'quote'
  | 'payment_request'
  | 'proposed'
  | 'info_requested'
  | 'cancelled_by_business'
  | 'reminder';

/** The moves that tell the customer something by mail. */
const NOTICE_OF_EVENT: Readonly<Record<string, NoticeKind>> = {
  'booking.confirm': 'confirmed',
  'booking.decline': 'declined',
  'order.decline': 'declined',
  'quote_request.quote': 'quote',
  'order.request_payment': 'payment_request',
  'booking.propose': 'proposed',
  'booking.request_info': 'info_requested',
  'order.request_info': 'info_requested',
  'quote_request.request_info': 'info_requested',
  'booking.cancel_by_business': 'cancelled_by_business',
};

export function noticeOf(eventType: string): NoticeKind | null {
  return NOTICE_OF_EVENT[eventType] ?? null;
}

/** Queues the notice of a move or a reply, when the item has an address and is not a test. */
export async function queueNotice(ctx: DomainContext, item: ItemRecord, notice: NoticeKind, ref: { seq?: number; messageId?: string }): Promise<void> {
  if (item.sandbox || !item.contact?.email) return;
  const nowMs = ctx.clock.now();
  const key = ref.messageId ?? `v${ref.seq ?? item.version}`;
  await ctx.store.jobs.enqueue(
    { id: newId(nowMs), kind: NOTICE_JOB, payload: { itemId: item.id, notice, ...ref }, runAt: nowMs, dedupeKey: `notice:${item.id}:${key}` },
    nowMs,
  );
}

/** What a notice is written from. */
export interface NoticeInput {
  business: BusinessProfile;
  settings: Settings;
  item: ItemRecord;
  notice: NoticeKind;
  /** The reply's text, for a reply. */
  reply: string | null;
  /** The item's page for its customer (customer-page.ts). */
  pageUrl: string;
  nowMs: number;
}

/** The customer's reader: their locale, else the business's languages. */
export function customerReader(business: BusinessProfile, item: ItemRecord): Reader {
  return readerOf(item.contact?.locale, business);
}

/** A few words saying which item this is, for a sentence: the service and time of a booking, an order's total. */
export function itemDetail(item: ItemRecord, reader: Reader, nowMs: number, t: NoticeTexts): string | null {
  const p = item.payload;
  if (item.type === 'booking') {
    const service = typeof p.serviceName === 'string' ? p.serviceName : null;
    const when = typeof p.startTime === 'string' ? writeWhen(p.startTime, reader, nowMs) : null;
    return [service, when].filter(Boolean).join(', ') || null;
  }
  if (item.type === 'order') return writeMoney(p.totalPrice, p.priceCurrency, reader) ?? t.customer.toBeConfirmed;
  if (item.type === 'message' && typeof p.subject === 'string' && p.subject.trim()) return p.subject.trim();
  return null;
}

/** Subject and text of a notice, from the item as it stands (and the reply's text for a reply). */
export function composeNotice(input: NoticeInput): { subject: string; text: string } {
  const { business, item, nowMs } = input;
  const reader = customerReader(business, item);
  const t = noticeTexts(reader.lang);
  const c = t.customer;
  const name = business.name;
  const p = item.payload;
  const what = t.yourItem(item.type, itemDetail(item, reader, nowMs, t));
  const lines: string[] = [t.hello(item.contact?.name), ''];
  let subject: string;
  switch (input.notice) {
    case 'reply':
      subject = c.reply.subject(name);
      lines.push(c.reply.lead(name), '', input.reply ?? '');
      break;
    case 'confirmed':
      subject = c.confirmed.subject(name);
      lines.push(c.confirmed.lead(name, withPrice(what, p.price, p.priceCurrency, reader)));
      break;
    case 'declined':
      subject = c.declined.subject(name, item.type);
      lines.push(c.declined.lead(name, what));
      break;
    case 'quote': {
      const quote = (p.quote ?? {}) as Record<string, unknown>;
      subject = c.quote.subject(name);
      const total = writeMoney(quote.totalPrice, quote.priceCurrency, reader) ?? c.toBeConfirmed;
      const until = typeof quote.validThrough === 'string' ? writeDay(quote.validThrough, reader, nowMs) : '';
      lines.push(c.quote.lead(name, total, until));
      if (typeof quote.description === 'string' && quote.description) lines.push('', quote.description);
      break;
    }
    case 'payment_request':
      subject = c.payment_request.subject(name);
      lines.push(c.payment_request.lead(name, writeMoney(p.totalPrice, p.priceCurrency, reader) ?? c.toBeConfirmed, what));
      if (typeof p.paymentUrl === 'string') lines.push(`${c.payment_request.payHere} ${p.paymentUrl}`);
      break;
    case 'proposed': {
      const proposal = (p.proposal ?? {}) as Record<string, unknown>;
      subject = c.proposed.subject(name);
      const when = typeof proposal.startTime === 'string' ? writeWhen(proposal.startTime, reader, nowMs) : '';
      lines.push(c.proposed.lead(name, when, what));
      if (typeof proposal.note === 'string' && proposal.note) lines.push('', proposal.note);
      break;
    }
    case 'info_requested':
      subject = c.info_requested.subject(name);
      lines.push(c.info_requested.lead(name, what));
      break;
    case 'cancelled_by_business':
      subject = c.cancelled_by_business.subject(name);
      lines.push(c.cancelled_by_business.lead(name, what));
      break;
    case 'reminder': {
      const when = typeof p.startTime === 'string' ? writeWhen(p.startTime, reader, nowMs) : '';
      subject = c.reminder.subject(name, when);
      lines.push(c.reminder.lead(name, itemDetail(item, reader, nowMs, t) ?? when));
      const windowMs = input.settings.booking.cancellationWindowMinutes * 60_000;
      if (item.startAt !== null && windowMs > 0 && item.startAt - windowMs > nowMs) lines.push(c.reminder.cancelUntil(writeWhen(item.startAt - windowMs, reader, nowMs)));
      break;
    }
  }
  lines.push('', c.pageLink, input.pageUrl, '', '-- ', name);
  const address = business.address ? [business.address.streetAddress, [business.address.postalCode, business.address.addressLocality].filter(Boolean).join(' ')].filter(Boolean).join(', ') : '';
  if (address) lines.push(address);
  if (business.telephone) lines.push(business.telephone);
  lines.push(c.replyHint, '');
  return { subject, text: lines.join('\n') };
}

function withPrice(what: string, price: unknown, currency: unknown, reader: Reader): string {
  const money = writeMoney(price, currency, reader);
  return money ? `${what} (${money})` : what;
}
