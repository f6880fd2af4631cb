/**
 * A listing as the API shows it (directory spec §2 "Listing"). Only facts the business published
 * are shown; never a phone number, an e-mail address or anything about a customer. A business that
 * is not a member shows its town, never its street, until it claims its entry.
 */
import { zoneNow } from '../search/hours.js';
import type { PlacementFacts } from '../ranking/hourly-order.js';
import { attributeKey } from '../vocab/attributes.js';
import { answersNow, doorsNow, notAnsweringSince } from './answering.js';
import { aboutFoundUrl } from './found-about.js';
import { listingFacts } from './listing-facts.js';
import { LEVELS, levelRank, listingLevel, showsStreet, shownGeo, type Door, type ListingRecord, type RequestKind } from './listing.js';
import { whyNow } from './why-now.js';
import type { ListingReputation } from '../reputation/reputation.js';

/** The listing's place in the hour's order: its `why` is written at the moment of the answer from these facts (why-now.ts). */
export interface RankPlacement {
  rankPos: number;
  shuffle: string;
  /** What the hour's order placed it by. */
  facts: PlacementFacts;
}

/** What the fixed parts of a view depend on besides the listing. */
export interface FixedViewOptions {
  /** Path of a place category in the taxonomy (group first). */
  categoryPath: (placeId: string) => string[];
  /** The detail view (GET /v1/businesses/{domain}) adds receipts.customers, outcomes and facts. */
  detail: boolean;
  /** The directory's public URL: a found listing's about_url is its page there (found-about.ts). */
  baseUrl: string;
}

/** What changes with the moment of the answer and with the request. */
export interface MomentViewOptions {
  nowMs: number;
  answeringHours: number;
  rulesVersion: number;
  rulesUrl: string;
  openNow: boolean | null;
  placement?: RankPlacement | undefined;
  distanceKm?: number | undefined;
}

export type ViewOptions = FixedViewOptions & MomentViewOptions;

/** The only fields of a listing that the moment-dependent parts of its view read. */
export interface ListingMomentFields {
  source: ListingRecord['source'];
  lastPingAt: number | null;
  verifiedAt: number | null;
  createdAt: number;
  hours: ListingRecord['hours'];
  /** A member's reputation record (a page renders the section per answer only for a member without one). */
  reputation?: ListingRecord['reputation'];
  /** A member's doors live or not with its inbox (answering.ts); a page keeps them for members only. */
  doors: readonly Door[];
  payments: readonly string[];
}

/** Only keys of GET /v1/attributes that can be filtered on are shown; one that needs a register's proof is not shown yet. */
function shownAttributes(attributes: ListingRecord['attributes']): ListingRecord['attributes'] {
  return Object.fromEntries(Object.entries(attributes).filter(([key]) => attributeKey(key)?.filterable === true));
}


/** Today's date in the business's own time zone (UTC for a zone the runtime does not know): closures are its whole days. */
function localDate(zone: string, nowMs: number): string {
  const now = zoneNow(zone, nowMs);
  if (!now) return new Date(nowMs).toISOString().slice(0, 10);
  const day = now.today; // yyyymmdd
  return `${Math.floor(day / 10_000)}-${String(Math.floor(day / 100) % 100).padStart(2, '0')}-${String(day % 100).padStart(2, '0')}`;
}

const iso = (ms: number | null | undefined) => (ms === null || ms === undefined ? undefined : new Date(ms).toISOString());
const round = (value: number, places: number) => Math.round(value * 10 ** places) / 10 ** places;

type Fields = Record<string, unknown>;

/**
 * The view's fields in their published order, in sections: `fixed` ones depend on the listing alone
 * (so a page can keep them rendered, see listing-page.ts), `moment` ones also on the moment of the
 * answer and on the request, and read only ListingMomentFields. `sameAtEveryMoment` tells when a
 * moment section gives the same fields at every moment for a listing (so its page keeps it too).
 */
export type ViewSection =
  | { kind: 'fixed'; fields: (l: ListingRecord, o: FixedViewOptions) => Fields }
  | {
      kind: 'moment';
      fields: (l: ListingMomentFields, o: MomentViewOptions) => Fields;
      sameAtEveryMoment?: (l: ListingRecord) => boolean;
      /** The same fields as JSON text without braces (what a page assembles per answer), written directly for the sections every answer renders. */
      text?: (l: ListingMomentFields, o: MomentViewOptions) => string;
    };

/** Since when a member's inbox has not answered (answering.ts); null while it answers, and for others. */
function notAnsweringSinceIso(l: ListingMomentFields, o: MomentViewOptions, answering: boolean): string | null {
  const since = notAnsweringSince(l, answering, o.answeringHours);
  return since === null ? null : new Date(since).toISOString();
}

/** The doors as they stand at the moment (a member's own inbox is live while it answers), and what they give. */
function doorFields(l: ListingMomentFields, o: MomentViewOptions): Fields {
  const doors = doorsNow(l, answersNow(l, o.nowMs, o.answeringHours));
  const liveDoors = doors.filter((d) => d.status === 'live');
  const kinds = new Set<RequestKind>(liveDoors.flatMap((d) => d.kinds));
  return {
    level: LEVELS[levelRank(listingLevel(doors))],
    has_inbox: liveDoors.some((d) => d.type === 'inbox'),
    doors: doors.map((d) => ({
      type: d.type,
      url: d.url,
      level: d.level,
      status: d.status,
      kinds: d.kinds,
      src: d.src,
      ...(d.protocol ? { protocol: d.protocol } : {}),
      ...(d.checkedAt ? { checked_at: d.checkedAt } : {}),
    })),
    requestable: (['ask', 'quote'] as const).filter((k) => kinds.has(k)),
    accepts: { kinds: [...kinds], ...(l.payments.length > 0 ? { pay: l.payments } : {}) },
  };
}

/** JSON text of a number as JSON.stringify writes it. */
const jsonNumber = (n: number) => (Number.isFinite(n) ? String(n) : 'null');

export const VIEW_SECTIONS: readonly ViewSection[] = [
  {
    kind: 'fixed',
    fields: (l) => ({
      domain: l.domain,
      // The listing's public id: the day's shuffle hashes it and the order's last tie-break reads it (GET /v1/ranking).
      id: l.id,
      name: l.name,
      ...(l.description ? { description: l.description } : {}),
      ...(l.city ? { city: l.city } : {}),
      ...(l.country ? { country: l.country } : {}),
      ...(l.address
        ? {
            address: {
              ...(showsStreet(l) && l.address.street ? { street: l.address.street } : {}),
              ...(l.address.locality ? { locality: l.address.locality } : {}),
              ...(showsStreet(l) && l.address.postalCode ? { postal_code: l.address.postalCode } : {}),
              ...(l.address.country ? { country: l.address.country } : {}),
            },
          }
        : {}),
      categories: l.categories,
      tags: l.tags,
      languages: l.languages,
      item_types: l.itemTypes,
      protocols: l.protocols,
    }),
  },
  {
    kind: 'moment',
    fields: (l, o) => {
      const hours = l.hours;
      return hours ? { hours: { timezone: hours.timezone, weekly: hours.weekly, closures: hours.closures.filter((c) => c.to >= localDate(hours.timezone, o.nowMs)) } } : {};
    },
    sameAtEveryMoment: (l) => !hoursShownByMoment(l),
  },
  { kind: 'moment', fields: (_l, o) => ({ open_now: o.openNow }), text: (_l, o) => `"open_now":${o.openNow}` },
  {
    kind: 'fixed',
    fields: (l) => ({
      services: l.services,
      ...(l.geo ? { geo: shownGeo(l) } : {}),
    }),
  },
  {
    kind: 'moment',
    fields: (_l, o) => (o.distanceKm !== undefined ? { distance_km: round(o.distanceKm, 3) } : {}),
    text: (_l, o) => (o.distanceKm !== undefined ? `"distance_km":${jsonNumber(round(o.distanceKm, 3))}` : ''),
  },
  {
    kind: 'fixed',
    fields: (l, o) => ({
      ...(l.url ? { url: l.url } : {}),
      ...(l.manifestUrl ? { manifest_url: l.manifestUrl } : {}),
      ...(l.verifiedAt !== null ? { verified_at: iso(l.verifiedAt) } : {}),
      ...(l.lastPingAt !== null ? { last_ping_at: iso(l.lastPingAt) } : {}),
      ...(l.software ? { software: l.software } : {}),
      receipts: {
        issued: l.receipts.issued,
        acknowledged: l.receipts.acknowledged,
        ...(o.detail ? { customers: l.receipts.customers } : {}),
        ...(l.receipts.lastAt !== null ? { last_at: iso(l.receipts.lastAt) } : {}),
      },
    }),
  },
  {
    kind: 'moment',
    fields: (l, o) => {
      const answering = answersNow(l, o.nowMs, o.answeringHours);
      return { answering, online: answering, not_answering_since: notAnsweringSinceIso(l, o, answering) };
    },
    sameAtEveryMoment: (l) => l.source !== 'member',
    text: (l, o) => {
      const answering = answersNow(l, o.nowMs, o.answeringHours);
      const since = notAnsweringSinceIso(l, o, answering);
      return `"answering":${answering},"online":${answering},"not_answering_since":${since === null ? 'null' : `"${since}"`}`;
    },
  },
  {
    kind: 'moment',
    fields: (_l, o) => (o.placement ? { rank_pos: o.placement.rankPos, rank_shuffle: o.placement.shuffle } : {}),
    text: (_l, o) => (o.placement ? `"rank_pos":${jsonNumber(o.placement.rankPos)},"rank_shuffle":${JSON.stringify(o.placement.shuffle)}` : ''),
  },
  {
    // A member's reputation from the last nightly snapshot, under the rules version it was computed by.
    kind: 'fixed',
    fields: (l, o) => (l.source === 'member' && l.reputation ? { reputation: reputationView(l.reputation, o.baseUrl) } : {}),
  },
  {
    // A member the snapshot has not scored yet (verified since the last midnight): no record, under the rules in force.
    kind: 'moment',
    fields: (l, o) => (hasNoRecord(l) ? { reputation: { ...EMPTY_REPUTATION, rules: o.rulesVersion, rules_url: o.rulesUrl } } : {}),
    sameAtEveryMoment: (l) => !hasNoRecord(l),
    text: (l, o) =>
      hasNoRecord(l)
        ? `"reputation":{"ranked":false,"score":0,"tier":"new","kept":0,"broken":0,"customers":0,"verified_share":0,"rules":${jsonNumber(o.rulesVersion)},"rules_url":${JSON.stringify(o.rulesUrl)}}`
        : '',
  },
  {
    kind: 'fixed',
    fields: (l) => ({
      source: l.source,
      claimed: l.claimed,
      ...(l.proof ? { proof: l.proof } : {}),
    }),
  },
  {
    // level, has_inbox, doors, requestable, accepts: a member's follow its inbox answering or not
    kind: 'moment',
    fields: doorFields,
    sameAtEveryMoment: (l) => l.source !== 'member',
  },
  {
    kind: 'fixed',
    fields: (l, o) => {
      const member = l.source === 'member';
      const primary = l.placeCategory;
      return {
        ...(primary
          ? {
              category: {
                primary,
                alternates: l.placeAlternates.slice(0, 2),
                path: o.categoryPath(primary.id),
                ...(l.categories[0] ? { group: l.categories[0] } : {}),
              },
            }
          : {}),
        attributes: shownAttributes(l.attributes),
        ...(!member && l.place
          ? {
              place: {
                kind: l.place.kind,
                ...(l.place.locality ? { locality: l.place.locality } : {}),
                ...(l.place.region ? { region: l.place.region } : {}),
                ...(l.place.country ? { country: l.place.country } : {}),
                ...(l.place.serviceArea
                  ? {
                      service_area: {
                        ...(l.place.serviceArea.radiusKm ? { radius_km: l.place.serviceArea.radiusKm } : {}),
                        ...(l.place.serviceArea.countries ? { countries: l.place.serviceArea.countries } : {}),
                      },
                    }
                  : {}),
                ...(l.place.shipsTo ? { ships_to: l.place.shipsTo } : {}),
              },
            }
          : {}),
      };
    },
  },
  {
    kind: 'moment',
    fields: (l, o) => (o.placement ? { why: whyNow(l, o.placement, o) } : {}),
    text: (l, o) => (o.placement ? `"why":${JSON.stringify(whyNow(l, o.placement, o))}` : ''),
  },
  {
    kind: 'fixed',
    fields: (l, o) => ({
      ...(l.found ? { found: { note: l.found.note, checked_at: iso(l.found.checkedAt), about_url: aboutFoundUrl(o.baseUrl, l.domain) } } : {}),
      ...(o.detail ? { outcomes: l.outcomes } : {}),
    }),
  },
];

const EMPTY_REPUTATION = Object.freeze({ ranked: false, score: 0, tier: 'new', kept: 0, broken: 0, customers: 0, verified_share: 0 });

function hasNoRecord(l: Pick<ListingMomentFields, 'source' | 'reputation'>): boolean {
  return l.source === 'member' && !l.reputation;
}

/** directory spec §2 Reputation. */
function reputationView(r: ListingReputation, baseUrl: string) {
  return {
    ranked: r.ranked,
    score: r.score,
    tier: r.tier,
    kept: r.kept,
    broken: r.broken,
    customers: r.customers,
    verified_share: r.verifiedShare,
    rules: r.rules,
    rules_url: `${baseUrl}/v1/ranking?version=${r.rules}`,
  };
}

/** Whether the hours a view shows depend on the moment (only closures do: those that ended are left out). */
export function hoursShownByMoment(l: Pick<ListingRecord, 'hours'>): boolean {
  return l.hours !== null && l.hours.closures.length > 0;
}


export function listingView(l: ListingRecord, o: ViewOptions): Record<string, unknown> {
  const view: Fields = {};
  for (const section of VIEW_SECTIONS) Object.assign(view, section.fields(l, o));
  // The detail of a business that is not a member: every value shown above that it published, as shown,
  // with its source and date (listing-facts.ts). Facts of phone numbers or e-mail addresses are never
  // among them: only fields the view shows are, and it shows none of those.
  if (o.detail && l.source !== 'member') view.facts = listingFacts(l, view);
  return view;
}
