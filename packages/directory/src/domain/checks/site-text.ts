/**
 * Text a site wrote, made safe to keep: one line of plain text without control or text-direction
 * characters, without e-mail addresses or phone numbers (the directory never shows one), cut to a
 * length. Names of tools and operations are kept only as identifiers (letters, digits and a few
 * marks), so a name can never carry a sentence into our answers.
 */
import { escapeUnsafe } from '@svc/shared';

// Written as a string of escapes so no such character sits in this file (and the linter reads no control character in a literal).
const CONTROL_RANGES = '\\u0000-\\u001F\\u007F-\\u009F\\u200B-\\u200F\\u202A-\\u202E\\u2060-\\u2069\\uFEFF\\uD800-\\uDFFF';
const CONTROL = new RegExp(`[${CONTROL_RANGES}]`, 'gu');
const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g;
/** A phone number: an optional +, then at least seven digits with spaces, dots, dashes or brackets between them. */
const PHONE = /(?:\+|\b00)?\(?\d[\d\s().-]{5,}\d/g;
const WHITESPACE = /\s+/g;

export function cleanText(value: unknown, max: number): string | null {
  if (typeof value !== 'string') return null;
  let text = value.replace(CONTROL, ' ').replace(EMAIL, ' ');
  text = text.replace(PHONE, (match) => ((match.match(/\d/g)?.length ?? 0) >= 9 ? ' ' : match));
  text = text.replace(WHITESPACE, ' ').trim();
  if (text === '') return null;
  if (text.length > max) text = `${text.slice(0, max - 1).trimEnd()}…`;
  return text;
}

/** An identifier the site named (a tool, an operation, a skill): kept only if it is one. */
export function cleanIdentifier(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  return /^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,63}$/.test(trimmed) ? trimmed : null;
}

/** For logs and notes: a value with unsafe characters escaped (never a raw site text). */
export function escapedForNote(value: string): string {
  return escapeUnsafe(value).slice(0, 80);
}
