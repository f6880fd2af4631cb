import { beforeAll, describe, expect, it } from 'vitest';
import { DateTime, IANAZone } from 'luxon';
import {
  DOOR_TYPES,
  ITEM_TYPES,
  REQUEST_KINDS,
  WEEKDAYS,
  levelRank,
  listingLevel,
} from '../src/domain/listings/listing.js';
import {
  generateDemoListings,
  generateListings,
  slugify,
  type GeneratedListing,
} from '../src/demo/listing-generator.js';
import { cityTimeZone, findCity } from '../src/demo/cities.js';
import { GROUPS } from '../src/demo/listing-vocab.js';

const NOW = Date.UTC(2026, 4, 15, 10, 30); // Fri 15 May 2026
const SEED = 424_242;
const N = 20_000;

const TIME = /^([01]\d|2[0-3]):[0-5]\d$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;
const LANGUAGE_TAG = /^[a-z]{2,3}(-[a-z0-9]{2,8})*$/;
const DOMAIN = /^[a-z]([a-z-]*[a-z])?(-\d+)?(\.[a-z]{2,})+$/;
const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const ATTRIBUTE_KEYS = new Set([
  'on_site', 'delivery', 'takeaway', 'pickup', 'remote', 'home_visits', 'booking_required', 'walk_ins', 'same_day',
  'step_free_entrance', 'wifi', 'parking', 'outdoor_seating', 'vegan_options', 'vegetarian_options',
  'gluten_free_options', 'family_friendly', 'pets_welcome', 'free_estimates', 'emergency_service',
]);
const GROUP_SLUGS = new Set(GROUPS.map((g) => g.slug));
const PRICED = new Set(GROUPS.filter((g) => g.priced).map((g) => g.slug));

let listings: GeneratedListing[] = [];

beforeAll(() => {
  listings = [...generateListings({ count: N, seed: SEED, nowMs: NOW })];
}, 60_000);

/** Every string in a value, with the key it sits under. */
function* strings(value: unknown, key = ''): Generator<[string, string]> {
  if (typeof value === 'string') yield [key, value];
  else if (Array.isArray(value)) for (const item of value) yield* strings(item, key);
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) yield* strings(v, k);
}

function* keys(value: unknown): Generator<string> {
  if (Array.isArray(value)) for (const item of value) yield* keys(item);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      yield k;
      yield* keys(v);
    }
  }
}

/** The 48-bit time prefix of a ULID. */
function decodeTime(id: string): number {
  const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
  let t = 0;
  for (const ch of id.slice(0, 10)) t = t * 32 + alphabet.indexOf(ch);
  return t;
}

function distanceKm(a: { lat: number; lng: number }, b: { lat: number; lng: number }): number {
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLng = (b.lng - a.lng) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLng / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.sqrt(h));
}

describe('generateListings: determinism and uniqueness', () => {
  it('gives the same first 50 listings for the same seed and a different set for another seed', () => {
    const take = (seed: number) => {
      const out: GeneratedListing[] = [];
      for (const l of generateListings({ count: 50, seed, nowMs: NOW })) out.push(l);
      return out;
    };
    const a = take(7);
    const b = take(7);
    expect(a).toHaveLength(50);
    expect(b).toEqual(a);
    expect(listings.slice(0, 50)).toEqual(take(SEED));
    const c = take(8);
    expect(c.map((l) => l.domain)).not.toEqual(a.map((l) => l.domain));
  });

  // Were the listings made up front, a billion of them would never return and the test would time out.
  it('streams: taking a few listings of a huge count returns at once', () => {
    const it = generateListings({ count: 1_000_000_000, seed: 1, nowMs: NOW });
    const first = it.next();
    const second = it.next();
    expect(first.done).toBe(false);
    expect(second.done).toBe(false);
    it.return(undefined);
  });

  it('gives unique ids (ignoring case) and unique domains over 20 000 listings', () => {
    const ids = new Set(listings.map((l) => l.id.toLowerCase()));
    const domains = new Set(listings.map((l) => l.domain.toLowerCase()));
    expect(ids.size).toBe(N);
    expect(domains.size).toBe(N);
    audit((l, fail) => {
      if (!ULID.test(l.id)) fail(`id ${l.id}`);
      if (!DOMAIN.test(l.domain) || l.domain.split('.')[0]!.length > 63) fail('domain shape');
      if (Math.abs(decodeTime(l.id) - l.createdAt) > 0) fail('id time is not createdAt');
    });
  });

  it('rejects bad options', () => {
    expect(() => generateListings({ count: -1, seed: 1, nowMs: NOW })).toThrow(RangeError);
    expect(() => generateListings({ count: 1.5, seed: 1, nowMs: NOW })).toThrow(RangeError);
    expect(() => generateListings({ count: 1, seed: 1, nowMs: Number.NaN })).toThrow(RangeError);
    expect(() => generateListings({ count: 1, seed: 1, nowMs: NOW, countries: ['XX'] }).next()).toThrow(/no city/);
  });

  it('makes lowercase ascii slugs without digits', () => {
    expect(slugify('Padaria São João')).toBe('padaria-sao-joao');
    expect(slugify('Bäckerei Müller & Söhne')).toBe('backerei-muller-sohne');
    expect(slugify('Patel’s Bakery 24h')).toBe('patels-bakery-h');
    expect(slugify('Yıldız Łódź Øster')).toBe('yildiz-lodz-oster');
  });
});

/**
 * Checks every listing without one `expect` per field (20 000 listings x 50 fields would take
 * vitest tens of seconds): problems are collected, and the test shows the first few.
 */
function audit(check: (l: GeneratedListing, fail: (what: string) => void) => void): void {
  const problems: string[] = [];
  for (const l of listings) {
    check(l, (what) => {
      if (problems.length < 10) problems.push(`${l.domain} (${l.source}, ${l.categories[0]}): ${what}`);
      else problems.length++;
    });
  }
  expect(problems.slice(0, 10), `${problems.length} problems`).toEqual([]);
}

const isIn = <T,>(list: readonly T[], value: T) => list.includes(value);

describe('generateListings: every listing keeps the rules of ListingRecord', () => {
  it('has a place: country, region, city, geo, address and place kind', () => {
    audit((l, fail) => {
      if (!/^[A-Z]{2}$/.test(l.country ?? '')) fail(`country ${l.country}`);
      if (!l.city) fail('no city');
      if (l.address?.country !== l.country || l.address?.locality !== l.city) fail('address does not match the city');
      if (l.place?.country !== l.country) fail('place country');
      if (l.kind === 'software_and_ai') {
        if (l.geo !== null) fail('software with geo');
        if (l.place?.kind.join() !== 'online') fail('software not online');
      } else {
        if (!l.geo || Math.abs(l.geo.lat) > 90 || Math.abs(l.geo.lng) > 180) fail(`geo ${JSON.stringify(l.geo)}`);
        if (l.place?.kind.length !== 1 || l.place.locality !== l.city) fail('place');
      }
      const group = l.categories[0];
      if (group === 'trades' || group === 'cleaning') {
        const area = l.place?.serviceArea;
        if (l.place?.kind.join() !== 'service_area') fail('trades/cleaning without a service area');
        if (!area?.radiusKm || area.radiusKm < 5 || area.radiusKm > 50) fail(`radius ${area?.radiusKm}`);
        if (area?.countries?.join() !== l.country) fail('service area countries');
      }
      for (const c of l.place?.shipsTo ?? []) if (!/^[A-Z]{2}$/.test(c)) fail(`shipsTo ${c}`);
      if (l.source === 'found' && l.address?.street !== undefined) fail('found listing shows a street');
      if (l.source !== 'found' && !l.address?.street) fail('claimed listing without a street');
    });
  });

  it('has hours in a valid IANA zone, HH:MM windows, at most 6 a day, and closures in the coming weeks', () => {
    const zones = new Map<string, boolean>();
    audit((l, fail) => {
      if (!l.hours) return;
      const zone = l.hours.timezone;
      if (!zones.has(zone)) zones.set(zone, IANAZone.isValidZone(zone));
      if (!zones.get(zone)) fail(`zone ${zone}`);
      const days = Object.keys(l.hours.weekly);
      if (days.length === 0) fail('hours without a day');
      for (const day of days) {
        if (!isIn(WEEKDAYS as readonly string[], day)) fail(`day ${day}`);
        const windows = l.hours.weekly[day as (typeof WEEKDAYS)[number]] ?? [];
        if (windows.length === 0 || windows.length > 6) fail(`${windows.length} windows on ${day}`);
        for (const [opens, closes] of windows) if (!TIME.test(opens) || !TIME.test(closes)) fail(`window ${opens}-${closes}`);
      }
      if (l.hours.closures.length > 0) {
        const today = DateTime.fromMillis(NOW, { zone }).toISODate()!;
        const horizon = DateTime.fromISO(today).plus({ weeks: 6 }).toISODate()!;
        for (const { from, to } of l.hours.closures) {
          if (!DATE.test(from) || !DATE.test(to)) fail(`closure ${from}..${to}`);
          if (!(from > today && from <= horizon && to >= from)) fail(`closure ${from}..${to} (today ${today})`);
        }
      }
    });
    expect(zones.size).toBeGreaterThan(50);
  });

  it('has lowercase BCP 47 languages, 1-5 services, 2-5 tags, a one-sentence description and its own url', () => {
    audit((l, fail) => {
      if (l.languages.length === 0) fail('no language');
      for (const tag of l.languages) if (!LANGUAGE_TAG.test(tag)) fail(`language ${tag}`);
      if (new Set(l.languages).size !== l.languages.length) fail('repeated language');
      if (l.services.length < 1 || l.services.length > 5) fail(`${l.services.length} services`);
      for (const s of l.services) {
        if (!s.name || s.name.length > 80) fail(`service name ${s.name}`);
        if (!isIn(['booking', 'order', 'quote_request'], s.type)) fail(`service type ${s.type}`);
      }
      if (new Set(l.services.map((s) => s.name)).size !== l.services.length) fail('repeated service');
      if (l.tags.length < 2 || l.tags.length > 5) fail(`${l.tags.length} tags`);
      const text = (l.description ?? '').replace(l.city ?? '', 'X').replace(l.name, 'N');
      if (!/^\S[^.!?]*\.$/.test(text)) fail(`description ${l.description}`);
      if (l.url !== `https://${l.domain}/`) fail(`url ${l.url}`);
      if (l.categories.length !== 1 || !GROUP_SLUGS.has(l.categories[0]!)) fail(`categories ${l.categories}`);
      if (l.placeCategory !== null || l.placeAlternates.length !== 0) fail('place category without placeCategoryOf');
    });
  });

  it('is agent-ready: a live door at askable or above, kinds that fit each door level, item types that fit the doors', () => {
    audit((l, fail) => {
      if (l.doors.length < 1 || l.doors.length > 3) fail(`${l.doors.length} doors`);
      if (levelRank(listingLevel(l.doors)) < levelRank('askable')) fail('not agent-ready');
      const kinds = new Set<string>();
      for (const door of l.doors) {
        if (!isIn(DOOR_TYPES as readonly string[], door.type) && !/^platform:[a-z0-9-]{1,40}$/.test(door.type)) fail(`door type ${door.type}`);
        if (!/^https:\/\/\S+$/.test(door.url)) fail(`door url ${door.url}`);
        if (!isIn(['askable', 'bookable', 'payable'], door.level)) fail(`door level ${door.level}`);
        if (!isIn(['live', 'failing'], door.status) || !isIn(['declared', 'seen'], door.src)) fail('door status or src');
        if (!door.kinds.includes('ask')) fail('door does not take ask');
        for (const k of door.kinds) if (!isIn(REQUEST_KINDS as readonly string[], k)) fail(`kind ${k}`);
        if (door.kinds.includes('pay') !== (door.level === 'payable')) fail(`pay on a ${door.level} door`);
        const transacts = door.kinds.some((k) => k === 'book' || k === 'order');
        if (transacts !== (door.level !== 'askable')) fail(`kinds ${door.kinds} on a ${door.level} door`);
        if (door.checkedAt !== undefined && !ISO.test(door.checkedAt)) fail(`checkedAt ${door.checkedAt}`);
        for (const k of door.kinds) kinds.add(k);
      }
      for (const t of l.itemTypes) if (!isIn(ITEM_TYPES as readonly string[], t)) fail(`item type ${t}`);
      const has = (t: string) => (l.itemTypes as string[]).includes(t);
      if (!has('message')) fail('no message item type');
      if (has('booking') !== kinds.has('book') || has('order') !== kinds.has('order') || has('quote_request') !== kinds.has('quote')) {
        fail(`item types ${l.itemTypes} for kinds ${[...kinds]}`);
      }
      const serviceTypes = new Set<string>(l.services.map((s) => s.type));
      if (kinds.has('book') && !serviceTypes.has('booking')) fail('books without a booking service');
      if (kinds.has('order') && !serviceTypes.has('order')) fail('orders without an order service');
    });
  });

  it('has the fields of its source', () => {
    audit((l, fail) => {
      if (!(l.createdAt <= l.updatedAt && l.updatedAt <= NOW)) fail('createdAt <= updatedAt <= now');
      if (l.delistedAt !== null) fail('delisted');
      if (l.source === 'member') {
        const inbox = l.doors.find((d) => d.type === 'inbox');
        if (!inbox || !isIn(['bookable', 'payable'], inbox.level) || inbox.status !== 'live') fail('member inbox door');
        for (const p of ['rest', 'openapi', 'mcp']) if (!l.protocols[p]?.startsWith(`https://${l.domain}/`)) fail(`protocol ${p}`);
        if (l.manifestUrl !== `https://${l.domain}/.well-known/agent-inbox.json`) fail(`manifestUrl ${l.manifestUrl}`);
        if (l.verifiedAt === null || l.lastPingAt === null || l.memberSince === null) fail('member dates missing');
        else if (!(l.memberSince <= l.lastPingAt && l.lastPingAt <= NOW && l.verifiedAt <= NOW)) fail('member dates out of order');
        if (l.software?.runtime !== 'node' || !/^\d+\.\d+\.\d+$/.test(l.software.version)) fail('member software');
        if (!l.claimed || l.found !== null) fail('member claimed/found');
        const r = l.receipts;
        if (r.acknowledged > r.issued || r.customers > r.issued || (r.issued > 0) !== (r.lastAt !== null)) fail(`receipts ${JSON.stringify(r)}`);
        for (const n of Object.values(l.outcomes)) if (!Number.isInteger(n) || n < 0) fail(`outcome ${n}`);
        if (l.dormantSince !== null && l.lastPingAt !== null && l.lastPingAt > l.dormantSince) fail('pinged after going dormant');
      } else {
        if (l.doors.some((d) => d.type === 'inbox')) fail('inbox door without membership');
        if (Object.keys(l.protocols).length > 0) fail('protocols without membership');
        if (l.manifestUrl ?? l.verifiedAt ?? l.lastPingAt ?? l.memberSince ?? l.software ?? l.dormantSince) fail('member fields set');
        const r = l.receipts;
        if (r.issued || r.acknowledged || r.customers || r.lastAt !== null) fail('receipts on a non-member');
        if (Object.keys(l.outcomes).length > 0) fail('outcomes on a non-member');
        if (l.facts.length === 0) fail('no facts');
        for (const f of l.facts) {
          if (!ISO.test(f.at) || Date.parse(f.at) > NOW || !isIn(['declared', 'seen'], f.src)) fail(`fact ${f.field}`);
        }
      }
      if (l.source === 'registered' && (!l.claimed || l.proof !== 'domain' || l.found !== null)) fail('registered fields');
      if (l.source === 'found') {
        if (l.claimed || l.proof !== null) fail('found but claimed');
        const found = l.found;
        if (!found?.note || !(found.checkedAt > 0)) fail('found fields');
        else if (!(found.checkedAt <= NOW && found.checkedAt >= l.createdAt)) fail('found.checkedAt');
        if (!l.facts.some((f) => f.field === 'name' && f.v === l.name && f.src === 'seen')) fail('no fact for the name');
      }
    });
  });

  it('has kinds, attributes, payments and price bands that fit the category', () => {
    audit((l, fail) => {
      const software = l.categories[0] === 'software-ai';
      if (l.kind !== (software ? 'software_and_ai' : 'local_and_retail')) fail(`kind ${l.kind}`);
      if (software && l.hours !== null) fail('software with hours');
      const attributes = Object.entries(l.attributes);
      if (attributes.length < 2) fail('fewer than 2 attributes');
      for (const [key, value] of attributes) {
        if (!ATTRIBUTE_KEYS.has(key)) fail(`attribute ${key}`);
        if (typeof value.v !== 'boolean' || !isIn(['declared', 'seen'], value.src)) fail(`attribute value ${key}`);
      }
      if (l.attributes.booking_required?.v && l.attributes.walk_ins?.v) fail('booking required and walk-ins');
      for (const p of l.payments) if (!/^[a-z0-9_]+$/.test(p)) fail(`payment ${p}`);
      if (new Set(l.payments).size !== l.payments.length) fail('repeated payment');
      if (PRICED.has(l.categories[0]!)) {
        if (!isIn([1, 2, 3, 4], l.priceBand)) fail(`priceBand ${l.priceBand}`);
      } else if (l.priceBand !== null) fail('priceBand on an unpriced category');
    });
  });

  it('never holds a phone number or an e-mail address', () => {
    const phone = /\+?\d[\d ().-]{7,}\d/;
    audit((l, fail) => {
      for (const key of keys(l)) if (/phone|email|e_mail|telephone|fax/i.test(key)) fail(`key ${key}`);
      for (const [key, text] of strings(l)) {
        if (text.includes('@') || /mailto:|tel:\s*\+?\d/i.test(text)) fail(`${key}: ${text}`);
        if (key === 'id' || key === 'postalCode' || ISO.test(text) || DATE.test(text)) continue;
        if (phone.test(text)) fail(`${key}: ${text}`);
      }
    });
  });
});

describe('generateListings: a realistic spread', () => {
  it('mixes sources, kinds, hours and countries in about the planned shares', () => {
    const share = (pred: (l: GeneratedListing) => boolean) => listings.filter(pred).length / N;
    expect(share((l) => l.source === 'member')).toBeGreaterThan(0.04);
    expect(share((l) => l.source === 'member')).toBeLessThan(0.06);
    expect(share((l) => l.source === 'registered')).toBeGreaterThan(0.13);
    expect(share((l) => l.source === 'registered')).toBeLessThan(0.17);
    expect(share((l) => l.source === 'found')).toBeGreaterThan(0.77);
    expect(share((l) => l.source === 'found')).toBeLessThan(0.83);
    const software = listings.filter((l) => l.categories[0] === 'software-ai');
    expect(software.length / N).toBeGreaterThan(0.023);
    expect(software.length / N).toBeLessThan(0.037);
    expect(software.every((l) => l.kind === 'software_and_ai')).toBe(true);
    expect(share((l) => l.kind === 'software_and_ai')).toBe(software.length / N);
    const local = listings.filter((l) => l.kind === 'local_and_retail');
    const noHours = local.filter((l) => l.hours === null).length / local.length;
    expect(noHours).toBeGreaterThan(0.12);
    expect(noHours).toBeLessThan(0.18);
    expect(share((l) => (l.hours?.closures.length ?? 0) > 0)).toBeGreaterThan(0.03);
    expect(share((l) => (l.hours?.closures.length ?? 0) > 0)).toBeLessThan(0.07);
    expect(share((l) => l.dormantSince !== null)).toBeLessThan(0.002);
    expect(share((l) => l.doors.some((d) => d.status === 'failing'))).toBeGreaterThan(0.01);
    expect(share((l) => l.doors.some((d) => d.type.startsWith('platform:')))).toBeGreaterThan(0.05);
    expect(new Set(listings.map((l) => l.country)).size).toBeGreaterThanOrEqual(20);
    expect(new Set(listings.map((l) => l.categories[0])).size).toBe(GROUPS.length);
    expect(share((l) => /^[a-z]/.test(l.domain) && /-\d+\./.test(l.domain))).toBeLessThan(0.08);
  });

  it('has some listings open past midnight and some open around the clock', () => {
    const pastMidnight = listings.filter((l) =>
      Object.values(l.hours?.weekly ?? {}).some((ws) => ws.some(([o, c]) => c < o)),
    );
    const allDay = listings.filter((l) => Object.values(l.hours?.weekly ?? {}).some((ws) => ws.some(([o, c]) => o === c)));
    expect(pastMidnight.length).toBeGreaterThan(100);
    expect(allDay.length).toBeGreaterThan(50);
  });

  it('writes names in the local language', () => {
    const portuguese = listings.filter((l) => l.country === 'BR' && l.categories[0] === 'bakery');
    expect(portuguese.length).toBeGreaterThan(0);
    for (const l of portuguese) {
      expect(l.name).toMatch(/Padaria|Panificadora|Confeitaria|Pastelaria/);
      expect(l.languages[0]).toBe('pt-br');
      expect(l.domain).toMatch(/\.(com\.br|com)$/);
    }
    const german = listings.filter((l) => l.country === 'DE' && l.kind === 'local_and_retail');
    expect(german.length).toBeGreaterThan(10);
    expect(german.every((l) => l.languages[0] === 'de')).toBe(true);
    const mexican = listings.filter((l) => l.country === 'MX' && l.kind === 'local_and_retail');
    expect(mexican.every((l) => l.languages[0] === 'es-mx')).toBe(true);
  });

  it('puts a Lisbon-area listing in Europe/Lisbon', () => {
    const lisbon = { lat: 38.7223, lng: -9.1393 };
    const near = [...generateListings({ count: 400, seed: 3, nowMs: NOW, countries: ['PT'] })].filter(
      (l) => l.geo && l.hours && distanceKm(l.geo, lisbon) < 30,
    );
    expect(near.length).toBeGreaterThan(5);
    for (const l of near) expect(l.hours!.timezone).toBe('Europe/Lisbon');
    const city = findCity('Lisboa', 'PT');
    expect(city).toBeGreaterThanOrEqual(0);
    expect(cityTimeZone(city)).toBe('Europe/Lisbon');
    for (const l of listings.filter((x) => x.country === 'PT' && x.hours)) {
      expect(['Europe/Lisbon', 'Atlantic/Azores', 'Atlantic/Madeira']).toContain(l.hours!.timezone);
    }
  });

  it('takes the place category from placeCategoryOf', () => {
    const asked: string[] = [];
    const out = [
      ...generateListings({
        count: 200,
        seed: 5,
        nowMs: NOW,
        placeCategoryOf: (group, rand) => {
          asked.push(group);
          return group === 'bakery' ? null : { id: `${group}-${Math.floor(rand() * 3)}`, label: group };
        },
      }),
    ];
    expect(asked).toHaveLength(200);
    for (const [i, l] of out.entries()) {
      expect(asked[i]).toBe(l.categories[0]);
      if (l.categories[0] === 'bakery') expect(l.placeCategory).toBeNull();
      else {
        expect(l.placeCategory?.label).toBe(l.categories[0]);
        expect(l.placeCategory?.id.startsWith(`${l.categories[0]}-`)).toBe(true);
        expect(l.placeCategory?.src).toBe('declared');
      }
    }
  });

  it('gives the demo an array', () => {
    const demo = generateDemoListings(300, NOW);
    expect(demo).toHaveLength(300);
    expect(new Set(demo.map((l) => l.domain)).size).toBe(300);
    expect(generateDemoListings(300, NOW)).toEqual(demo);
  });
});
