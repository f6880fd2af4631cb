/**
 * The one way text becomes words in the directory: listing text for the search index, the words of
 * `q`, category labels and synonyms, software names, tag keys. Every caller goes through `cutWords`
 * (TermTable's fast path gives exactly its words for plain ASCII text), so the index and the query
 * can never cut a text two ways.
 *
 * - Folding: lower case, accents removed, a few letters Unicode does not decompose spelled out
 *   (ß → ss, æ → ae, ø → o, ...; shared foldText).
 * - Words are runs of letters and digits; anything else separates them (spaces, `-`, `.`, `/`, `&`
 *   between spaces, quotes...).
 * - Joiners: an apostrophe (' ’ ‘ ʼ ´ ` ′) or `&` *between two letters or digits* joins them into one
 *   word, written without the joiner: `Doğan’s` → `dogans`, `O'Brien` → `obrien`, `B&B` → `bb`.
 *   The joined word is a whole word. Its parts, and every run of neighbouring parts (`dogan` of
 *   `Doğan’s`; `obrien`, `briens` and `brien` of `O'Brien's`; `atelier` of `L'Atelier`), are also
 *   words of the text for the index (`parts`), so `dogan`, `dogans` and `Doğan’s` all find
 *   "Doğan’s Tavern", and `O’Brien` finds "O'Brien's Pub". A query keeps whole words only: `Doğan’s` asks for `dogans`, which the index
 *   holds for every text that wrote it; asking for its parts too would only narrow nothing.
 * - Words shorter than `minLength` (default 2: one-letter words are never searched) are dropped,
 *   parts included (`s` of `Doğan’s`, `o` of `O'Brien`).
 */
import { foldText } from '@svc/shared/text';

// eslint-disable-next-line no-control-regex
const ASCII_RE = /^[\x00-\x7f]*$/;
const ASCII_SPLIT = /[^a-z0-9]+/;
/** Apostrophe look-alikes people type (or keyboards make) inside words; read as '. */
const APOSTROPHE_LIKE = /[\u2019\u2018\u02bc\u00b4\u0060\u2032]/g;
/** A letter or digit, a joiner, a letter or digit: a text without one cuts like plain split. */
const JOINED_RE = /[\p{L}\p{N}]['&][\p{L}\p{N}]/u;
/** A word with its joined parts: letters and digits, joined by ' or & between them. */
const TOKEN_RE = /[\p{L}\p{N}]+(?:['&][\p{L}\p{N}]+)*/gu;
const JOINERS = /['&]/;
const JOINERS_G = /['&]/g;
/** A joined word of more parts gives its whole and its single parts only (runs grow with the square). */
const MAX_RUN_PARTS = 4;

export { foldText };

export interface CutOptions {
  /** Shortest word kept (default 2). */
  minLength?: number;
  /** Also give the parts of joined words (the index does; a query does not). */
  parts?: boolean;
}

/**
 * Calls `each(word, part)` for every word of the text, in order, duplicates kept: each whole word,
 * followed (with `parts`) by the parts of a joined word (`part` true; a part equal to its whole word
 * is not repeated).
 */
export function cutWords(value: string | null | undefined, each: (word: string, part: boolean) => void, options: CutOptions = {}): void {
  if (!value) return;
  const minLength = options.minLength ?? 2;
  const folded = foldText(value).replace(APOSTROPHE_LIKE, "'");
  if (!JOINED_RE.test(folded)) {
    const parts = folded.split(ASCII_RE.test(folded) ? ASCII_SPLIT : /[^\p{L}\p{N}]+/u);
    for (const p of parts) if (p.length >= minLength) each(p, false);
    return;
  }
  for (const m of folded.matchAll(TOKEN_RE)) {
    const token = m[0];
    if (!JOINERS.test(token)) {
      if (token.length >= minLength) each(token, false);
      continue;
    }
    const whole = token.replace(JOINERS_G, '');
    if (whole.length >= minLength) each(whole, false);
    if (!options.parts) continue;
    // Every run of neighbouring parts, longest first (O'Brien's: obrien, briens, then brien), so the
    // possessive's stem and the elided word are words too; past four parts, the parts alone.
    const parts = token.split(JOINERS);
    const k = parts.length;
    for (let len = k <= MAX_RUN_PARTS ? k - 1 : 1; len >= 1; len--) {
      for (let i = 0; i + len <= k; i++) {
        const run = len === 1 ? (parts[i] as string) : parts.slice(i, i + len).join('');
        if (run.length >= minLength && run !== whole) each(run, true);
      }
    }
  }
}

/**
 * The whole folded words of a text, in order, duplicates kept (the words a query asks for; see
 * cutWords). Words shorter than `minLength` (default 2) are dropped.
 */
export function foldWords(value: string | null | undefined, minLength = 2): string[] {
  const out: string[] = [];
  cutWords(value, (w) => out.push(w), { minLength });
  return out;
}

/** Every word the index keeps for a text: the whole words and the parts of joined words (see cutWords). */
export function indexWords(value: string | null | undefined, minLength = 2): string[] {
  const out: string[] = [];
  cutWords(value, (w) => out.push(w), { minLength, parts: true });
  return out;
}

/** A tag or legacy category value as one key: folded whole words joined by `-` (`Vegan Food` → `vegan-food`). */
export function tagKey(value: string): string {
  return foldWords(value, 1).join('-');
}
