/**
 * Recent search answers (directory spec §4: "a cached answer may be a few minutes old, and a minute
 * old with open_now=true"). Keyed by the hour, the search, the resume position and the page size, so
 * a cursor never meets an answer of another hour or search. Least recently used answers go first.
 */

export const ANSWER_TTL_MS = 180_000;
export const OPEN_NOW_ANSWER_TTL_MS = 60_000;
const MAX_ENTRIES = 20_000;

export class AnswerCache<T> {
  readonly #entries = new Map<string, { expiresAt: number; answer: T }>();
  readonly #enabled: boolean;

  constructor(enabled: boolean) {
    this.#enabled = enabled;
  }

  get(key: string, nowMs: number): T | undefined {
    if (!this.#enabled) return undefined;
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    this.#entries.delete(key);
    if (entry.expiresAt <= nowMs) return undefined;
    this.#entries.set(key, entry);
    return entry.answer;
  }

  /** The answer get() would hand back now, leaving its place among the recent ones as it is. */
  peek(key: string, nowMs: number): T | undefined {
    if (!this.#enabled) return undefined;
    const entry = this.#entries.get(key);
    return entry && entry.expiresAt > nowMs ? entry.answer : undefined;
  }

  set(key: string, answer: T, nowMs: number, ttlMs: number): void {
    if (!this.#enabled) return;
    this.#entries.set(key, { expiresAt: nowMs + ttlMs, answer });
    if (this.#entries.size > MAX_ENTRIES) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
  }
}
