/**
 * "Where" on the search page (issue 38): a person types a place's name ("Berlin", "Lisboa", "Porto,
 * Portugal"), a country ("Portugal", "Alemanha") or latitude,longitude; the page turns it into what
 * the API takes (its strict `near`, or `country`) with the gazetteer (domain/places/gazetteer.ts),
 * and says in the page's language which place it understood. The API itself is unchanged.
 */
import { gazetteer, pointOf, type Place, type PlaceMatch } from '../../domain/places/gazetteer.js';
import { countryName, kilometres } from './views/words.js';

export interface WhereUnderstood {
  /** What the search takes in its place. */
  input: { near?: string; country?: string };
  /** The place in words, in the page's language ("Lisboa, Portugal"; "Portugal"); null for a bare point. */
  label: string | null;
}

export interface WhereNotFound {
  notFound: true;
  /** Places whose name begins like what was typed, in words, to choose from. */
  candidates: string[];
}

/** A place in words: the name as typed or as GeoNames writes it, and its country in the page's language. */
export function placeWords(lang: string, match: PlaceMatch | { place: Place; name?: string }): string {
  return `${match.name ?? match.place.name}, ${countryName(lang, match.place.country)}`;
}

/** A point to five decimals (about a metre): what the API's `near` is given for a place. */
function nearOf(lat: number, lng: number): string {
  return `${Number(lat.toFixed(5))},${Number(lng.toFixed(5))}`;
}

/**
 * What the text names. A point is passed on as typed (the API judges it); a country becomes
 * `country`; a place becomes its point. Only a name the gazetteer does not know is refused.
 */
export function understandWhere(text: string, lang: string): WhereUnderstood | WhereNotFound {
  const point = pointOf(text);
  if (point) return { input: { near: text.replace(/\s+/g, '') }, label: null };
  // Something that looks like numbers but is no point goes to the API as it is, which says why.
  if (/^[\s\d.,+-]+$/.test(text)) return { input: { near: text }, label: null };
  const where = gazetteer().resolve(text);
  if (!where) {
    // Names that begin as it does, a letter shorter each time (a slip at the end: "Lisbonx" → Lisbon).
    const typed = text.trim();
    let found: PlaceMatch[] = [];
    for (let length = typed.length - 1; length >= 3 && found.length === 0; length--) found = gazetteer().suggest(typed.slice(0, length), 5);
    return { notFound: true, candidates: found.map((m) => placeWords(lang, m)) };
  }
  if (where.kind === 'country') return { input: { country: where.country }, label: countryName(lang, where.country) };
  if (where.kind === 'point') return { input: { near: nearOf(where.lat, where.lng) }, label: null };
  return { input: { near: nearOf(where.match.place.lat, where.match.place.lng) }, label: placeWords(lang, where.match) };
}

/** The town nearest a point, in words ("near Lisbon, Portugal"), to say where a bare point is. */
export function townNear(lat: number, lng: number, lang: string): string | null {
  const place = gazetteer().nearest(lat, lng);
  return place ? placeWords(lang, { place }) : null;
}

/** Suggestions as one types: places whose name begins so, in words, each with its point. */
export function placeSuggestions(text: string, lang: string, limit = 8): { label: string; near: string; population: number }[] {
  if (pointOf(text) || text.trim().length < 2) return [];
  const country = gazetteer().countryNamed(text.trim());
  const countries = country ? [{ label: countryName(lang, country), near: '', population: Number.MAX_SAFE_INTEGER }] : [];
  // Places a person cannot tell apart by their words (five towns called Lisbon in one country): the largest.
  const seen = new Set<string>();
  return [
    ...countries,
    ...gazetteer()
      .suggest(text, limit * 3)
      .map((m) => ({ label: placeWords(lang, m), near: nearOf(m.place.lat, m.place.lng), population: m.place.population })),
  ]
    .filter((p) => !seen.has(p.label) && seen.add(p.label))
    .slice(0, limit);
}

/** A distance in the page's language ("1.5 km" / "1,5 km"). */
export function distanceWords(lang: string, km: number): string {
  return `${kilometres(lang, km)} km`;
}
