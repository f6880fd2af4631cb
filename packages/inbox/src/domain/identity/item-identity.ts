/**
 * An item's identity (inbox spec §2 "Identity", docs/identity.md): what the passes of the call that
 * made or read it came to, each network's status for it, a first booking's or order's request for a
 * key (queued, never waited for), and who the owner sees in `customer.persons`.
 */
import { newId } from '@svc/shared';
import { readSettings, type DomainContext } from '../context.js';
import type { Caller, ItemRecord } from '../types.js';
import { ADDRESS_LABEL, normaliseAddress } from './identity-keys.js';
import type { CallIdentity, NetworkStatus } from './network-status.js';

export const ISSUE_JOB = 'identity.issue';
export const OUTCOMES_JOB = 'identity.outcomes';

function callIdentity(caller: Caller): CallIdentity | undefined {
  return caller.kind === 'customer' ? caller.identity : undefined;
}

function addressHash(ctx: DomainContext, item: ItemRecord): string | null {
  const email = item.contact?.email;
  return email && ctx.keys ? ctx.keys.hash(ADDRESS_LABEL, normaliseAddress(email)) : null;
}

/**
 * Keeps what the call's passes came to on a new item, and asks each network that issues for a key when
 * a first booking or order carries an address and no pass or key. Answers the networks' statuses.
 */
export async function recordNewItemIdentity(ctx: DomainContext, item: ItemRecord, caller: Caller): Promise<Record<string, NetworkStatus>> {
  const identity = callIdentity(caller);
  const nowMs = ctx.clock.now();
  const statuses: Record<string, NetworkStatus> = { ...(identity?.statuses ?? {}) };
  const hash = addressHash(ctx, item);
  for (const person of identity?.persons ?? []) {
    await ctx.store.persons.recordPerson({ itemId: item.id, network: person.network, ppid: person.ppid, presentationId: person.presentationId, standing: { ...person.standing }, addressHash: hash, presentedAt: nowMs });
  }
  const firstKind = item.type === 'booking' || item.type === 'order';
  if (firstKind && item.contact?.email && !item.sandbox && !identity?.offered) {
    const settings = await readSettings(ctx.store);
    for (const [origin, entry] of Object.entries(settings.networks)) {
      if (!entry.enabled || !entry.issue) continue;
      statuses[origin] = 'pending';
      await ctx.store.jobs.enqueue({ id: newId(nowMs), kind: ISSUE_JOB, payload: { itemId: item.id, origin }, runAt: nowMs, dedupeKey: `issue:${item.id}:${origin}` }, nowMs);
    }
  }
  for (const [origin, status] of Object.entries(statuses)) await ctx.store.persons.setNetworkStatus(item.id, origin, status, nowMs);
  return statuses;
}

/** The identity of an item as a status answer gives it: each network's status, with this call's. */
export async function itemNetworkStatuses(ctx: DomainContext, item: ItemRecord, caller: Caller): Promise<Record<string, string>> {
  return { ...(await ctx.store.persons.itemNetworks(item.id)), ...(callIdentity(caller)?.statuses ?? {}) };
}

/** The passes to keep that this call made (a key becomes a pass): shown once, in this answer. */
export function passesToKeep(caller: Caller): { network: string; pass: string }[] {
  return (callIdentity(caller)?.persons ?? []).filter((p) => p.pass !== undefined).map((p) => ({ network: p.network, pass: p.pass as string }));
}

/** Whether the call's passes name the person an item was made by (access without the token). */
export async function presentedPersonOwns(ctx: DomainContext, item: ItemRecord, caller: Caller): Promise<boolean> {
  const persons = callIdentity(caller)?.persons ?? [];
  if (persons.length === 0) return false;
  const known = await ctx.store.persons.itemPersons(item.id);
  return persons.some((p) => known.some((k) => k.network === p.network && k.ppid === p.ppid));
}

/** The owner's `customer.persons`: per network, the standing shown with this request, or on an earlier item with the same address. */
export async function personsView(ctx: DomainContext, item: ItemRecord) {
  const now = await ctx.store.persons.itemPersons(item.id);
  const hash = addressHash(ctx, item);
  const earlier = hash ? await ctx.store.persons.earlierPersons(hash, item.id) : [];
  const seen = new Set(now.map((p) => p.network));
  return [
    ...now.map((p) => ({ network: p.network, ...p.standing, presented: 'with_this_request' as const, presented_at: new Date(p.presentedAt).toISOString() })),
    ...earlier.filter((p) => !seen.has(p.network)).map((p) => ({ network: p.network, ...p.standing, presented: 'earlier' as const, presented_at: new Date(p.presentedAt).toISOString() })),
  ];
}

/** Queues reporting the item's outcome receipts to the networks its customer was presented to. */
export async function queueOutcomeReports(ctx: DomainContext, item: ItemRecord): Promise<void> {
  if (item.sandbox) return;
  const persons = await ctx.store.persons.itemPersons(item.id);
  if (persons.length === 0) return;
  const nowMs = ctx.clock.now();
  await ctx.store.jobs.enqueue({ id: newId(nowMs), kind: OUTCOMES_JOB, payload: { itemId: item.id }, runAt: nowMs, dedupeKey: `outcomes:${item.id}:${item.version}` }, nowMs);
}
