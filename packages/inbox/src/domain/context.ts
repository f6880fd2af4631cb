/** What every domain function gets: the store and the clock. Nothing else is global. */
import type { InboxStore } from '../store/store.js';
import { DEFAULT_PROFILE, businessProfileSchema, type BusinessProfile } from './catalogue/profile.js';
import { withDefaults, type Settings } from './settings/settings-document.js';
import type { Clock } from './types.js';

export interface DomainContext {
  store: InboxStore;
  clock: Clock;
}

export async function loadProfile(store: InboxStore): Promise<{ profile: BusinessProfile; version: number }> {
  const stored = await store.business.get();
  if (!stored) return { profile: DEFAULT_PROFILE, version: 0 };
  const parsed = businessProfileSchema.safeParse(stored.document);
  return { profile: parsed.success ? parsed.data : DEFAULT_PROFILE, version: stored.version };
}

export async function loadSettings(store: InboxStore): Promise<{ settings: Settings; stored: Record<string, unknown>; version: number }> {
  const stored = await store.settings.get();
  const document = (stored?.document ?? {}) as Record<string, never>;
  return { settings: withDefaults(document), stored: document, version: stored?.version ?? 0 };
}
