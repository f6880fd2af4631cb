/**
 * A change to what this inbox publishes (its manifest: profile, hours, closures, services, products,
 * keys), told to every enabled network within CHANGE_WINDOW_MS (docs/directory.md "A member's change
 * seen in minutes"). The job itself is a ping (networks/network-jobs.ts): the network sees the new manifest's
 * hash and reads the manifest again.
 */
import { newId } from '@svc/shared';
import { readSettings } from '../settings/settings-reads.js';
import type { InboxStore } from '../../store/store.js';

export const CHANGE_JOB = 'network.change';
/** Changes within one such window are told as one (a burst of edits is one notice). */
export const CHANGE_WINDOW_MS = 15_000;

/**
 * Tells every enabled network, soon, that what this inbox publishes changed: one durable job per
 * network and window, queued in the caller's transaction (the owner's write commits it, and nothing
 * is sent before or during that write). Changes in the same window share the job; a change in the
 * next window makes the next one, so a stream of edits never postpones the first notice.
 */
export async function announcePublishedChange(store: InboxStore, nowMs: number): Promise<void> {
  const settings = await readSettings(store);
  const window = Math.floor(nowMs / CHANGE_WINDOW_MS);
  for (const [origin, entry] of Object.entries(settings.networks)) {
    if (!entry.enabled) continue;
    await store.jobs.enqueue({ id: newId(nowMs), kind: CHANGE_JOB, payload: { origin }, runAt: (window + 1) * CHANGE_WINDOW_MS, dedupeKey: `change:${origin}:${window}` }, nowMs);
  }
}

