/**
 * The language and formats a person reads a mail or a page in (docs/mail.md "Language and times"):
 * the customer's own `contact.locale` when the inbox writes that language, else the business's first
 * language it writes, else English; times in the business's zone as people write them there
 * ("sexta-feira, 4 de dezembro, 11:00"), money in the business's currency.
 */
import { pickLanguage } from '@svc/shared';

export const READER_LANGUAGES = ['en', 'pt'] as const;
export type ReaderLanguage = (typeof READER_LANGUAGES)[number];

/** The form each language is written in when nothing more precise is known. */
const DEFAULT_LOCALE: Record<ReaderLanguage, string> = { en: 'en-GB', pt: 'pt-PT' };

export interface Reader {
  lang: ReaderLanguage;
  /** The BCP 47 tag dates and money are formatted for (the customer's region when given). */
  locale: string;
  timeZone: string;
  currency: string;
}

function canonical(tag: string | undefined): string | null {
  if (!tag) return null;
  try {
    return Intl.getCanonicalLocales(tag)[0] ?? null;
  } catch {
    return null;
  }
}

/** The reader of a mail or page: `wished` (the contact's locale, or null for the owner) over the business's languages. */
export function readerOf(wished: string | undefined | null, business: { languages: readonly string[]; timeZone: string; currency: string }): Reader {
  const lang = pickLanguage(READER_LANGUAGES, wished, ...business.languages, 'en');
  const candidates = [canonical(wished ?? undefined), ...business.languages.map((l) => canonical(l))];
  // A tag with a region in the chosen language says how to write dates there; a bare one does not.
  const precise = candidates.find((tag) => tag !== null && tag.includes('-') && tag.split('-')[0]?.toLowerCase() === lang);
  return { lang, locale: precise ?? DEFAULT_LOCALE[lang], timeZone: business.timeZone, currency: business.currency };
}

const formats = new Map<string, Intl.DateTimeFormat>();

function format(reader: Reader, shape: 'day' | 'dayYear' | 'time' | 'ymd'): Intl.DateTimeFormat {
  const key = `${reader.locale} ${reader.timeZone} ${shape}`;
  let found = formats.get(key);
  if (!found) {
    const options: Intl.DateTimeFormatOptions =
      shape === 'day'
        ? { weekday: 'long', day: 'numeric', month: 'long' }
        : shape === 'dayYear'
          ? { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' }
          : shape === 'time'
            ? { hour: 'numeric', minute: '2-digit' }
            : { year: 'numeric', month: '2-digit', day: '2-digit' };
    found = new Intl.DateTimeFormat(shape === 'ymd' ? 'en-CA' : reader.locale, { ...options, timeZone: reader.timeZone });
    if (formats.size < 500) formats.set(key, found);
  }
  return found;
}

/** "sexta-feira, 4 de dezembro, 11:00"; the year is written when it is not this year's. */
export function writeWhen(instant: number | string, reader: Reader, nowMs: number): string {
  const date = new Date(instant);
  if (Number.isNaN(date.getTime())) return String(instant);
  const sameYear = format(reader, 'ymd').format(date).slice(0, 4) === format(reader, 'ymd').format(new Date(nowMs)).slice(0, 4);
  return `${format(reader, sameYear ? 'day' : 'dayYear').format(date)}, ${format(reader, 'time').format(date)}`;
}

/** A day alone ("sexta-feira, 4 de dezembro"), for validity dates. */
export function writeDay(instant: number | string, reader: Reader, nowMs: number): string {
  const date = new Date(instant);
  if (Number.isNaN(date.getTime())) return String(instant);
  const sameYear = format(reader, 'ymd').format(date).slice(0, 4) === format(reader, 'ymd').format(new Date(nowMs)).slice(0, 4);
  return format(reader, sameYear ? 'day' : 'dayYear').format(date);
}

/** Minor units in the currency, as the reader writes money ("25,00 €"). */
export function writeMoney(minor: unknown, currency: unknown, reader: Reader): string | null {
  if (typeof minor !== 'number' || !Number.isFinite(minor)) return null;
  const code = typeof currency === 'string' && /^[A-Z]{3}$/.test(currency) ? currency : reader.currency;
  const digits = new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions().maximumFractionDigits ?? 2;
  return new Intl.NumberFormat(reader.locale, { style: 'currency', currency: code }).format(minor / 10 ** digits);
}
