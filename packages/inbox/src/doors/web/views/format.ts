/** Dates, times and money as the owner reads them: in the business's zone and currency, in the app's language. */
import { DateTime } from 'luxon';
import type { AppLanguage } from '../app-kit.js';

const LOCALES: Record<AppLanguage, string> = { en: 'en-GB', pt: 'pt-PT' };

export function localeOf(lang: AppLanguage): string {
  return LOCALES[lang];
}

export function formatInstant(iso: string | null | undefined, zone: string, lang: AppLanguage): string {
  if (!iso) return '';
  const time = DateTime.fromISO(iso, { setZone: true }).setZone(zone);
  return time.isValid ? time.setLocale(localeOf(lang)).toFormat('ccc d LLL yyyy, HH:mm') : iso;
}

export function formatShort(iso: string | null | undefined, zone: string, lang: AppLanguage, nowMs: number): string {
  if (!iso) return '';
  const time = DateTime.fromISO(iso, { setZone: true }).setZone(zone).setLocale(localeOf(lang));
  if (!time.isValid) return iso;
  const now = DateTime.fromMillis(nowMs).setZone(zone);
  return time.hasSame(now, 'day') ? time.toFormat('HH:mm') : time.hasSame(now, 'year') ? time.toFormat('d LLL, HH:mm') : time.toFormat('d LLL yyyy');
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

export function fractionDigits(currency: string): number {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

export function formatMoney(minor: number | null | undefined, currency: string, lang: AppLanguage): string {
  if (minor === null || minor === undefined) return '';
  const digits = fractionDigits(currency);
  try {
    return new Intl.NumberFormat(localeOf(lang), { style: 'currency', currency }).format(minor / 10 ** digits);
  } catch {
    return `${(minor / 10 ** digits).toFixed(digits)} ${currency}`;
  }
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
