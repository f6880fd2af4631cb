/**
 * Turns the parameters of GET /v1/businesses into a normalised search (directory spec §4): words of
 * `q` without filler words, the category resolved (or a tag before rules 7, a refusal from 7), which
 * kinds of business may appear, and every filter checked against its bounds. Refusals are 400.
 */
import { Problem } from '@svc/shared';
import { LEVELS, SOURCES, type ItemType, type Kind, type Source } from '../listings/listing.js';
import type { PublishedRules } from '../ranking/rules.js';
import { attributeKey, attributeValueAllowed, isPaymentToken } from '../vocab/attributes.js';
import { categoryCandidates, resolveCategory } from '../vocab/category-resolver.js';
import { fold } from '../vocab/fold.js';
import { foldWords } from './text.js';

/** Filler words left out of `q` (English and Portuguese, with a few Spanish and French). */
export const FILLER_WORDS: ReadonlySet<string> = new Set(
  (
    'a an and are as at by for from in into is it me my near nearby of on or the to with ' +
    'ao aos as com da das de do dos e em mim na nas no nos o os ou para perto por um uma ' +
    'el la los las y del en con cerca le les et du des pres'
  ).split(' '),
);

/**
 * Words that name the software-and-AI kind: a q with one of them searches that kind. Agent and app
 * are not among them: alone they are everyday words of local businesses (a travel agent, an estate
 * agent); beside one of these ("ai agents", "saas app") the search is already of that kind.
 */
export const SOFTWARE_KIND_WORDS: ReadonlySet<string> = new Set('saas software ai api apis llm llms sdk devtools'.split(' '));

const kindWordMemo = new Map<string, boolean>();

/**
 * Whether a q word is a word of the software-and-AI kind: one that `category` reads as that group or
 * one of its categories (cloud, agents, saas, nuvem, sdk…). Alone such words never bring a software
 * business into a local search by its name: a name is found by what is its own, not by a word the
 * kind's vocabulary gives every software business.
 */
export function isSoftwareKindWord(word: string): boolean {
  let known = kindWordMemo.get(word);
  if (known === undefined) {
    known = SOFTWARE_KIND_WORDS.has(word) || resolveCategory(word)?.kind === 'software_and_ai';
    if (kindWordMemo.size < 10_000) kindWordMemo.set(word, known);
  }
  return known;
}

const REQUEST_KINDS = new Set(['ask', 'quote', 'book', 'order', 'pay']);
const DOOR_TYPES = new Set(['inbox', 'mcp', 'a2a', 'openapi', 'api', 'ucp', 'acp', 'nlweb', 'other', 'platform']);

export interface RawSearch {
  q?: string | undefined;
  near?: string | undefined;
  radius_km?: number | undefined;
  category?: string | undefined;
  item_type?: ItemType | undefined;
  language?: string | undefined;
  open_now?: boolean | undefined;
  attributes?: string | undefined;
  country?: string | undefined;
  price_band?: string | undefined;
  accepts?: string | undefined;
  requestable?: 'ask' | 'quote' | undefined;
  door_type?: string | undefined;
  level?: string | undefined;
  has_inbox?: boolean | undefined;
  source?: string | undefined;
  order?: 'rank' | 'nearest' | undefined;
}

export interface NormalisedSearch {
  words: string[];
  softwareNameException: boolean;
  kinds: Kind[];
  categoryKeys?: string[];
  tag?: string;
  itemType?: ItemType;
  language?: string;
  openNow: boolean;
  near?: { lat: number; lng: number; radiusKm: number };
  attributes?: { key: string; value?: string }[];
  country?: string;
  priceBand?: [number, number];
  accepts?: string[];
  requestable?: 'ask' | 'quote';
  doorTypes?: string[];
  minLevel?: number;
  /** A level below askable was asked for: nothing is listed there yet. */
  emptyPage: boolean;
  hasInbox?: boolean;
  sources?: Source[];
  order: 'rank' | 'nearest';
}

function bad(path: string, message: string): Problem {
  return new Problem('bad_request', message, { fields: [{ path, problem: 'invalid', message }] });
}

/**
 * The entries of a comma-separated parameter. A value named twice is refused, naming it (ignoring
 * capitals): every entry is a condition, and a repeat is a mistake worth telling rather than a
 * second condition or one silently dropped. Then the number of entries is bounded, when it is.
 */
function list(value: string, path: string, maxEntries?: number): string[] {
  const entries = value
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v.length > 0);
  if (entries.length === 0) throw bad(path, `${path} names nothing.`);
  const seen = new Set<string>();
  for (const entry of entries) {
    const key = entry.toLowerCase();
    if (seen.has(key)) {
      const named = /^[\x21-\x7e]{1,60}$/.test(entry) ? ` ${entry}` : ' a value';
      throw bad(path, `${path} names${named} more than once; name each value once.`);
    }
    seen.add(key);
  }
  if (maxEntries !== undefined && entries.length > maxEntries) throw bad(path, `${path} takes at most ${maxEntries} entries.`);
  return entries;
}

/**
 * The words `q` asks for: its whole words cut as the index cuts listing text (text.ts cutWords:
 * `Doğan’s` → `dogans`, which the index holds beside `dogan`), one-letter and filler words left out.
 */
export function queryWords(q: string): string[] {
  return foldWords(q).filter((w) => !FILLER_WORDS.has(w));
}

export function normaliseSearch(raw: RawSearch, rules: PublishedRules): NormalisedSearch {
  const result: NormalisedSearch = { words: [], softwareNameException: false, kinds: ['local_and_retail'], openNow: raw.open_now === true, emptyPage: false, order: raw.order ?? 'rank' };

  let softwareByWords = false;
  if (raw.q !== undefined) {
    // 80 characters bound the number of words; a repeated word is one condition.
    const words = [...new Set(queryWords(raw.q))];
    if (words.length === 0) throw bad('q', 'q has no word left once one-letter and filler words are left out.');
    softwareByWords = words.some((w) => SOFTWARE_KIND_WORDS.has(w));
    // A word that names the kind chooses the kind and stays a word the business must match ("every
    // query parameter only leaves businesses out": q=saas&category=cafe is the cafés that say saas).
    result.words = words;
  }

  let kindFromCategory: Kind | null = null;
  if (raw.category !== undefined) {
    const resolved = resolveCategory(raw.category);
    if (resolved) {
      kindFromCategory = resolved.kind;
      result.categoryKeys = resolved.type === 'group' ? [resolved.slug] : [resolved.id];
    } else if (rules.numbers.strictCategory) {
      const candidates = categoryCandidates(raw.category, 5);
      throw new Problem('category_unresolved', `No category is called "${raw.category}".`, {
        extensions: { candidates },
        fields: [{ path: 'category', problem: 'invalid', message: `No category is called "${raw.category}".` }],
      });
    } else {
      result.tag = fold(raw.category).trim();
    }
  }

  // The kind of the search: the category's; else software and AI when a word of q names that kind;
  // else local and retail, which a software business joins only when every word of q is in its name
  // and q holds a word beyond the software kind's own (q=cloud is local businesses only).
  if (kindFromCategory) result.kinds = [kindFromCategory];
  else if (softwareByWords) result.kinds = ['software_and_ai'];
  else result.softwareNameException = result.words.some((w) => !isSoftwareKindWord(w));

  if (raw.item_type) result.itemType = raw.item_type;
  if (raw.language !== undefined) {
    if (!/^[a-z]{2,3}(-[a-z0-9]{1,8})*$/i.test(raw.language)) throw bad('language', 'language is a tag such as pt or pt-BR.');
    result.language = raw.language.toLowerCase();
  }

  if (raw.radius_km !== undefined && raw.near === undefined) throw bad('radius_km', 'radius_km needs near.');
  if (raw.near !== undefined) {
    const match = /^(-?\d+(?:\.\d+)?),(-?\d+(?:\.\d+)?)$/.exec(raw.near);
    const lat = Number(match?.[1]);
    const lng = Number(match?.[2]);
    if (!match || lat < -90 || lat > 90 || lng < -180 || lng > 180) throw bad('near', 'near is "lat,lng" in decimal degrees, such as 38.72,-9.14.');
    const radiusKm = raw.radius_km ?? rules.numbers.radiusKmDefault;
    if (!(radiusKm > 0 && radiusKm <= rules.numbers.radiusKmMax)) throw bad('radius_km', `radius_km is above 0 and at most ${rules.numbers.radiusKmMax}.`);
    result.near = { lat, lng, radiusKm };
  }
  if (result.order === 'nearest') {
    if (!rules.numbers.nearest) throw bad('order', `order=nearest comes with ranking rules 7; rules ${rules.version} are in force.`);
    if (!result.near) throw bad('order', 'order=nearest needs near.');
  }

  if (raw.attributes !== undefined) {
    if (raw.attributes.length > 620) throw bad('attributes', 'attributes is at most 620 characters.');
    result.attributes = list(raw.attributes, 'attributes', 10).map((entry) => {
      const [key = '', value] = entry.split('=', 2).map((s) => s.trim());
      const def = attributeKey(key);
      if (!def) throw bad('attributes', `Unknown attribute ${key}; see GET /v1/attributes.`);
      if (!def.filterable) throw bad('attributes', `${key} cannot be filtered on yet: it needs a register's proof.`);
      if (value !== undefined && !attributeValueAllowed(key, value)) throw bad('attributes', `${key} has no value ${value}.`);
      if (value === undefined && def.type === 'enum') throw bad('attributes', `${key} needs a value: ${key}=<value>.`);
      return value === undefined ? { key } : { key, value };
    });
  }
  if (raw.country !== undefined) {
    if (!/^[A-Za-z]{2}$/.test(raw.country)) throw bad('country', 'country is a two-letter ISO 3166-1 code such as PT.');
    result.country = raw.country.toUpperCase();
  }
  if (raw.price_band !== undefined) {
    const match = /^([1-4])(?:-([1-4]))?$/.exec(raw.price_band);
    const low = Number(match?.[1]);
    const high = Number(match?.[2] ?? match?.[1]);
    if (!match || low > high) throw bad('price_band', 'price_band is a digit 1 to 4, or a range such as 1-2.');
    result.priceBand = [low, high];
  }
  if (raw.accepts !== undefined) {
    if (raw.accepts.length > 330) throw bad('accepts', 'accepts is at most 330 characters.');
    result.accepts = list(raw.accepts, 'accepts', 8).map((token) => {
      const lowered = token.toLowerCase();
      if (!REQUEST_KINDS.has(lowered) && !isPaymentToken(lowered)) throw bad('accepts', `accepts takes ask, quote, book, order, pay or a payment of GET /v1/attributes, not ${token}.`);
      return lowered;
    });
  }
  if (raw.requestable) result.requestable = raw.requestable;
  if (raw.door_type !== undefined) {
    if (raw.door_type.length > 250) throw bad('door_type', 'door_type is at most 250 characters.');
    result.doorTypes = list(raw.door_type, 'door_type', 5).map((type) => {
      const lowered = type.toLowerCase();
      if (!DOOR_TYPES.has(lowered) && !/^platform:[a-z0-9-]{1,40}$/.test(lowered)) throw bad('door_type', `Unknown door type ${type}.`);
      return lowered;
    });
  }
  if (raw.level !== undefined) {
    const level = raw.level === 'orderable' ? 'bookable' : raw.level;
    const rank = (LEVELS as readonly string[]).indexOf(level);
    if (rank < 0) throw bad('level', 'level is listed, readable, askable, bookable, orderable or payable.');
    result.minLevel = rank;
    result.emptyPage = rank < LEVELS.indexOf('askable');
  }
  if (raw.has_inbox !== undefined) result.hasInbox = raw.has_inbox;
  if (raw.source !== undefined) {
    if (raw.source.length > 40) throw bad('source', 'source is at most 40 characters.');
    // Three values and no repeat: the 40 characters are the only bound the contract states.
    result.sources = list(raw.source, 'source').map((s) => {
      if (!(SOURCES as readonly string[]).includes(s)) throw bad('source', `source is member, registered or found, not ${s}.`);
      return s as Source;
    });
  }
  return result;
}
