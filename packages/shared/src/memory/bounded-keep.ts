/**
 * What a service keeps in memory between requests (answers, pages, views), bounded by a number of
 * entries and a total size: when either would be passed, the entries kept longest go first. An
 * entry larger than the whole budget is not kept at all.
 */
export class BoundedKeep<V> {
  readonly #entries = new Map<string, V>();
  readonly #maxEntries: number;
  readonly #maxSize: number;
  readonly #sizeOf: (value: V) => number;
  #size = 0;

  /** `sizeOf`: an entry's share of `maxSize` (its bytes, usually). */
  constructor(limits: { maxEntries: number; maxSize: number; sizeOf: (value: V) => number }) {
    this.#maxEntries = limits.maxEntries;
    this.#maxSize = limits.maxSize;
    this.#sizeOf = limits.sizeOf;
  }

  get(key: string): V | undefined {
    return this.#entries.get(key);
  }

  /** Keeps `value` under `key` (replacing what was there); false when it is too large to keep. */
  set(key: string, value: V): boolean {
    this.delete(key);
    const size = this.#sizeOf(value);
    if (size > this.#maxSize) return false;
    while (this.#entries.size >= this.#maxEntries || this.#size + size > this.#maxSize) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.delete(oldest);
    }
    this.#entries.set(key, value);
    this.#size += size;
    return true;
  }

  delete(key: string): void {
    const value = this.#entries.get(key);
    if (value === undefined) return;
    this.#entries.delete(key);
    this.#size -= this.#sizeOf(value);
  }

  /** Drops every entry `drop` answers true for. */
  deleteWhere(drop: (value: V, key: string) => boolean): void {
    for (const [key, value] of this.#entries) if (drop(value, key)) this.delete(key);
  }

  clear(): void {
    this.#entries.clear();
    this.#size = 0;
  }

  get count(): number {
    return this.#entries.size;
  }

  /** The total size of what is kept. */
  get size(): number {
    return this.#size;
  }
}

/**
 * Freezes a value and everything in it: a kept answer is handed to every later caller (the MCP
 * door and output checks read the very object), so none of them may change it.
 */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
