/**
 * Text folding for matching, shared by every service so listing text, categories and query words
 * fold the same way: lower case, accents removed, letters Unicode does not decompose spelled out
 * (ß → ss, æ → ae, ø → o, …): `Café Ølberg` → `cafe olberg`.
 */

const EXTRA: Record<string, string> = { ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', ł: 'l', đ: 'd', ð: 'd', þ: 'th', ı: 'i' };
const EXTRA_RE = /[ßæœøłđðþı]/g;
// eslint-disable-next-line no-control-regex
const ASCII_RE = /^[\x00-\x7f]*$/;
const MARKS_RE = /\p{M}+/gu;

export function foldText(value: string): string {
  if (ASCII_RE.test(value)) return value.toLowerCase();
  return value.normalize('NFD').replace(MARKS_RE, '').toLowerCase().replace(EXTRA_RE, (c) => EXTRA[c] ?? c);
}
