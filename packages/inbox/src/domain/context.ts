/** What every domain function gets: the store and the clock. Nothing else is global. */
import type { InboxStore } from '../store/store.js';
import { DEFAULT_PROFILE, businessProfileSchema, storedProfileDocument, type BusinessProfile } from './catalogue/profile.js';
import type { ReceiptSigning } from './receipts/signing-keys.js';
import type { Clock, Closure, OpeningHoursRange } from './types.js';
import type { IdentityKeys } from './identity/identity-keys.js';
import { deepFreeze } from '@svc/shared';
import { keptRead } from './kept-reads.js';

export { loadSettings, readSettings } from './settings/settings-reads.js';

export interface DomainContext {
  store: InboxStore;
  clock: Clock;
  /**
   * Signs the receipts a move makes due (docs/receipts.md). Every door and job that moves items gives
   * it; a move that makes a receipt due without it fails rather than happen unsigned.
   */
  receipts?: ReceiptSigning;
  /** Keyed hashes of customer data (addresses), for finding a person on later items (docs/identity.md). */
  keys?: IdentityKeys;
}

/**
 * The profile, parsed and checked once per change (kept-reads.ts). Checking it against its schema
 * (the time zone through luxon) cost about a sixth of a create, and reading it a statement; it is
 * read and checked again whenever the store's stamp of it changes.
 */
export async function loadProfile(store: InboxStore): Promise<{ profile: BusinessProfile; version: number }> {
  return keptRead(store, 'profile', async () => {
    const stored = await store.business.get();
    if (!stored) return { profile: DEFAULT_PROFILE, version: 0 };
    const parsed = businessProfileSchema.safeParse(storedProfileDocument(stored.document));
    return { profile: parsed.success ? deepFreeze(parsed.data) : DEFAULT_PROFILE, version: stored.version };
  });
}

/** The opening hours and closures, for reading only (frozen, kept while unchanged): what each booking is checked against. */
export async function readSchedule(store: InboxStore): Promise<{ openingHours: readonly OpeningHoursRange[]; closures: readonly Closure[] }> {
  return keptRead(store, 'schedule', async () => {
    const [openingHours, closures] = await Promise.all([store.catalogue.getOpeningHours(), store.catalogue.getClosures()]);
    return { openingHours, closures };
  });
}

