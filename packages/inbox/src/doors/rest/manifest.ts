/** The manifest at /.well-known/agent-inbox.json: which doors this instance has, and who it is. */
import { loadProfile } from '../../domain/context.js';
import type { InboxStore } from '../../store/store.js';
import type { InboxConfigView } from '../../operations/context.js';

export async function buildManifest(store: InboxStore, config: InboxConfigView) {
  const { profile } = await loadProfile(store);
  const base = config.publicBaseUrl;
  return {
    spec: 'svc-inbox/0',
    instance: base,
    software: { name: 'svc-inbox', version: config.softwareVersion },
    item_types: profile.itemTypes,
    protocols: {
      rest: `${base}/v1`,
      openapi: `${base}/openapi.json`,
    },
    profile: {
      name: profile.name,
      ...(profile.description ? { description: profile.description } : {}),
      time_zone: profile.timeZone,
      currency: profile.currency,
      languages: profile.languages,
      ...(profile.categories ? { categories: profile.categories } : {}),
      ...(profile.address ? { address: profile.address } : {}),
      ...(profile.geo ? { geo: profile.geo } : {}),
      ...(profile.url ? { url: profile.url } : {}),
    },
    agent_policy: { tiers: ['anonymous'], signatures: [], passes: false, networks: [] },
  };
}
