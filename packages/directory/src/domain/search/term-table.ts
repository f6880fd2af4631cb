/**
 * The word dictionary of the index: an open-addressing hash table from folded word to term id that
 * can look up a word straight from a slice of a longer text, so tokenizing a listing allocates no
 * string for a word the table already holds (a million listings are tens of millions of words).
 */
import { cutWords, foldText } from './text.js';

// eslint-disable-next-line no-control-regex
const ASCII_RE = /^[\x00-\x7f]*$/;
/** An ASCII joiner (apostrophe, backtick, &) between two letters or digits: cutWords joins there. */
const ASCII_JOINED_RE = /[a-z0-9]['`&][a-z0-9]/i;

function hashOf(word: string): number {
  let h = 0x811c9dc5 | 0;
  for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 0x01000193);
  return h;
}

export class TermTable {
  private slots: Int32Array; // index into keys, -1 empty
  private slotHash: Int32Array;
  private readonly keys: string[] = [];
  private readonly ids: number[] = [];
  private mask: number;

  constructor(capacity = 1 << 12) {
    let c = 16;
    while (c < capacity * 2) c <<= 1;
    this.slots = new Int32Array(c).fill(-1);
    this.slotHash = new Int32Array(c);
    this.mask = c - 1;
  }

  get size(): number {
    return this.keys.length;
  }

  /** Bytes of the table's typed arrays (the words themselves are strings on the JS heap). */
  get byteLength(): number {
    return this.slots.byteLength + this.slotHash.byteLength;
  }

  get(word: string): number | undefined {
    const h = hashOf(word);
    for (let s = h & this.mask; ; s = (s + 1) & this.mask) {
      const k = this.slots[s]!;
      if (k < 0) return undefined;
      if (this.slotHash[s] === h && this.keys[k] === word) return this.ids[k];
    }
  }

  /** The id of `word`, added with `newId()` when absent. */
  intern(word: string, newId: () => number): number {
    const h = hashOf(word);
    let s = h & this.mask;
    for (; ; s = (s + 1) & this.mask) {
      const k = this.slots[s]!;
      if (k < 0) break;
      if (this.slotHash[s] === h && this.keys[k] === word) return this.ids[k]!;
    }
    return this.insertAt(s, h, word, newId());
  }

  /**
   * Calls `each(id)` for every word the index keeps for the text (exactly the words of indexWords:
   * text outside ASCII after folding, or with a joined word such as `Joe's` or `B&B`, takes cutWords
   * itself; plain ASCII text is cut here without a string per known word), adding unknown words with
   * `newId()`.
   */
  forEachWord(text: string, newId: () => number, each: (id: number) => void): void {
    let t = text;
    if (!ASCII_RE.test(t)) t = foldText(t);
    if (!ASCII_RE.test(t) || ASCII_JOINED_RE.test(t)) {
      cutWords(t, (w) => each(this.intern(w, newId)), { parts: true });
      return;
    }
    const len = t.length;
    let start = -1;
    let h = 0;
    for (let i = 0; i <= len; i++) {
      let c = i < len ? t.charCodeAt(i) : 0;
      if (c >= 65 && c <= 90) c += 32;
      const word = (c >= 97 && c <= 122) || (c >= 48 && c <= 57);
      if (word) {
        if (start < 0) {
          start = i;
          h = 0x811c9dc5 | 0;
        }
        h = Math.imul(h ^ c, 0x01000193);
      } else if (start >= 0) {
        if (i - start >= 2) each(this.internSlice(t, start, i, h, newId));
        start = -1;
      }
    }
  }

  /** t[start, end) lower-cased (ASCII), with hash h. */
  private internSlice(t: string, start: number, end: number, h: number, newId: () => number): number {
    const n = end - start;
    let s = h & this.mask;
    outer: for (; ; s = (s + 1) & this.mask) {
      const k = this.slots[s]!;
      if (k < 0) break;
      if (this.slotHash[s] !== h) continue;
      const key = this.keys[k]!;
      if (key.length !== n) continue;
      for (let i = 0; i < n; i++) {
        let c = t.charCodeAt(start + i);
        if (c >= 65 && c <= 90) c += 32;
        if (key.charCodeAt(i) !== c) continue outer;
      }
      return this.ids[k]!;
    }
    return this.insertAt(s, h, t.slice(start, end).toLowerCase(), newId());
  }

  private insertAt(slot: number, h: number, word: string, id: number): number {
    const k = this.keys.length;
    this.keys.push(word);
    this.ids.push(id);
    this.slots[slot] = k;
    this.slotHash[slot] = h;
    if (this.keys.length * 2 > this.slots.length) this.grow();
    return id;
  }

  /** What a snapshot keeps of the table (index-snapshot.ts): its slots as they are, and its words with their ids. */
  parts(): { keys: readonly string[]; ids: Int32Array; slots: Int32Array; slotHash: Int32Array } {
    return { keys: this.keys, ids: Int32Array.from(this.ids), slots: this.slots, slotHash: this.slotHash };
  }

  /** The table parts() gave, without hashing a word again. */
  static fromParts(parts: { keys: readonly string[]; ids: Int32Array; slots: Int32Array; slotHash: Int32Array }): TermTable {
    const c = parts.slots.length;
    if (c < 16 || (c & (c - 1)) !== 0 || parts.slotHash.length !== c || parts.keys.length !== parts.ids.length || parts.keys.length * 2 > c) throw new Error('not a word table');
    const table = new TermTable(0);
    table.slots = parts.slots;
    table.slotHash = parts.slotHash;
    table.mask = c - 1;
    for (let k = 0; k < parts.keys.length; k++) {
      table.keys.push(parts.keys[k]!);
      table.ids.push(parts.ids[k]!);
    }
    return table;
  }

  private grow(): void {
    const c = this.slots.length * 2;
    const slots = new Int32Array(c).fill(-1);
    const slotHash = new Int32Array(c);
    const mask = c - 1;
    for (let s = 0; s < this.slots.length; s++) {
      const k = this.slots[s]!;
      if (k < 0) continue;
      const h = this.slotHash[s]!;
      let t = h & mask;
      while (slots[t]! >= 0) t = (t + 1) & mask;
      slots[t] = k;
      slotHash[t] = h;
    }
    this.slots = slots;
    this.slotHash = slotHash;
    this.mask = mask;
  }
}
