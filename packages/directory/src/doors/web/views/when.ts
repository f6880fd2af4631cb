/**
 * Dates of check results and boards as people read them: the visitor's zone is unknown to a page
 * rendered once for everyone, so times are in UTC and say so. Formatters are kept per language.
 */
import { html, type Html } from '@svc/shared';

const LOCALES: Record<string, string> = { en: 'en-GB', pt: 'pt-PT' };
const formatters = new Map<string, { dateTime: Intl.DateTimeFormat; date: Intl.DateTimeFormat }>();

function formattersOf(lang: string) {
  let kept = formatters.get(lang);
  if (!kept) {
    const locale = LOCALES[lang] ?? 'en-GB';
    kept = {
      dateTime: new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }),
      date: new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' }),
    };
    formatters.set(lang, kept);
  }
  return kept;
}

/** "23 Nov 2026, 10:15 UTC" as text (for sentences). */
export function whenText(lang: string, iso: string): string {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? iso : `${formattersOf(lang).dateTime.format(ms)} UTC`;
}

/** A <time> element with the instant and its date and time in UTC. */
export function when(lang: string, iso: string | undefined, dateOnly = false): Html | null {
  if (!iso) return null;
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return null;
  return html`<time datetime="${new Date(ms).toISOString()}">${dateOnly ? formattersOf(lang).date.format(ms) : whenText(lang, iso)}</time>`;
}
