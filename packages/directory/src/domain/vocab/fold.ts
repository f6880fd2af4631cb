/**
 * Folding of words for matching categories and search words: capitals and accents do not count,
 * and '-', '_' and white space are the same separator ("Hair-Beauty", "hair_beauty" and
 * "hair beauty" fold alike).
 */

import { foldText } from '@svc/shared/text';
import { indexWords } from '../search/text.js';

const SEPARATORS = /[\s_-]+/g;
/** Apostrophe look-alikes (’ ‘ ʼ ´ ` ′) read as ', so `chambre d'hôtes` names `chambre d’hôtes`. */
const APOSTROPHE_LIKE = /[\u2019\u2018\u02bc\u00b4\u0060\u2032]/g;

/** Folded as everywhere (shared foldText), apostrophes made one, separators made one space, trimmed. */
export function fold(text: string): string {
  return foldText(text).replace(APOSTROPHE_LIKE, "'").replace(SEPARATORS, ' ').trim();
}

/**
 * The words of a text, as the search index keeps them (search/text.ts cutWords, the one way text
 * becomes words: whole words and the parts of words joined by an apostrophe or `&`), one-letter
 * words included.
 */
export function foldWords(text: string): string[] {
  return indexWords(text, 1);
}

/**
 * Edit distance of two strings, counting an insertion, a deletion, a substitution or the swap of
 * two neighbouring letters as one edit (optimal string alignment). Gives up past `max` and then
 * returns max + 1.
 */
export function editDistance(a: string, b: string, max = Number.POSITIVE_INFINITY): number {
  if (a === b) return 0;
  if (Math.abs(a.length - b.length) > max) return max + 1;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  const width = b.length + 1;
  let before = new Array<number>(width).fill(0);
  let prev = new Array<number>(width);
  let cur = new Array<number>(width);
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const ai = a.charCodeAt(i - 1);
      const bj = b.charCodeAt(j - 1);
      let v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (ai === bj ? 0 : 1));
      if (i > 1 && j > 1 && ai === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === bj) v = Math.min(v, before[j - 2]! + 1);
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > max) return max + 1;
    [before, prev, cur] = [prev, cur, before];
  }
  const d = prev[b.length]!;
  return d > max ? max + 1 : d;
}
