/**
 * Telling the owner (docs/mail.md "The owner's notices"): an event that needs the owner (a new
 * request, a customer's message or answer or cancellation, payment news from a payment provider) is
 * kept as a notice in the same transaction as the event, with two durable jobs: one pushes at once to
 * the browsers the owner allowed, one mails the owner's address. The mail gathers: a notice's mail job
 * is due 30 seconds after it, and takes every notice not mailed by then, so a burst of requests makes
 * one mail (the later notices' jobs find them sent), and none waits more than a minute. Test (sandbox) items tell nobody, and neither
 * does what the owner's own side did.
 */
import { newId } from '@svc/shared';
import { readSettings, type DomainContext } from '../context.js';
import { keptRead } from '../kept-reads.js';
import type { ItemEventRecord, ItemType } from '../types.js';
import type { AwaitingStates, OwnerNoticeKind } from '../../store/notification-store.js';

export const OWNER_MAIL_JOB = 'owner.notice_mail';
export const OWNER_PUSH_JOB = 'owner.notice_push';
/** How long the owner's mail waits for more notices to join it. */
export const OWNER_MAIL_GATHER_MS = 30_000;
/** Notices are kept a month (what was mailed and pushed), then pruned. */
export const OWNER_NOTICE_RETENTION_MS = 30 * 86_400_000;

const CUSTOMERS = new Set(['customer_agent', 'customer_human']);
/** Payment news matters to the owner when a payment provider or integration brought it, not when the owner typed it. */
const PAYMENT_EVENTS = new Set(['record_payment', 'payment_failed', 'charge_back', 'record_charge_back']);
const OWNER_SIDE = new Set(['owner', 'owner_ai']);
const CANCELS = new Set(['cancel', 'cancel_late', 'decline']);

/** What kind of notice an event is for the owner, or null when it needs no telling. */
export function ownerNoticeKind(event: ItemEventRecord): OwnerNoticeKind | null {
  if (event.sandbox) return null;
  if (PAYMENT_EVENTS.has(event.event)) return OWNER_SIDE.has(event.actor.kind) ? null : 'payment';
  if (!CUSTOMERS.has(event.actor.kind)) return null;
  if (event.event === 'create') return 'new';
  if (event.event === 'message') return 'message';
  if (event.event.startsWith('receipt_')) return null;
  if (CANCELS.has(event.event)) return 'cancelled';
  return 'answered';
}

/** Whether any browser is subscribed to push (kept while the subscriptions are unchanged). */
async function anyPushSubscription(ctx: DomainContext): Promise<boolean> {
  return keptRead(ctx.store, 'push_subscriptions', async () => (await ctx.store.notifications.listSubscriptions()).length > 0);
}

/** Keeps the notice of an event that needs the owner, with its jobs, in the event's transaction. */
export async function queueOwnerNotice(ctx: DomainContext, event: ItemEventRecord): Promise<void> {
  const kind = ownerNoticeKind(event);
  if (!kind) return;
  const settings = await readSettings(ctx.store);
  const mail = settings.notifications.ownerEmail !== null;
  const push = await anyPushSubscription(ctx);
  if (!mail && !push) return;
  const nowMs = ctx.clock.now();
  await ctx.store.notifications.addNotice({
    id: newId(nowMs),
    eventId: event.id,
    itemId: event.itemId,
    kind,
    createdAt: nowMs,
    mailedAt: mail ? null : nowMs,
    pushedAt: push ? null : nowMs,
  });
  // A job of its own per notice, only inserted: no row every write would update (and lock, on
  // PostgreSQL). The first job due takes every notice waiting then; the later ones find theirs sent.
  if (push) await ctx.store.jobs.enqueue({ id: newId(nowMs), kind: OWNER_PUSH_JOB, payload: {}, runAt: nowMs, dedupeKey: null }, nowMs);
  if (mail) await ctx.store.jobs.enqueue({ id: newId(nowMs), kind: OWNER_MAIL_JOB, payload: {}, runAt: nowMs + OWNER_MAIL_GATHER_MS, dedupeKey: null }, nowMs);
}

/**
 * The states in which an item waits for the business's move: counted in the owner app's title. A
 * flag alone (needsHuman) is not counted: a conversation keeps it after it was answered.
 */
export const AWAITING_OWNER: AwaitingStates = Object.freeze({
  booking: ['requested'],
  order: ['received', 'paid'],
  quote_request: ['received'],
  message: ['open'],
  refund: ['requested', 'approved'],
} satisfies Record<ItemType, readonly string[]>);

/** How many real items wait for the owner now. */
export function countAwaitingOwner(ctx: DomainContext): Promise<number> {
  return ctx.store.items.countAwaiting(AWAITING_OWNER);
}
