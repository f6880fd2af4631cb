/**
 * Deterministic generator of realistic directory listings for demos, load tests and benchmarks.
 *
 * Every listing sits in a real city (GeoNames, picked by population) with its real IANA time zone,
 * is named in the local language from per-category word lists, has a unique domain derived from its
 * name, hours that fit its category, services, doors an agent can use, and the fields of its source
 * (member, registered or found). The same seed and `nowMs` give the same listings, one at a time:
 * the generator streams, so a million listings need no more memory than the city table.
 */
import { DateTime } from 'luxon';
import type {
  Door,
  Fact,
  Hours,
  ItemType,
  Level,
  ListingRecord,
  ListingService,
  Place,
  RequestKind,
  Source,
  ValueSource,
  Weekday,
} from '../domain/listings/listing.js';
import { WEEKDAYS } from '../domain/listings/listing.js';
import { cityTable, citySampler, cityTimeZone } from './cities.js';
import type { GroupDef, Head, L6, NameLang, ServiceType, ServiceWord } from './listing-vocab.js';
import {
  FOUND_NOTES,
  GROUPS,
  NAME_LANGS,
  PLACE_WORDS,
  SOFTWARE_AUDIENCES,
  SOFTWARE_PREFIXES,
  SOFTWARE_SUFFIXES,
  SOFTWARE_THINGS,
  STREETS,
  SURNAME_POOL_BY_COUNTRY,
  SURNAMES,
} from './listing-vocab.js';
import { countryTld, languageTags, LOCAL_PAYMENTS, nameLanguage, postalCode } from './locale.js';
import type { Rand } from './prng.js';
import { chance, cumulative, hashString, int, mix32, pick, sample, sfc32, weightedIndex } from './prng.js';

export type GeneratedListing = Omit<ListingRecord, 'seq'>;

export interface GenerateListingsOptions {
  /** How many listings to yield. */
  count: number;
  /** PRNG seed: the same seed (and nowMs) gives the same listings. */
  seed: number;
  /** "Now" of the data set: every date is at or before it, closures are after it. */
  nowMs: number;
  /** Place category of a listing of a group (id and label of the taxonomy), or null; called once per listing. */
  placeCategoryOf?: (group: string, rand: () => number) => { id: string; label: string } | null;
  /** Only cities of these countries (ISO 3166-1 alpha-2). Default: the whole world. */
  countries?: readonly string[];
}

/** Share of listings per source. */
export const SOURCE_SHARES = { member: 0.05, registered: 0.15, found: 0.8 } as const;

const DAY = 86_400_000;
const HOUR = 3_600_000;

// ---------------------------------------------------------------------------------------------
// Static tables, built once.

const GROUP_CUM = cumulative(GROUPS.map((g) => g.weight));
const LANG_INDEX: Record<NameLang, number> = { en: 0, pt: 1, es: 2, fr: 3, de: 4, it: 5 };
const COMMERCE = new Set(['grocery', 'shop', 'florist', 'crafts', 'bakery', 'software-ai']);

type WeeklyTemplate = ([string, string][] | undefined)[];
const DAY_INDEX: Record<string, number> = { mon: 0, tue: 1, wed: 2, thu: 3, fri: 4, sat: 5, sun: 6 };
const TIME = /^([01]\d|2[0-3]):[0-5]\d$/;

/** Parses `mon-fri 09:00-13:00,14:00-19:00; sat 09:00-13:00` (later segments replace earlier days). */
export function parseHoursTemplate(template: string): WeeklyTemplate {
  const week: WeeklyTemplate = [undefined, undefined, undefined, undefined, undefined, undefined, undefined];
  for (const segment of template.split(';')) {
    const [days, windows] = segment.trim().split(/\s+/);
    if (!days || !windows) throw new Error(`bad hours template: ${template}`);
    const [from, to = from] = days.split('-');
    const start = DAY_INDEX[from ?? ''];
    const end = DAY_INDEX[to ?? ''];
    if (start === undefined || end === undefined || end < start) throw new Error(`bad days in ${template}`);
    const parsed = windows.split(',').map((w) => {
      const [opens, closes] = w.split('-');
      if (!opens || !closes || !TIME.test(opens) || !TIME.test(closes)) throw new Error(`bad window in ${template}`);
      return [opens, closes] as [string, string];
    });
    if (parsed.length > 6) throw new Error(`more than 6 windows in ${template}`);
    for (let d = start; d <= end; d++) week[d] = parsed;
  }
  return week;
}

for (const group of GROUPS) {
  for (const head of group.heads) {
    for (const i of head.services ?? []) if (!group.services[i]) throw new Error(`${group.slug}: no service ${i}`);
  }
}

const HOURS_TEMPLATES = new Map<string, WeeklyTemplate[]>(GROUPS.map((g) => [g.slug, g.hours.map(parseHoursTemplate)]));

const PLATFORM_HOSTS: Record<string, string> = {
  thefork: 'www.thefork.com',
  opentable: 'www.opentable.com/r',
  'uber-eats': 'www.ubereats.com/store',
  glovo: 'glovoapp.com/store',
  toogoodtogo: 'share.toogoodtogo.com/store',
  designmynight: 'www.designmynight.com/venue',
  instacart: 'www.instacart.com/store',
  shopify: 'shop.app',
  booksy: 'booksy.com/en/b',
  fresha: 'www.fresha.com/a',
  treatwell: 'www.treatwell.com/place',
  mindbody: 'www.mindbodyonline.com/explore/locations',
  classpass: 'classpass.com/studios',
  glofox: 'app.glofox.com/portal',
  doctolib: 'www.doctolib.fr/cabinet',
  zocdoc: 'www.zocdoc.com/practice',
  checkatrade: 'www.checkatrade.com/trades',
  thumbtack: 'www.thumbtack.com/pro',
  habitissimo: 'www.habitissimo.com/pro',
  helpling: 'www.helpling.com/provider',
  eventbrite: 'www.eventbrite.com/o',
  dice: 'dice.fm/venue',
  'booking-com': 'www.booking.com/hotel',
  airbnb: 'www.airbnb.com/h',
  expedia: 'www.expedia.com/hotel',
  getyourguide: 'www.getyourguide.com/supplier',
  viator: 'www.viator.com/operator',
  fareharbor: 'fareharbor.com',
  rover: 'www.rover.com/members',
  interflora: 'www.interflora.com/florist',
  etsy: 'www.etsy.com/shop',
};

const DOOR_PROTOCOL: Record<string, string> = {
  mcp: 'mcp/streamable-http',
  a2a: 'a2a/0.3',
  openapi: 'openapi/3.1',
  api: 'rest',
  ucp: 'ucp/1',
  acp: 'acp/1',
};

const SHIP_MARKETS = ['US', 'GB', 'DE', 'FR', 'ES', 'IT', 'PT', 'NL', 'BE', 'IE', 'CA', 'BR', 'AU', 'CH', 'AT'];
const LETTERS = [...'ABCDEFGHJKLMNPRSTUVWXYZ'];
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

// ---------------------------------------------------------------------------------------------
// Small helpers.

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** `value` (< 2^50) as `chars` Crockford base32 digits. */
function base32(value: number, chars: number): string {
  let out = '';
  for (let i = 0; i < chars; i++) {
    out = CROCKFORD[value % 32] + out;
    value = Math.floor(value / 32);
  }
  return out;
}

/** ULID-shaped id: 48-bit time, 48 random bits, then a bijection of the counter (so ids never repeat within a run). */
function makeId(createdAt: number, counter: number, salt: number, rand: Rand): string {
  const time = Math.max(0, Math.min(createdAt, 2 ** 48 - 1));
  const r40 = Math.floor(rand() * 2 ** 40);
  const r8 = Math.floor(rand() * 256);
  const unique = mix32((counter ^ salt) >>> 0);
  return base32(time, 10) + base32(r40, 8) + base32(r8 * 2 ** 32 + unique, 8);
}

/** Lowercase ASCII words joined by hyphens; never contains digits (domain suffixes rely on it). */
export function slugify(text: string, maxLength = 40): string {
  let s = text
    .replace(/[’'`]/g, '')
    .replace(/ß/g, 'ss')
    .replace(/[æÆ]/g, 'ae')
    .replace(/[øØ]/g, 'o')
    .replace(/[œŒ]/g, 'oe')
    .replace(/[łŁ]/g, 'l')
    .replace(/ı/g, 'i')
    .replace(/[đĐ]/g, 'd')
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z]+/g, '-')
    .replace(/^-+|-+$/g, '');
  if (s.length > maxLength) {
    const cut = s.lastIndexOf('-', maxLength);
    s = s.slice(0, cut > 3 ? cut : maxLength).replace(/-+$/g, '');
  }
  return s;
}

/**
 * Hands out domains that are unique over the whole run with fixed memory: a counter per hash slot.
 * The first claim of a slot gets the plain name, later claims get `-2`, `-3`... Two names sharing a
 * slot only cost a needless suffix, never a duplicate, since names never end in `-<digits>`.
 */
class DomainRegistry {
  /** Claims per slot (16 bits; a slot past 65 535 claims continues in `overflow`). 32 MB at most. */
  private readonly slots: Uint16Array;
  private readonly overflow = new Map<number, number>();
  private readonly mask: number;

  constructor(expected: number) {
    let size = 1 << 12;
    while (size < expected * 16 && size < 1 << 24) size <<= 1;
    this.slots = new Uint16Array(size);
    this.mask = size - 1;
  }

  claim(label: string, tld: string): string {
    const slot = hashString(`${label}.${tld}`) & this.mask;
    let n = this.slots[slot] as number;
    if (n < 0xffff) this.slots[slot] = n + 1;
    else {
      n = this.overflow.get(slot) ?? n;
      this.overflow.set(slot, n + 1);
    }
    return n === 0 ? `${label}.${tld}` : `${label}-${n + 1}.${tld}`;
  }
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function lowerFirst(text: string, lang: NameLang): string {
  if (lang === 'de') return text;
  // Keep acronyms (VIP, DJ, IT) as written.
  if (text.length > 1 && text[1] === text[1]?.toUpperCase() && /[A-Z]/.test(text[1] ?? '')) return text;
  return text.charAt(0).toLowerCase() + text.slice(1);
}

function word(l6: L6, lang: NameLang): string {
  return l6[LANG_INDEX[lang]] as string;
}

function surnamePool(lang: NameLang, country: string): readonly string[] {
  if (lang !== 'en') return SURNAMES[lang] as readonly string[];
  const pool = SURNAME_POOL_BY_COUNTRY[country];
  return (pool && SURNAMES[pool]) || (SURNAMES.en as readonly string[]);
}

function businessName(rand: Rand, group: GroupDef, kindOf: Head, lang: NameLang, country: string, city: string): string {
  const head = word(kindOf.names, lang);
  const surnames = surnamePool(lang, country);
  const s = pick(rand, surnames);
  const place = pick(rand, PLACE_WORDS[lang]);
  const r = rand();
  const shortCity = city.length <= 18 ? city : null;
  if (group.pro) {
    if (r < 0.3) {
      let s2 = pick(rand, surnames);
      if (s2 === s) s2 = pick(rand, surnames);
      return lang === 'en' ? `${s} & ${s2} ${head}` : `${s} & ${s2} ${head}`;
    }
    if (r < 0.85) return lang === 'en' ? `${s} ${head}` : `${head} ${s}`;
    if (shortCity) return lang === 'en' ? `${shortCity} ${head}` : lang === 'fr' ? `${head} de ${shortCity}` : `${head} ${shortCity}`;
    return lang === 'en' ? `${place} ${head}` : `${head} ${place}`;
  }
  if (lang === 'en') {
    if (r < 0.3) return `${s}’s ${head}`;
    if (r < 0.65) return `${place} ${head}`;
    if (r < 0.8 && shortCity) return `${shortCity} ${head}`;
    if (r < 0.9) return `The ${place} ${head}`;
    return `${s} & Sons ${head}`;
  }
  if (r < 0.42) return `${head} ${s}`;
  if (r < 0.8) return `${head} ${place}`;
  if (r < 0.92 && shortCity) return lang === 'fr' ? `${head} de ${shortCity}` : `${head} ${shortCity}`;
  return `${head} ${s}`;
}

function softwareName(rand: Rand): string {
  const pre = pick(rand, SOFTWARE_PREFIXES);
  const suf = pick(rand, SOFTWARE_SUFFIXES);
  if (chance(rand, 0.3)) return `${pre} ${pick(rand, SOFTWARE_PREFIXES)}${suf}`;
  return `${pre}${suf}`;
}

function describe(rand: Rand, group: GroupDef, lang: NameLang, city: string, services: ListingService[]): string {
  const noun = word(group.noun, lang);
  const Noun = capitalize(noun);
  const s1 = services[0] ? lowerFirst(services[0].name, lang) : '';
  const s2 = services[1] ? lowerFirst(services[1].name, lang) : null;
  const year = int(rand, 1965, 2024);
  const r = rand();
  switch (lang) {
    case 'pt':
      if (r < 0.2) return `${Noun} em ${city}, desde ${year}.`;
      return s2 ? `${Noun} em ${city} com ${s1} e ${s2}.` : `${Noun} em ${city}: ${s1}.`;
    case 'es':
      if (r < 0.2) return `${Noun} en ${city} desde ${year}.`;
      return s2 ? `${Noun} en ${city} con ${s1} y ${s2}.` : `${Noun} en ${city}: ${s1}.`;
    case 'fr':
      if (r < 0.2) return `${Noun} à ${city}, depuis ${year}.`;
      return s2 ? `${Noun} à ${city} : ${s1} et ${s2}.` : `${Noun} à ${city} : ${s1}.`;
    case 'de':
      if (r < 0.2) return `${Noun} in ${city}, seit ${year}.`;
      return s2 ? `${Noun} in ${city}: ${s1} und ${s2}.` : `${Noun} in ${city}: ${s1}.`;
    case 'it':
      if (r < 0.2) return `${Noun} a ${city}, dal ${year}.`;
      return s2 ? `${Noun} a ${city}: ${s1} e ${s2}.` : `${Noun} a ${city}: ${s1}.`;
    default:
      if (r < 0.2) return `Independent ${noun} in ${city}, open since ${year}.`;
      if (r < 0.5 && s2) return `Local ${noun} in ${city}: ${s1}, ${s2} and more.`;
      return s2 ? `${Noun} in ${city} offering ${s1} and ${s2}.` : `${Noun} in ${city} offering ${s1}.`;
  }
}

function localDateAfter(today: string, days: number): string {
  const y = Number(today.slice(0, 4));
  const m = Number(today.slice(5, 7));
  const d = Number(today.slice(8, 10));
  return new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10);
}

// ---------------------------------------------------------------------------------------------
// The generator.

interface Context {
  rand: Rand;
  nowMs: number;
  salt: number;
  domains: DomainRegistry;
  sampler: ReturnType<typeof citySampler>;
  cities: ReturnType<typeof cityTable>;
  todayByZone: Map<string, string>;
  placeCategoryOf: GenerateListingsOptions['placeCategoryOf'];
}

/**
 * Yields `count` listings, one at a time; deterministic for a seed and nowMs. Options are checked
 * at once (RangeError); the city table and its time zones load on the first call (about 2-3 s).
 */
export function generateListings(options: GenerateListingsOptions): Generator<GeneratedListing, void, undefined> {
  const { count, seed, nowMs } = options;
  if (!Number.isInteger(count) || count < 0) throw new RangeError('count must be a whole number >= 0');
  if (!Number.isFinite(seed)) throw new RangeError('seed must be a number');
  if (!Number.isFinite(nowMs) || nowMs < 3 * 365 * DAY) throw new RangeError('nowMs must be a time in ms');
  return stream(options);
}

function* stream(options: GenerateListingsOptions): Generator<GeneratedListing, void, undefined> {
  const { count, seed, nowMs } = options;
  const ctx: Context = {
    rand: sfc32(seed),
    nowMs: Math.floor(nowMs),
    salt: mix32(Math.trunc(seed) ^ 0x5bd1e995),
    domains: new DomainRegistry(count),
    sampler: citySampler(options.countries),
    cities: cityTable(),
    todayByZone: new Map(),
    placeCategoryOf: options.placeCategoryOf,
  };
  for (let i = 0; i < count; i++) yield makeListing(ctx, i);
}

/** A ready array of listings for the demo (3000 by default). */
export function generateDemoListings(count = 3000, nowMs: number = Date.now(), seed = 20_260_101): GeneratedListing[] {
  return [...generateListings({ count, seed, nowMs })];
}

function makeListing(ctx: Context, counter: number): GeneratedListing {
  const { rand, nowMs, cities } = ctx;
  const group = GROUPS[weightedIndex(rand, GROUP_CUM)] as GroupDef;
  const software = group.kind === 'software_and_ai';
  const cityIndex = ctx.sampler.indexes[weightedIndex(rand, ctx.sampler.cum)] as number;
  const city = cities.name[cityIndex] as string;
  const country = cities.country[cityIndex] as string;
  const region = (cities.region[cityIndex] as string) || null;
  const lang = software ? 'en' : nameLanguage(country, region ?? '');

  const r = rand();
  const source: Source = r < SOURCE_SHARES.member ? 'member' : r < SOURCE_SHARES.member + SOURCE_SHARES.registered ? 'registered' : 'found';
  const member = source === 'member';
  const dormant = member && chance(rand, 0.005);

  // Name and domain.
  const head = software ? null : pick(rand, group.heads);
  const name = head ? businessName(rand, group, head, lang, country, city) : softwareName(rand);
  let label = slugify(name);
  if (software || chance(rand, 0.35)) label = label.replace(/-/g, '');
  if (label.length < 2) label = `${slugify(word(group.noun, lang)) || 'shop'}-${slugify(city) || 'local'}`;
  const tld = software ? pick(rand, ['ai', 'ai', 'io', 'com', 'com', 'dev']) : chance(rand, 0.2) ? 'com' : countryTld(country);
  const domain = ctx.domains.claim(label, tld);
  const url = `https://${domain}/`;

  // Services, tags, description, languages.
  const services = pickServices(rand, group, head, lang, member);
  const serviceTypes = new Set<ServiceType>(services.map((s) => s.type));
  const tagPool = head?.tags ? [...head.tags, ...group.tags] : group.tags;
  const tags = sample(rand, tagPool, int(rand, 2, Math.min(5, tagPool.length)));
  const description = software
    ? `${name} builds ${pick(rand, SOFTWARE_THINGS)} for ${pick(rand, SOFTWARE_AUDIENCES)}.`
    : describe(rand, group, lang, city, services);
  const languages = pickLanguages(rand, country, region ?? '', software);

  // Where.
  const zone = cityTimeZone(cityIndex);
  const geo = software ? null : jitter(rand, cities.lat[cityIndex] as number, cities.lon[cityIndex] as number);
  const place = makePlace(rand, group, city, region, country);

  // Times.
  const times = makeTimes(rand, nowMs, source, dormant);

  // Hours.
  const hours = software || chance(rand, 0.15) ? null : makeHours(ctx, group, zone);

  // Doors and what they take.
  const doors = member
    ? [inboxDoor(rand, domain, serviceTypes, times.lastPingAt ?? nowMs)]
    : otherDoors(rand, group, source, domain, serviceTypes, times.checkedAt);
  const itemTypes = itemTypesOf(doors, member);
  const payable = doors.some((d) => d.level === 'payable');

  const attributes = makeAttributes(rand, group, source, place);
  const payments = makePayments(rand, group, country, payable, place);
  const priceBand = group.priced ? pickPriceBand(rand) : null;

  const placeRef = ctx.placeCategoryOf ? ctx.placeCategoryOf(group.slug, rand) : null;
  const placeCategory = placeRef ? { id: placeRef.id, label: placeRef.label, src: 'declared' as const } : null;

  const street = source === 'found' ? undefined : makeStreet(rand, lang);
  const address: GeneratedListing['address'] = street
    ? { street, locality: city, postalCode: postalCode(country, () => int(rand, 0, 9), () => pick(rand, LETTERS)), country }
    : { locality: city, country };
  if (address.postalCode === undefined) delete address.postalCode;

  const id = makeId(times.createdAt, counter, ctx.salt, rand);

  const listing: GeneratedListing = {
    id,
    domain,
    source,
    kind: group.kind,
    name,
    description,
    city,
    region,
    country,
    address,
    geo,
    categories: [group.slug],
    placeCategory,
    placeAlternates: [],
    tags,
    languages,
    itemTypes,
    protocols: member
      ? { rest: `https://${domain}/inbox/v1`, openapi: `https://${domain}/inbox/openapi.json`, mcp: `https://${domain}/inbox/mcp` }
      : {},
    hours,
    services,
    url,
    doors,
    attributes,
    payments,
    priceBand,
    place,
    claimed: source !== 'found',
    proof: source === 'found' ? null : 'domain',
    software: member ? { version: `0.${int(rand, 4, 9)}.${int(rand, 0, 14)}`, runtime: 'node' } : null,
    manifestUrl: member ? `https://${domain}/.well-known/agent-inbox.json` : null,
    verifiedAt: times.verifiedAt,
    lastPingAt: times.lastPingAt,
    memberSince: times.memberSince,
    found:
      source === 'found'
        ? { note: pick(rand, FOUND_NOTES), checkedAt: times.checkedAt }
        : null,
    facts: [],
    receipts: { issued: 0, acknowledged: 0, customers: 0, lastAt: null },
    outcomes: {},
    delistedAt: null,
    dormantSince: times.dormantSince,
    createdAt: times.createdAt,
    updatedAt: times.updatedAt,
  };
  if (member) skipRetiredActivityDraws(rand);
  else listing.facts = makeFacts(listing, source, times.checkedAt);
  return listing;
}

function pickServices(rand: Rand, group: GroupDef, head: Head | null, lang: NameLang, member: boolean): ListingService[] {
  const pool: readonly ServiceWord[] = head?.services ? head.services.map((i) => group.services[i] as ServiceWord) : group.services;
  const n = int(rand, 1, Math.min(5, pool.length));
  const chosen = sample(rand, pool, n);
  // Members take bookings or orders through their inbox: make sure one service fits.
  if (member && !chosen.some((s) => s.type !== 'quote_request')) {
    let bookable = pool.filter((s) => s.type !== 'quote_request');
    if (bookable.length === 0) bookable = group.services.filter((s) => s.type !== 'quote_request');
    if (bookable.length > 0) {
      if (chosen.length >= 5) chosen.pop();
      chosen.push(pick(rand, bookable));
    }
  }
  return chosen.map((s) => ({ name: word(s.names, lang).slice(0, 80), type: s.type }));
}

function pickLanguages(rand: Rand, country: string, region: string, software: boolean): string[] {
  const tags = [...languageTags(country, region)];
  if (software) {
    if (!tags.some((t) => t === 'en' || t.startsWith('en-'))) {
      if (chance(rand, 0.5)) tags.unshift('en');
      else return ['en'];
    }
    return tags;
  }
  if (!tags.some((t) => t === 'en' || t.startsWith('en-')) && chance(rand, 0.3)) tags.push('en');
  return tags;
}

function jitter(rand: Rand, lat: number, lon: number): { lat: number; lng: number } {
  const km = 4 * Math.sqrt(rand());
  const angle = rand() * 2 * Math.PI;
  const dLat = (km * Math.cos(angle)) / 111.32;
  const cos = Math.max(0.05, Math.cos((lat * Math.PI) / 180));
  const dLon = (km * Math.sin(angle)) / (111.32 * cos);
  const outLat = Math.max(-89.99999, Math.min(89.99999, lat + dLat));
  let outLon = lon + dLon;
  if (outLon > 180) outLon -= 360;
  if (outLon < -180) outLon += 360;
  return { lat: Math.round(outLat * 1e5) / 1e5, lng: Math.round(outLon * 1e5) / 1e5 };
}

function makePlace(rand: Rand, group: GroupDef, city: string, region: string | null, country: string): Place {
  const base = { locality: city, ...(region ? { region } : {}), country };
  let mode = group.place;
  if (mode === 'mixed') mode = chance(rand, 0.5) ? 'storefront' : 'service_area';
  if (mode === 'online') return { kind: ['online'], country };
  if (mode === 'service_area') {
    return { kind: ['service_area'], ...base, serviceArea: { radiusKm: int(rand, 1, 10) * 5, countries: [country] } };
  }
  const place: Place = { kind: ['storefront'], ...base };
  if (group.ships && chance(rand, 0.3)) {
    const markets = chance(rand, 0.6) ? [] : sample(rand, SHIP_MARKETS.filter((c) => c !== country), int(rand, 2, 5));
    place.shipsTo = [country, ...markets];
  }
  return place;
}

interface Times {
  createdAt: number;
  updatedAt: number;
  checkedAt: number;
  memberSince: number | null;
  verifiedAt: number | null;
  lastPingAt: number | null;
  dormantSince: number | null;
}

function makeTimes(rand: Rand, nowMs: number, source: Source, dormant: boolean): Times {
  if (source !== 'member') {
    const age = Math.floor((source === 'found' ? 365 : 500) * DAY * rand()) + HOUR;
    const createdAt = nowMs - age;
    const checkedAt = nowMs - Math.floor(rand() * Math.min(age, 30 * DAY));
    const updatedAt = source === 'found' ? checkedAt : createdAt + Math.floor(rand() * (nowMs - createdAt));
    return { createdAt, updatedAt, checkedAt, memberSince: null, verifiedAt: null, lastPingAt: null, dormantSince: null };
  }
  let memberSince = nowMs - Math.floor(3 * DAY + rand() * 720 * DAY);
  let lastPingAt: number;
  let dormantSince: number | null = null;
  if (dormant) {
    dormantSince = nowMs - Math.floor(7 * DAY + rand() * 60 * DAY);
    lastPingAt = dormantSince - Math.floor(rand() * 7 * DAY);
    memberSince = Math.min(memberSince, lastPingAt - 30 * DAY);
  } else {
    lastPingAt = chance(rand, 0.92) ? nowMs - Math.floor(rand() * DAY) : nowMs - Math.floor(DAY + rand() * 20 * DAY);
    lastPingAt = Math.max(lastPingAt, memberSince);
  }
  const createdAt = chance(rand, 0.3) ? memberSince - Math.floor(rand() * 180 * DAY) : memberSince;
  // Verified when it became a member: a directory keeps the first verification's date (registration/instances.ts),
  // and the nightly snapshot holds a member's score for its first 30 days from it. (The draw that once made a
  // recent date is kept, so every other value stays as it was.)
  rand();
  const verifiedAt = memberSince;
  const updatedAt = Math.max(createdAt, lastPingAt - Math.floor(rand() * 3 * DAY));
  return { createdAt, updatedAt, checkedAt: lastPingAt, memberSince, verifiedAt, lastPingAt, dormantSince };
}

function makeHours(ctx: Context, group: GroupDef, zone: string): Hours | null {
  const { rand } = ctx;
  const templates = HOURS_TEMPLATES.get(group.slug);
  if (!templates || templates.length === 0) return null;
  const template = pick(rand, templates);
  const dropSunday = chance(rand, 0.15);
  const weekly: Hours['weekly'] = {};
  for (let d = 0; d < 7; d++) {
    const windows = template[d];
    if (!windows || (d === 6 && dropSunday)) continue;
    weekly[WEEKDAYS[d] as Weekday] = windows.map(([opens, closes]) => [opens, closes] as [string, string]);
  }
  const closures: Hours['closures'] = [];
  if (chance(rand, 0.06)) {
    let today = ctx.todayByZone.get(zone);
    if (today === undefined) {
      today = DateTime.fromMillis(ctx.nowMs, { zone }).toISODate() ?? new Date(ctx.nowMs).toISOString().slice(0, 10);
      ctx.todayByZone.set(zone, today);
    }
    const start = int(rand, 2, 35);
    closures.push({ from: localDateAfter(today, start), to: localDateAfter(today, start + int(rand, 0, 14)) });
  }
  return { timezone: zone, weekly, closures };
}

function kindsFor(rand: Rand, level: Level, types: Set<ServiceType>): RequestKind[] {
  const kinds: RequestKind[] = ['ask'];
  if (types.has('quote_request') || chance(rand, 0.25)) kinds.push('quote');
  if (level === 'bookable' || level === 'payable') {
    if (types.has('booking')) kinds.push('book');
    if (types.has('order')) kinds.push('order');
  }
  if (level === 'payable') kinds.push('pay');
  return kinds;
}

function inboxDoor(rand: Rand, domain: string, types: Set<ServiceType>, checkedAt: number): Door {
  const level: Level = chance(rand, 0.35) ? 'payable' : 'bookable';
  return {
    type: 'inbox',
    url: `https://${domain}/inbox/v1`,
    level,
    status: 'live',
    kinds: kindsFor(rand, level, types),
    src: 'declared',
    protocol: 'agent-inbox/1',
    checkedAt: iso(checkedAt),
  };
}

function doorUrl(type: string, domain: string, rand: Rand): string {
  switch (type) {
    case 'mcp':
      return chance(rand, 0.3) ? `https://mcp.${domain}/` : `https://${domain}/mcp`;
    case 'openapi':
      return `https://${domain}/openapi.json`;
    case 'a2a':
      return `https://${domain}/.well-known/agent-card.json`;
    case 'api':
      return `https://api.${domain}/v1`;
    case 'ucp':
      return `https://${domain}/.well-known/ucp`;
    case 'acp':
      return `https://${domain}/acp`;
    default: {
      const name = type.slice('platform:'.length);
      const host = PLATFORM_HOSTS[name] ?? `${name}.com`;
      return `https://${host}/${domain.split('.')[0]}`;
    }
  }
}

function otherDoors(
  rand: Rand,
  group: GroupDef,
  source: Source,
  domain: string,
  types: Set<ServiceType>,
  checkedAt: number,
): Door[] {
  const canTransact = types.has('booking') || types.has('order');
  const software = group.kind === 'software_and_ai';
  const candidates: [string, number][] = software
    ? [['mcp', 40], ['openapi', 30], ['a2a', 20], ['api', 25]]
    : [['mcp', 30], ['openapi', 18], ['a2a', 12], ['api', 14]];
  if (types.has('order') && COMMERCE.has(group.slug)) candidates.push(['ucp', 10], ['acp', 8]);
  if (group.platforms.length > 0) candidates.push([`platform:${pick(rand, group.platforms)}`, 35]);
  const wanted = chance(rand, 0.55) ? 1 : chance(rand, 0.72) ? 2 : 3;
  const doors: Door[] = [];
  while (doors.length < wanted && candidates.length > 0) {
    const idx = weightedIndex(rand, cumulative(candidates.map((c) => c[1])));
    const [type] = candidates.splice(idx, 1)[0] as [string, number];
    let level: Level = 'askable';
    if (canTransact) {
      const lr = rand();
      if (type === 'acp' || type === 'ucp') level = types.has('order') && lr < 0.7 ? 'payable' : 'bookable';
      else if (type.startsWith('platform:')) level = lr < 0.8 ? 'bookable' : lr < 0.9 ? 'payable' : 'askable';
      else level = lr < 0.45 ? 'askable' : lr < 0.83 ? 'bookable' : 'payable';
    }
    const first = doors.length === 0;
    const door: Door = {
      type,
      url: doorUrl(type, domain, rand),
      level,
      status: first || chance(rand, 0.85) ? 'live' : 'failing',
      kinds: kindsFor(rand, level, types),
      src: source === 'registered' ? (chance(rand, 0.85) ? 'declared' : 'seen') : chance(rand, 0.7) ? 'seen' : 'declared',
      checkedAt: iso(checkedAt - Math.floor(rand() * 2 * DAY)),
    };
    const protocol = DOOR_PROTOCOL[type];
    if (protocol) door.protocol = protocol;
    doors.push(door);
  }
  return doors;
}

function itemTypesOf(doors: Door[], member: boolean): ItemType[] {
  const kinds = new Set<RequestKind>();
  for (const door of doors) for (const k of door.kinds) kinds.add(k);
  const out: ItemType[] = [];
  if (kinds.has('book')) out.push('booking');
  if (kinds.has('order')) out.push('order');
  if (kinds.has('quote')) out.push('quote_request');
  if (kinds.has('ask')) out.push('message');
  if (member && kinds.has('pay')) out.push('refund');
  return out;
}

function makeAttributes(rand: Rand, group: GroupDef, source: Source, place: Place): GeneratedListing['attributes'] {
  const keys = sample(rand, group.attributes, int(rand, 2, Math.min(5, group.attributes.length)));
  if (place.kind.includes('online') && !keys.includes('remote')) keys.unshift('remote');
  const out: GeneratedListing['attributes'] = {};
  for (const key of keys) {
    const src: ValueSource = source === 'found' ? (chance(rand, 0.65) ? 'seen' : 'declared') : 'declared';
    out[key] = { v: chance(rand, 0.92), src };
  }
  const booking = out.booking_required;
  const walkIns = out.walk_ins;
  if (booking?.v && walkIns?.v) walkIns.v = false;
  return out;
}

function makePayments(rand: Rand, group: GroupDef, country: string, payable: boolean, place: Place): string[] {
  const out: string[] = [];
  const storefront = place.kind.includes('storefront');
  if (chance(rand, 0.9)) out.push('card');
  if (storefront && group.kind !== 'software_and_ai' && chance(rand, 0.7)) out.push('cash');
  for (const local of LOCAL_PAYMENTS[country] ?? []) if (chance(rand, 0.5)) out.push(local);
  if (chance(rand, 0.4)) out.push('apple_pay');
  if (chance(rand, 0.35)) out.push('google_pay');
  if (chance(rand, group.ships || group.kind === 'software_and_ai' ? 0.35 : 0.08)) out.push('paypal');
  if (payable && chance(rand, group.kind === 'software_and_ai' ? 0.2 : 0.02)) out.push('x402');
  return out;
}

function pickPriceBand(rand: Rand): number {
  const r = rand();
  return r < 0.25 ? 1 : r < 0.7 ? 2 : r < 0.92 ? 3 : 4;
}

function makeStreet(rand: Rand, lang: NameLang): string {
  const street = pick(rand, STREETS[lang]);
  return street.pattern.replace('{s}', pick(rand, street.names)).replace('{n}', String(int(rand, 1, 240)));
}

/**
 * A member's receipts are never made up here: they are signed receipts held by the network
 * (demo/demo-evidence.ts), counted by the same intake as a real member's. The random numbers this
 * step once drew are still drawn, so every other value the generator makes stays as it was.
 */
function skipRetiredActivityDraws(rand: Rand): void {
  const issued = Math.floor(rand() * rand() * 120);
  int(rand, 0, Math.min(issued, 4));
  if (issued === 0) return;
  rand();
  rand();
  const broken = int(rand, 0, Math.min(2, issued));
  int(rand, 0, Math.min(5, issued - broken));
  rand();
}

/** Where and when each value was seen, under the listing's field names (the detail view shows every value as it shows it: listing-facts.ts). */
function makeFacts(listing: GeneratedListing, source: Source, checkedAt: number): Fact[] {
  const at = iso(checkedAt);
  const src: ValueSource = source === 'found' ? 'seen' : 'declared';
  const page = listing.url ?? undefined;
  const facts: Fact[] = [
    { field: 'name', v: listing.name, src, at, ...(page ? { url: page } : {}) },
    { field: 'description', v: listing.description, src, at, ...(page ? { url: page } : {}) },
    { field: 'city', v: listing.city, src, at },
    { field: 'languages', v: listing.languages, src, at },
    { field: 'services', v: listing.services, src, at },
    { field: 'tags', v: listing.tags, src, at },
  ];
  if (listing.hours) facts.push({ field: 'hours', v: listing.hours, src: 'declared', at, via: 'schema.org' });
  if (listing.payments.length > 0) facts.push({ field: 'accepts.pay', v: listing.payments, src, at });
  if (listing.priceBand !== null) facts.push({ field: 'price_band', v: listing.priceBand, src: 'seen', at });
  if (listing.place) facts.push({ field: 'place', v: listing.place, src, at });
  for (const [key, value] of Object.entries(listing.attributes)) facts.push({ field: `attributes.${key}`, v: value.v, src: value.src, at });
  return facts;
}

/** Name languages the generator writes in (for documentation and tests). */
export const GENERATED_NAME_LANGUAGES = NAME_LANGS;
