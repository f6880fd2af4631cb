/**
 * The manifest at /.well-known/agent-inbox.json: which doors this instance has, who it is, and how
 * an agent may say who it is (agent_policy). Built at each request, so a settings change shows on
 * the next one (its ETag changes with its bytes).
 */
import { DateTime } from 'luxon';
import { loadProfile } from '../../domain/context.js';
import { oauthEndpoints } from '../../domain/access/oauth/oauth-metadata.js';
import { publishedJwk } from '../../domain/receipts/signing-keys.js';
import type { InboxStore } from '../../store/store.js';
import type { InboxConfigView } from '../../operations/context.js';
import { agentPolicy } from './agent-policy.js';

const WEEKDAY_KEYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
/** Directory profiles take at most 30 services of at most 80 characters. */
const MAX_PUBLISHED_SERVICES = 30;

/**
 * Opening hours and closures in the directory's shape: weekday → [opens, closes) windows, whole-day
 * closures. `todayIso` is the business's local date: a closure is kept until its last local day ends.
 */
async function publishedHours(store: InboxStore, timeZone: string, todayIso: string) {
  const [ranges, closures] = await Promise.all([store.catalogue.getOpeningHours(), store.catalogue.getClosures()]);
  if (ranges.length === 0) return undefined;
  const weekly: Record<string, [string, string][]> = {};
  for (const range of ranges) {
    const day = WEEKDAY_KEYS[range.dayOfWeek - 1];
    if (day) (weekly[day] ??= []).push([range.opens, range.closes]);
  }
  return {
    timezone: timeZone,
    weekly,
    closures: closures.filter((c) => c.endDate >= todayIso).map((c) => ({ from: c.startDate, to: c.endDate })),
  };
}

async function publishedServices(store: InboxStore) {
  const [services, products] = await Promise.all([
    store.catalogue.listServices({ activeOnly: true, limit: MAX_PUBLISHED_SERVICES }),
    store.catalogue.listProducts({ activeOnly: true, limit: MAX_PUBLISHED_SERVICES }),
  ]);
  return [
    ...services.map((s) => ({ name: s.name.slice(0, 80), type: s.priceModel === 'quote' ? ('quote_request' as const) : ('booking' as const) })),
    ...products.map((p) => ({ name: p.name.slice(0, 80), type: 'order' as const })),
  ].slice(0, MAX_PUBLISHED_SERVICES);
}

/** The instance's public signing keys, the active one first (docs/receipts.md "Keys"): the manifest's receipt_keys and /.well-known/jwks.json. */
export async function publishedKeys(store: InboxStore) {
  return { keys: (await store.signingKeys.list()).map(publishedJwk) };
}

/** The manifest as it stands now; `canSign` says whether this instance can sign its calls to networks (agent-policy.ts). */
export async function buildManifest(store: InboxStore, config: InboxConfigView, nowMs: number, canSign: () => Promise<boolean>) {
  const { profile } = await loadProfile(store);
  // Closures are whole local days: one has not ended while its last day has not ended in the business's own zone.
  const localToday = DateTime.fromMillis(nowMs, { zone: profile.timeZone }).toISODate() ?? new Date(nowMs).toISOString().slice(0, 10);
  const hours = await publishedHours(store, profile.timeZone, localToday);
  const services = await publishedServices(store);
  const base = config.publicBaseUrl;
  return {
    spec: 'svc-inbox/0',
    instance: base,
    software: { name: 'svc-inbox', version: config.softwareVersion },
    item_types: profile.itemTypes,
    protocols: {
      rest: `${base}/v1`,
      openapi: `${base}/openapi.json`,
      mcp: `${base}/mcp`,
      mcp_owner: `${base}/mcp/owner`,
    },
    // How an AI app gets a token for the owner MCP (docs/oauth.md).
    oauth: {
      protected_resource_metadata: oauthEndpoints(base).resourceMetadata,
      authorization_server_metadata: oauthEndpoints(base).authorizationServerMetadata,
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
      ...(hours ? { hours } : {}),
      services,
    },
    // What the instance does with signatures and passes, from the code and the settings (agent-policy.ts).
    agent_policy: await agentPolicy({ store, publicBaseUrl: base, canSign }),
    // Keys that verify this instance's receipts and its signed requests to networks, retired ones included.
    receipt_keys: await publishedKeys(store),
  };
}
