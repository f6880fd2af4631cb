/**
 * The customer notices a real inbox sends by mail (docs/mail.md): the business's reply, a booking
 * confirmed or declined, a quote, a payment request. A move or a reply queues a durable job in its own
 * transaction; the job writes the notice from the item as it stands when it runs, so a notice never
 * goes out for a move that did not commit. Sandbox items and items without an address get none.
 */
import { newId } from '@svc/shared';
import type { DomainContext } from '../context.js';
import type { ItemRecord } from '../types.js';

export const NOTICE_JOB = 'mail.notice';

export type NoticeKind = 'reply' | 'confirmed' | 'declined' | 'quote' | 'payment_request';

/** The moves that tell the customer something by mail. */
const NOTICE_OF_EVENT: Readonly<Record<string, NoticeKind>> = {
  'booking.confirm': 'confirmed',
  'booking.decline': 'declined',
  'order.decline': 'declined',
  'quote_request.quote': 'quote',
  'order.request_payment': 'payment_request',
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

const money = (minor: unknown, currency: unknown): string =>
  typeof minor === 'number' && typeof currency === 'string' ? `${(minor / 100).toFixed(2)} ${currency}` : 'to be confirmed';

/** Subject and text of a notice, from the item as it stands (and the reply's text for a reply). */
export function composeNotice(business: string, item: ItemRecord, notice: NoticeKind, reply: string | null, statusUrl: string): { subject: string; text: string } {
  const p = item.payload;
  const what = item.type === 'booking' ? `your booking of ${String(p.serviceName ?? 'a service')} on ${String(p.startTime ?? '')}` : `your ${item.type.replace('_', ' ')}`;
  const greeting = item.contact?.name ? `Hello ${item.contact.name},` : 'Hello,';
  const footer = `\n\n-- \n${business}\nReply to this mail to write to us about it. Status: ${statusUrl}\n`;
  switch (notice) {
    case 'reply':
      return { subject: `${business}: a reply about ${what}`, text: `${greeting}\n\n${reply ?? ''}${footer}` };
    case 'confirmed':
      return { subject: `${business}: booking confirmed`, text: `${greeting}\n\n${business} confirmed ${what}.${footer}` };
    case 'declined':
      return { subject: `${business}: ${item.type === 'order' ? 'order' : 'booking'} declined`, text: `${greeting}\n\n${business} could not take ${what}.${footer}` };
    case 'quote': {
      const quote = (p.quote ?? {}) as Record<string, unknown>;
      return {
        subject: `${business}: your quote`,
        text: `${greeting}\n\n${business} quoted ${money(quote.totalPrice, quote.priceCurrency)}, valid until ${String(quote.validThrough ?? '')}.${quote.description ? `\n\n${String(quote.description)}` : ''}${footer}`,
      };
    }
    case 'payment_request':
      return {
        subject: `${business}: payment requested`,
        text: `${greeting}\n\n${business} asks for payment of ${money(p.totalPrice, p.priceCurrency)} for ${what}.${typeof p.paymentUrl === 'string' ? `\nPay here: ${p.paymentUrl}` : ''}${footer}`,
      };
  }
}
