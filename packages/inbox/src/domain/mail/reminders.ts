/**
 * The reminder the day before a confirmed booking (docs/mail.md "Reminders"): a durable job due 24
 * hours before the start, queued by the move that confirms it and cancelled by the move that takes it
 * out of `confirmed` (cancelled, completed, marked no-show). The job checks again when it runs (still
 * confirmed, the same start, the owner's setting on), and its Message-ID is made from the item and the
 * start, so the same reminder is never recorded twice.
 */
import { newId } from '@svc/shared';
import type { DomainContext } from '../context.js';
import type { ItemRecord } from '../types.js';

export const REMINDER_JOB = 'booking.reminder';
export const REMINDER_BEFORE_MS = 24 * 3_600_000;

export function reminderKey(itemId: string): string {
  return `reminder:${itemId}`;
}

/** After a move: schedules the reminder of a booking just confirmed, or cancels it when the booking left `confirmed`. */
export async function followReminder(ctx: DomainContext, before: ItemRecord, after: ItemRecord): Promise<void> {
  if (after.type !== 'booking') return;
  const nowMs = ctx.clock.now();
  if (after.state === 'confirmed' && before.state !== 'confirmed') {
    if (after.sandbox || !after.contact?.email || after.startAt === null) return;
    const runAt = after.startAt - REMINDER_BEFORE_MS;
    // Confirmed less than a day before: the confirmation itself is the reminder.
    if (runAt <= nowMs) return;
    await ctx.store.jobs.enqueue({ id: newId(nowMs), kind: REMINDER_JOB, payload: { itemId: after.id, startAt: after.startAt }, runAt, dedupeKey: reminderKey(after.id) }, nowMs);
  } else if (before.state === 'confirmed' && after.state !== 'confirmed') {
    await ctx.store.jobs.cancel(reminderKey(after.id), nowMs);
  }
}
