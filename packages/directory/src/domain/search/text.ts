/**
 * Folding and word splitting shared by the search index (listing text) and the caller (q words), so
 * both sides cut and fold text the same way: lower case, accents removed, a few letters that Unicode
 * does not decompose spelled out (ß → ss, æ → ae, ø → o, ...), apostrophes dropped, split on
 * anything else that is not a letter or a digit.
 */
import { foldText } from '@svc/shared';

// eslint-disable-next-line no-control-regex
const ASCII_RE = /^[\x00-\x7f]*$/;
const ASCII_SPLIT = /[^a-z0-9]+/;
const UNICODE_SPLIT = /[^\p{L}\p{N}]+/u;
/** Dropped inside words, as vocab/fold.ts does: `McDonald's` → `mcdonalds`. */
const APOSTROPHES = /['\u2019]/g;

export { foldText };

/**
 * The folded words of a text, in order, duplicates kept; words shorter than `minLength` (default 2:
 * one-letter words are never searched) are dropped.
 */
export function foldWords(value: string | null | undefined, minLength = 2): string[] {
  if (!value) return [];
  const folded = foldText(value).replace(APOSTROPHES, '');
  const parts = folded.split(ASCII_RE.test(folded) ? ASCII_SPLIT : UNICODE_SPLIT);
  const out: string[] = [];
  for (const p of parts) if (p.length >= minLength) out.push(p);
  return out;
}

/** A tag or legacy category value as one key: folded words joined by `-` (`Vegan Food` → `vegan-food`). */
export function tagKey(value: string): string {
  return foldWords(value, 1).join('-');
}
