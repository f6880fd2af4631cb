/** Dates, times and money as the owner reads them: in the business's zone and currency, in the app's language. */
import { DateTime } from 'luxon';
import type { AppLanguage } from '../app-kit.js';

const LOCALES: Record<AppLanguage, string> = { en: 'en-GB', pt: 'pt-PT' };

export function localeOf(lang: AppLanguage): string {
  return LOCALES[lang];
}

/**
 * Intl's own formatters, one per locale, zone and shape, kept: luxon's zone arithmetic per value
 * cost more than the rest of a page (docs/web.md "Budgets"); formatting a Date needs none of it.
 */
const dateFormats = new Map<string, Intl.DateTimeFormat>();

function dateFormat(locale: string, zone: string, shape: 'full' | 'time' | 'dayMonth' | 'date' | 'day'): Intl.DateTimeFormat {
  const key = `${locale} ${zone} ${shape}`;
  let format = dateFormats.get(key);
  if (!format) {
    const options: Intl.DateTimeFormatOptions =
      shape === 'full'
        ? { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }
        : shape === 'time'
          ? { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }
          : shape === 'dayMonth'
            ? { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }
            : shape === 'date'
              ? { day: 'numeric', month: 'short', year: 'numeric' }
              : { year: 'numeric', month: '2-digit', day: '2-digit' };
    try {
      format = new Intl.DateTimeFormat(locale, { ...options, timeZone: zone });
    } catch {
      format = new Intl.DateTimeFormat(locale, { ...options, timeZone: 'UTC' });
    }
    if (dateFormats.size < 1000) dateFormats.set(key, format);
  }
  return format;
}

function instantOf(iso: string): Date | null {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? null : date;
}

export function formatInstant(iso: string | null | undefined, zone: string, lang: AppLanguage): string {
  if (!iso) return '';
  const date = instantOf(iso);
  return date ? dateFormat(localeOf(lang), zone, 'full').format(date) : iso;
}

export function formatShort(iso: string | null | undefined, zone: string, lang: AppLanguage, nowMs: number): string {
  if (!iso) return '';
  const date = instantOf(iso);
  if (!date) return iso;
  const day = dateFormat('en-CA', zone, 'day');
  const [then, now] = [day.format(date), day.format(new Date(nowMs))];
  const locale = localeOf(lang);
  if (then === now) return dateFormat(locale, zone, 'time').format(date);
  return dateFormat(locale, zone, then.slice(0, 4) === now.slice(0, 4) ? 'dayMonth' : 'date').format(date);
}

/** The value of a datetime-local input for an instant, in the business's zone. */
export function toLocalInput(iso: string | null | undefined, zone: string): string {
  if (!iso) return '';
  const time = DateTime.fromISO(iso, { setZone: true }).setZone(zone);
  return time.isValid ? time.toFormat("yyyy-LL-dd'T'HH:mm") : '';
}

/** A datetime-local value read in the business's zone, as ISO 8601 with its offset; null when it is not one. */
export function fromLocalInput(value: string, zone: string): string | null {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(value)) return null;
  const time = DateTime.fromISO(value, { zone });
  return time.isValid ? time.toISO({ suppressMilliseconds: true }) : null;
}

/** Intl formatters are costly to make (a tenth of a millisecond each): one per locale and currency, kept. */
const moneyFormats = new Map<string, Intl.NumberFormat | null>();

function moneyFormat(locale: string, currency: string): Intl.NumberFormat | null {
  const key = `${locale} ${currency}`;
  let format = moneyFormats.get(key);
  if (format === undefined) {
    try {
      format = new Intl.NumberFormat(locale, { style: 'currency', currency });
    } catch {
      format = null;
    }
    if (moneyFormats.size < 1000) moneyFormats.set(key, format);
  }
  return format;
}

export function fractionDigits(currency: string): number {
  return moneyFormat('en', currency)?.resolvedOptions().maximumFractionDigits ?? 2;
}

export function formatMoney(minor: number | null | undefined, currency: string, lang: AppLanguage): string {
  if (minor === null || minor === undefined) return '';
  const digits = fractionDigits(currency);
  return moneyFormat(localeOf(lang), currency)?.format(minor / 10 ** digits) ?? `${(minor / 10 ** digits).toFixed(digits)} ${currency}`;
}

/** Money typed by a person ("25", "25.5", "25,50") in minor units; null when it is not an amount. */
export function parseMoney(text: string, currency: string): number | null {
  const cleaned = text.trim().replace(/\s/g, '');
  const match = /^(\d{1,13})(?:[.,](\d{1,3}))?$/.exec(cleaned);
  if (!match) return null;
  const digits = fractionDigits(currency);
  const fraction = match[2] ?? '';
  if (fraction.length > digits) return null;
  return Number(match[1]) * 10 ** digits + Number(fraction.padEnd(digits, '0') || '0');
}

/** The amount as a person types it back (for a form's value). */
export function moneyInput(minor: number | null | undefined, currency: string): string {
  if (minor === null || minor === undefined) return '';
  const digits = fractionDigits(currency);
  return (minor / 10 ** digits).toFixed(digits);
}

/** Shapes of a day or a time by themselves, for Today and the calendar. */
const dayFormats = new Map<string, Intl.DateTimeFormat>();

function dayFormat(locale: string, zone: string, shape: 'long' | 'short' | 'time'): Intl.DateTimeFormat {
  const key = `${locale} ${zone} ${shape}`;
  let format = dayFormats.get(key);
  if (!format) {
    const options: Intl.DateTimeFormatOptions =
      shape === 'long'
        ? { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' }
        : shape === 'short'
          ? { weekday: 'short', day: 'numeric', month: 'short' }
          : { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' };
    try {
      format = new Intl.DateTimeFormat(locale, { ...options, timeZone: zone });
    } catch {
      format = new Intl.DateTimeFormat(locale, { ...options, timeZone: 'UTC' });
    }
    if (dayFormats.size < 1000) dayFormats.set(key, format);
  }
  return format;
}

/** "Friday, 27 November 2026" / "sexta-feira, 27 de novembro de 2026": a day in the business's zone. */
export function formatDayLong(ms: number, zone: string, lang: AppLanguage): string {
  return dayFormat(localeOf(lang), zone, 'long').format(new Date(ms));
}

/** "Fri 27 Nov" / "sex., 27/11": a day's column heading. */
export function formatDayShort(ms: number, zone: string, lang: AppLanguage): string {
  return dayFormat(localeOf(lang), zone, 'short').format(new Date(ms));
}

/** "14:05": a time of day in the business's zone, 24-hour as both languages write it. */
export function formatClock(ms: number, zone: string, lang: AppLanguage): string {
  return dayFormat(localeOf(lang), zone, 'time').format(new Date(ms));
}
