/**
 * Rendered pages of the owner app kept in memory (docs/web.md "Budgets"): the inbox and an item page
 * are the same bytes for one session, one address and one language until something in the inbox is
 * written, so the rendered text is kept under the store's change stamp of every table (ChangeStamps:
 * taken before the page's reads; different once any table may have changed, a rolled-back write or
 * another process's write included) and the minute it was rendered in (what the page says of the
 * time: "today" shows a time, another day a date, the moves an item allows now).
 *
 * Kept per session: a page holds the session's CSRF token, so one session's page is never another's.
 * The session is checked before any kept page is served (an ended session gets none), and a
 * sign-out forgets the session's pages at once. Each form's idempotency key is not kept: the page is
 * kept as the bytes between the keys' places, and every serving puts fresh keys there, as a new render
 * would (two tabs showing the same page send two different replies, not one refused as a repeat).
 * The parts are kept encoded: a page served as text was measured its UTF-8 length and encoded again
 * on every serving (a fifth of an item page's cost). To a browser (it takes gzip) a page with form
 * keys goes in gzip made of its parts compressed once (GzipParts): compressing every serving anew,
 * in brotli, cost several times the rest of the serving.
 *
 * Bounded: at most MAX_PAGES pages and MAX_BYTES of text in all; the oldest go first.
 */
import { BoundedKeep, GzipParts, randomToken } from '@svc/shared';
import { FORM_KEY_LENGTH, newFormKeys, type AppLanguage } from './app-kit.js';

const MAX_PAGES = 256;
const MAX_BYTES = 8 * 1024 * 1024;
const MINUTE_MS = 60_000;
/** Smaller pages go as they are: the compression hook's threshold. */
const GZIP_FROM_BYTES = 1024;

/** A kept page: its bytes cut at the places of the form keys. */
export interface KeptPage {
  lang: AppLanguage;
  /** The page's UTF-8 bytes, cut where a form's idempotency key goes (one fewer key than parts). */
  parts: readonly Buffer[];
  /** The parts' bytes together. */
  partsLength: number;
  /**
   * The page's bytes when it has no form key (the inbox): the same Buffer each time, so the
   * compression hook keeps its compressed forms with it, as for kept JSON answers.
   */
  bytes: Buffer | null;
  /** The parts compressed for gzip, made (or being made) at the page's first serving in gzip. */
  gzip?: GzipParts | Promise<GzipParts>;
}

/** A page as one request gets it: its bytes, and whether they are gzip. */
export interface ServedPage {
  body: Buffer;
  gzip: boolean;
}

/** A rendered page cut at the places of its form keys (`slot`), ready to be served again. */
export function pageOf(lang: AppLanguage, text: string, slot: string): KeptPage {
  const parts = text.split(slot).map((part) => Buffer.from(part));
  return { lang, parts, partsLength: parts.reduce((sum, part) => sum + part.length, 0), bytes: parts.length === 1 ? parts[0]! : null };
}

interface Entry extends KeptPage {
  tokenHash: string;
  stamp: string;
  minute: number;
  size: number;
}

/** What a kept page is kept under: who (the session), what (the address with its query) and in which language cookie. */
export interface PageKey {
  tokenHash: string;
  url: string;
  languageCookie: string | undefined;
}

export class KeptPages {
  readonly #entries = new BoundedKeep<Entry>({ maxEntries: MAX_PAGES, maxSize: MAX_BYTES, sizeOf: (entry) => entry.size });
  /**
   * What a render for keeping puts where a form key goes: random per inbox, so no text a customer
   * wrote can stand for it (and it is only looked for in pages rendered for keeping).
   */
  readonly formKeySlot = `app-slot-${randomToken(18)}`;

  static minuteOf(nowMs: number): number {
    return Math.floor(nowMs / MINUTE_MS);
  }

  get(key: PageKey, stamp: string, nowMs: number): KeptPage | undefined {
    const entry = this.#entries.get(keyText(key));
    return entry && entry.tokenHash === key.tokenHash && entry.stamp === stamp && entry.minute === KeptPages.minuteOf(nowMs) ? entry : undefined;
  }

  /** Whether `page` is what get() would give now: still kept (not forgotten at a sign-out), under this stamp, this minute. */
  stillServes(key: PageKey, page: KeptPage, stamp: string, nowMs: number): boolean {
    return this.get(key, stamp, nowMs) === page;
  }

  /** Keeps a page rendered with `formKeySlot` for each form key, ready to be served (servedPage). */
  keep(key: PageKey, stamp: string, renderedAtMs: number, lang: AppLanguage, text: string): KeptPage {
    const page = pageOf(lang, text, this.formKeySlot);
    const entry: Entry = { ...page, tokenHash: key.tokenHash, stamp, minute: KeptPages.minuteOf(renderedAtMs), size: page.partsLength };
    this.#entries.set(keyText(key), entry);
    return entry;
  }

  /** A session signed out: its pages go at once (they could not be served anyway: the session is checked first). */
  forgetSession(tokenHash: string): void {
    this.#entries.deleteWhere((entry) => entry.tokenHash === tokenHash);
  }

  /** Every session signed out. */
  forgetAll(): void {
    this.#entries.clear();
  }
}

/**
 * The page with a fresh form key in each key's place, in gzip when the request takes it and the page
 * is worth compressing. The keys are drawn in one go and written with the parts into one buffer (a
 * key drawn, encoded and concatenated apiece was a fifth of a kept item page's cost).
 */
export async function servedPage(page: KeptPage, takesGzip: boolean): Promise<ServedPage> {
  if (page.bytes) return { body: page.bytes, gzip: false };
  if (takesGzip && page.partsLength >= GZIP_FROM_BYTES) {
    const gzip = page.gzip ?? (page.gzip = gzipPartsOf(page));
    return { body: (gzip instanceof GzipParts ? gzip : await gzip).with(newFormKeys(page.parts.length - 1)), gzip: true };
  }
  return { body: withFreshKeys(page), gzip: false };
}

/** Another serving like `served`, made at once: null when its gzip parts are not ready (they always are after a serving in gzip). */
export function servedAgain(page: KeptPage, served: ServedPage): Buffer | null {
  if (page.bytes) return page.bytes;
  if (!served.gzip) return withFreshKeys(page);
  return page.gzip instanceof GzipParts ? page.gzip.with(newFormKeys(page.parts.length - 1)) : null;
}

function withFreshKeys(page: KeptPage): Buffer {
  const keys = newFormKeys(page.parts.length - 1);
  let keysLength = 0;
  for (const key of keys) keysLength += key.length;
  const served = Buffer.allocUnsafe(page.partsLength + keysLength);
  let at = page.parts[0]!.copy(served, 0);
  for (let i = 0; i < keys.length; i++) {
    // A key is base64url text: one byte a character.
    at += served.write(keys[i]!, at, 'latin1');
    at += page.parts[i + 1]!.copy(served, at);
  }
  return served;
}

/** The page's parts compressed, shared by the servings that ask before they are ready. */
function gzipPartsOf(page: KeptPage): Promise<GzipParts> {
  return GzipParts.prepare(page.parts, FORM_KEY_LENGTH).then(
    (gzip) => (page.gzip = gzip),
    (error: unknown) => {
      // Tried again by the next serving, not failed for good.
      page.gzip = undefined;
      throw error;
    },
  );
}

/** Neither a cookie's value nor a request's address can hold a line break. */
function keyText(key: PageKey): string {
  return `${key.tokenHash}\n${key.languageCookie ?? ''}\n${key.url}`;
}
