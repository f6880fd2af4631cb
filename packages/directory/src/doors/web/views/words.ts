/**
 * What the pages show of the data in the page's language (issue 38): category names from the
 * vocabulary's own labels (groups: ours in five languages; place categories: the iD tagging schema's
 * translations), country and language names and numbers, distances and dates from the language's
 * Intl formatters. The JSON keeps its codes; only the page words them.
 */
import { groupBySlug } from '../../../domain/vocab/groups.js';
import { loadTaxonomy } from '../../../domain/vocab/taxonomy.js';

/** The locale each page language formats with (Portugal's Portuguese: the demo business and the words of messages.ts). */
export function localeOf(lang: string): string {
  return lang === 'pt' ? 'pt-PT' : 'en-GB';
}

const formatters = new Map<string, { number: Intl.NumberFormat; decimal: Intl.NumberFormat; score: Intl.NumberFormat; date: Intl.DateTimeFormat; region: Intl.DisplayNames; language: Intl.DisplayNames }>();

function formattersOf(lang: string) {
  let known = formatters.get(lang);
  if (!known) {
    const locale = localeOf(lang);
    known = {
      number: new Intl.NumberFormat(locale),
      decimal: new Intl.NumberFormat(locale, { minimumFractionDigits: 1, maximumFractionDigits: 1 }),
      score: new Intl.NumberFormat(locale, { minimumFractionDigits: 2, maximumFractionDigits: 2 }),
      date: new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' }),
      region: new Intl.DisplayNames([locale], { type: 'region', fallback: 'code' }),
      language: new Intl.DisplayNames([locale], { type: 'language', fallback: 'code' }),
    };
    formatters.set(lang, known);
  }
  return known;
}

/** A whole number as the language writes it (1,234 / 1234). */
export function wholeNumber(lang: string, value: number): string {
  return formattersOf(lang).number.format(value);
}

/** A distance in kilometres with one decimal, as the language writes it (1.5 / 1,5). */
export function kilometres(lang: string, value: number): string {
  return formattersOf(lang).decimal.format(value);
}

/** A score between 0 and 1 with two decimals. */
export function scoreNumber(lang: string, value: number): string {
  return formattersOf(lang).score.format(value);
}

/** A calendar date (YYYY-MM-DD, or the date of an instant) as the language writes it. */
export function calendarDate(lang: string, isoDate: string): string {
  const at = Date.parse(isoDate.length === 10 ? `${isoDate}T00:00:00Z` : isoDate);
  return Number.isFinite(at) ? formattersOf(lang).date.format(at) : isoDate;
}

/** A country's name from its ISO 3166-1 code (PT → Portugal), or the code when unknown. */
export function countryName(lang: string, code: string | undefined | null): string {
  if (!code) return '';
  try {
    return formattersOf(lang).region.of(code.toUpperCase()) ?? code;
  } catch {
    return code;
  }
}

/** A language's name from its tag (pt-pt → português europeu), or the tag when unknown. */
export function languageName(lang: string, tag: string): string {
  try {
    return formattersOf(lang).language.of(tag) ?? tag;
  } catch {
    return tag;
  }
}

/** A group's name (slug of GET /v1/categories) in the page's language, else English, else the slug. */
export function groupLabel(lang: string, slug: string): string {
  const group = groupBySlug(slug);
  if (!group) return slug;
  return (group.labels as Record<string, string>)[lang] ?? group.labels.en ?? slug;
}

/** A place category's name (GET /c/{id}) in the page's language, else the label given, else the id. */
export function placeLabel(lang: string, id: string, given?: string): string {
  const category = loadTaxonomy().byId(id);
  const labels = category?.labels as Record<string, string> | undefined;
  return labels?.[lang] ?? given ?? category?.label ?? id;
}

/** A category key (a group slug or a place category id) in the page's language. */
export function categoryKeyLabel(lang: string, key: string): string {
  return groupBySlug(key) ? groupLabel(lang, key) : placeLabel(lang, key);
}
