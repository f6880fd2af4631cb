/** The settings document read from the store, with its defaults (a module of its own: what publishes a change reads it too). */
import type { InboxStore } from '../../store/store.js';
import { keptRead } from '../kept-reads.js';
import { withDefaults, type Settings } from './settings-document.js';

/** The settings with their defaults, for reading only (frozen, kept while unchanged): the moves' and guards' view. */
export async function readSettings(store: InboxStore): Promise<Settings> {
  return keptRead(store, 'settings', async () => (await loadSettings(store)).settings);
}

/** The settings, their stored document and version, fresh: for callers that write them back. */
export async function loadSettings(store: InboxStore): Promise<{ settings: Settings; stored: Record<string, unknown>; version: number }> {
  const stored = await store.settings.get();
  const document = (stored?.document ?? {}) as Record<string, never>;
  return { settings: withDefaults(document), stored: document, version: stored?.version ?? 0 };
}
