/**
 * Hand-made listings for exact assertions over HTTP. `listing()` gives a found business with no
 * doors, no hours and no place category; `member()` a member whose inbox answered an hour ago.
 * Ids are derived from the domain, so the day's shuffle of a fixture is known in advance.
 */
import { createHash } from 'node:crypto';
import type { Door, Hours, ListingRecord, Weekday } from '../../src/domain/listings/listing.js';
import type { CheckRecord } from '../../src/store/store.js';

export type Fixture = Omit<ListingRecord, 'seq'>;

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
/** The harness clock's start: Monday 2026-11-23T10:15:00Z. */
export const MONDAY = Date.parse('2026-11-23T10:15:00Z');
/** Rules 7 take effect on 2026-12-07; this is the Tuesday after, at 10:15Z. */
export const AFTER_RULES_7 = Date.parse('2026-12-08T10:15:00Z');

/** A stable ULID-shaped id (Crockford characters only) from the domain. */
export function idOf(domain: string): string {
  return `01KF${createHash('sha256').update(domain).digest('hex').slice(0, 22).toUpperCase()}`;
}

/** The published shuffle key, computed here on its own: SHA-256("<YYYY-MM-DD>:<id lower case>"), first 16 hex characters. */
export function shuffleKey(atMs: number, id: string): string {
  const day = new Date(Math.floor(atMs / HOUR) * HOUR).toISOString().slice(0, 10);
  return createHash('sha256').update(`${day}:${id.toLowerCase()}`, 'utf8').digest('hex').slice(0, 16);
}

export function door(type: string, level: Door['level'], kinds: Door['kinds'] = [], overrides: Partial<Door> = {}): Door {
  return { type, url: `https://doors.example/${type.replace(':', '-')}`, level, status: 'live', kinds, src: 'declared', ...overrides };
}

/** Weekly hours in a zone; `days` maps a weekday list such as 'mon-fri' or 'sat,sun' to windows. */
export function hours(timezone: string, days: Record<string, [string, string][]>, closures: Hours['closures'] = []): Hours {
  const order: Weekday[] = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
  const weekly: Hours['weekly'] = {};
  for (const [spec, windows] of Object.entries(days)) {
    for (const part of spec.split(',')) {
      const [from, to] = part.split('-') as [Weekday, Weekday | undefined];
      const a = order.indexOf(from);
      const b = to ? order.indexOf(to) : a;
      if (a < 0 || b < 0) throw new Error(`bad weekday spec ${spec}`);
      for (let i = a; i <= b; i++) weekly[order[i] as Weekday] = windows;
    }
  }
  return { timezone, weekly, closures };
}

export const EVERY_DAY = 'mon-sun';

/** A business found by the service on its own site: no doors, no hours, nothing optional. */
export function listing(domain: string, overrides: Partial<Fixture> = {}, nowMs = MONDAY): Fixture {
  const source = overrides.source ?? 'found';
  const base: Fixture = {
    id: idOf(domain),
    domain,
    source,
    kind: 'local_and_retail',
    name: domain.split('.')[0] as string,
    description: null,
    city: null,
    region: null,
    country: null,
    address: null,
    geo: null,
    categories: [],
    placeCategory: null,
    placeAlternates: [],
    tags: [],
    languages: [],
    itemTypes: [],
    protocols: {},
    hours: null,
    services: [],
    url: `https://${domain}/`,
    doors: [],
    attributes: {},
    payments: [],
    priceBand: null,
    place: null,
    claimed: false,
    proof: source === 'registered' ? 'domain' : null,
    software: null,
    manifestUrl: null,
    verifiedAt: null,
    lastPingAt: null,
    memberSince: null,
    found:
      source === 'found'
        ? { note: 'Found on its own web site.', checkedAt: nowMs - 5 * DAY }
        : null,
    facts: [],
    receipts: { issued: 0, acknowledged: 0, customers: 0, lastAt: null },
    outcomes: {},
    delistedAt: null,
    dormantSince: null,
    createdAt: nowMs - 30 * DAY,
    updatedAt: nowMs - 2 * DAY,
  };
  return { ...base, ...overrides };
}

/** A member listed through its inbox, which pinged an hour before `nowMs` (pass lastPingAt to change that). */
export function member(domain: string, overrides: Partial<Fixture> = {}, nowMs = MONDAY): Fixture {
  const kinds = overrides.itemTypes ? kindsOf(overrides.itemTypes) : (['ask'] as Door['kinds']);
  return listing(
    domain,
    {
      source: 'member',
      claimed: true,
      proof: 'domain',
      manifestUrl: `https://${domain}/.well-known/agent-inbox.json`,
      verifiedAt: nowMs - 20 * DAY,
      memberSince: nowMs - 20 * DAY,
      lastPingAt: nowMs - HOUR,
      protocols: { rest: `https://${domain}/v1`, openapi: `https://${domain}/openapi.json` },
      doors: [
        door('inbox', kinds.includes('book') || kinds.includes('order') ? 'bookable' : 'askable', kinds, {
          url: `https://${domain}/.well-known/agent-inbox.json`,
          protocol: 'svc-inbox/0',
        }),
      ],
      software: { version: '0.4.0', runtime: 'node' },
      ...overrides,
    },
    nowMs,
  );
}

function kindsOf(itemTypes: readonly string[]): Door['kinds'] {
  const kinds: Door['kinds'] = [];
  if (itemTypes.includes('message')) kinds.push('ask');
  if (itemTypes.includes('quote_request')) kinds.push('quote');
  if (itemTypes.includes('booking')) kinds.push('book');
  if (itemTypes.includes('order')) kinds.push('order');
  return kinds;
}

/** Domains of a search page, in page order. */
export function domainsOf(body: { businesses: { domain: string }[] }): string[] {
  return body.businesses.map((b) => b.domain);
}

/** A check waiting for a crawler, as a caller's request stores it at `queuedAt`. */
export function queuedCheckRecord(domain: string, queuedAt: number): CheckRecord {
  return {
    domain,
    state: 'queued',
    requestedAt: queuedAt,
    queuedAt,
    leaseUntil: null,
    attempts: 0,
    lastState: null,
    lastReason: null,
    outcome: null,
    checkedAt: null,
    nextCheckAt: null,
  };
}
