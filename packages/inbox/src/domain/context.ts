/** What every domain function gets: the store and the clock. Nothing else is global. */
import type { InboxStore } from '../store/store.js';
import { DEFAULT_PROFILE, businessProfileSchema, type BusinessProfile } from './catalogue/profile.js';
import { withDefaults, type Settings } from './settings/settings-document.js';
import type { ReceiptSigning } from './receipts/signing-keys.js';
import type { Clock } from './types.js';
import type { IdentityKeys } from './identity/identity-keys.js';

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
 * The last profiles parsed, by their stored text. Checking a profile against its schema (the time
 * zone through luxon) cost about a sixth of a create; the document is still read in the caller's
 * transaction each time, only the check of an unchanged text is skipped. Keyed by text, not version,
 * so inboxes sharing a process (tests) never see each other's profile.
 */
const parsedProfiles = new Map<string, BusinessProfile>();
const PARSED_PROFILES_KEPT = 8;

export async function loadProfile(store: InboxStore): Promise<{ profile: BusinessProfile; version: number }> {
  const stored = await store.business.get();
  if (!stored) return { profile: DEFAULT_PROFILE, version: 0 };
  const text = JSON.stringify(stored.document);
  let profile = parsedProfiles.get(text);
  if (!profile) {
    const parsed = businessProfileSchema.safeParse(stored.document);
    profile = parsed.success ? deepFreeze(parsed.data) : DEFAULT_PROFILE;
    if (parsedProfiles.size >= PARSED_PROFILES_KEPT) parsedProfiles.delete(parsedProfiles.keys().next().value as string);
    parsedProfiles.set(text, profile);
  }
  return { profile, version: stored.version };
}

/** A shared profile is frozen so no caller can change what the next one gets. */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

export async function loadSettings(store: InboxStore): Promise<{ settings: Settings; stored: Record<string, unknown>; version: number }> {
  const stored = await store.settings.get();
  const document = (stored?.document ?? {}) as Record<string, never>;
  return { settings: withDefaults(document), stored: document, version: stored?.version ?? 0 };
}
