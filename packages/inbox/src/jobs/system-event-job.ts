/**
 * The `item.system_event` job: the system fires an item event that was scheduled earlier
 * (booking.complete, order.lapse, quote_request.expire). If the item moved on meanwhile so the
 * event no longer applies, the job ends quietly: that is the normal outcome, not a failure.
 */
import { Problem } from '@svc/shared';
import { moveItem } from '../domain/items/item-writer.js';
import type { ReceiptSigning } from '../domain/receipts/signing-keys.js';
import type { Clock } from '../domain/types.js';
import type { InboxStore, JobRecord } from '../store/store.js';

const OUTGROWN: ReadonlySet<string> = new Set(['wrong_state', 'guard_failed', 'not_allowed', 'unknown_event', 'slot_taken']);

export function systemEventHandler(clock: Clock, receipts: ReceiptSigning) {
  return async (job: JobRecord, store: InboxStore): Promise<void> => {
    const itemId = String(job.payload.itemId);
    const event = String(job.payload.event);
    const item = await store.items.get(itemId);
    if (!item) return;
    try {
      await moveItem({ store, clock, receipts }, { actor: { kind: 'system', id: null, name: 'inbox' }, channel: 'system' }, item, { events: [event] });
    } catch (error) {
      if (error instanceof Problem && OUTGROWN.has(error.code)) return;
      throw error;
    }
  };
}
