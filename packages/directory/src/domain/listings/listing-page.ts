/**
 * A listing's search-result view, kept pre-rendered beside the listing so that a page of results is
 * assembled as text instead of reading, parsing and re-serialising every listing document.
 *
 * The fixed sections of the view (listing-view.ts) are rendered once, when the listing is written,
 * with the moment sections that are the same at every moment for this listing; the others (open_now,
 * distance_km, rank_pos, rank_shuffle, why, and for some listings hours with today's closures,
 * answering, reputation) are rendered per answer from a few kept inputs. Both come from the
 * same VIEW_SECTIONS, so the assembled text is byte for byte what JSON.stringify(listingView(...))
 * gives (the tests hold the two side by side).
 */
import { createHash } from 'node:crypto';
import { rankInputsOf } from '../ranking/hourly-order.js';
import type { ListingRecord } from './listing.js';
import { VIEW_SECTIONS, hoursShownByMoment, type FixedViewOptions, type ListingMomentFields, type MomentViewOptions, type ViewSection } from './listing-view.js';

/**
 * Bump when the fixed part of a view changes for the same listing (a section, or a helper such as
 * the attribute keys shown): pages of another version are rendered again and never served.
 * `listing-page.test.ts` fails on a change of output until this and its fingerprint are updated.
 */
export const PAGE_FORMAT = 8;

/**
 * What a page keeps to render its moment sections and to place the listing in the hour's order. A
 * member's doors and payments are kept (its doors, level and accepts follow its inbox answering); a
 * business that is not a member has them rendered once with the rest.
 */
export interface ListingPageInputs extends Omit<ListingMomentFields, 'doors' | 'payments'> {
  doors?: ListingMomentFields['doors'];
  payments?: ListingMomentFields['payments'];
  id: string;
  /** levelRank() of the listing's highest live door. */
  level: number;
  /** A live agent door other than an inbox at askable or above. */
  agentDoor: boolean;
}

/** A rendered page: its inputs (JSON of ListingPageInputs) and its sections, each rendered or marked to be rendered per answer. */
export interface ListingPage {
  inputs: string;
  fixed: string;
}

/** Between sections, and the mark of a section rendered per answer. JSON text never holds a raw control character. */
const SEPARATOR = '\u0001';
// (assembleListingBytes reads the same two marks as bytes.)
const PER_ANSWER = '\u0002';

/** Any moment: sections that are the same at every moment are rendered with it. */
const ANY_MOMENT: MomentViewOptions = { nowMs: 0, answeringHours: 24, rulesVersion: 0, rulesUrl: '', openNow: null };

/** Fields as they appear inside a JSON object (without the braces); '' when there are none. */
function innerJson(fields: Record<string, unknown>): string {
  const json = JSON.stringify(fields);
  return json.length === 2 ? '' : json.slice(1, -1);
}

/**
 * How another thread makes the same renderer (the bulk load renders pages on worker threads): the
 * module's export `name` called with `args`.
 */
export interface PageRendererRecipe {
  module: string;
  name: string;
  args: readonly string[];
}

/** Renders pages of the search-result view (not the detail view) for one vocabulary. */
export class ListingPageRenderer {
  /** Stored pages carry this; one of another version is stale. */
  readonly version: string;
  readonly recipe: PageRendererRecipe | undefined;
  readonly #fixed: FixedViewOptions;

  /**
   * `vocabularyRelease` names what categoryPath reads (the taxonomy's release and our group mapping);
   * `baseUrl` is the directory's public URL, which found listings' about_url start with: pages made
   * under another one are stale. `recipe`, when given, makes this renderer on another thread.
   */
  constructor(categoryPath: (placeId: string) => string[], vocabularyRelease: string, baseUrl: string, recipe?: PageRendererRecipe) {
    this.#fixed = { categoryPath, detail: false, baseUrl };
    this.recipe = recipe;
    this.version = `${PAGE_FORMAT}/${vocabularyRelease}@${createHash('sha256').update(baseUrl).digest('hex').slice(0, 8)}`;
  }

  render(listing: ListingRecord): ListingPage {
    const rank = rankInputsOf(listing);
    const inputs: ListingPageInputs = {
      id: listing.id,
      source: listing.source,
      lastPingAt: listing.lastPingAt,
      verifiedAt: listing.verifiedAt,
      createdAt: listing.createdAt,
      hours: hoursShownByMoment(listing) ? listing.hours : null,
      level: rank.level,
      agentDoor: rank.agentDoor,
      ...(listing.source === 'member' ? { doors: listing.doors, payments: listing.payments } : {}),
    };
    const pieces = VIEW_SECTIONS.map((section) => {
      if (section.kind === 'fixed') return innerJson(section.fields(listing, this.#fixed));
      return section.sameAtEveryMoment?.(listing) ? innerJson(section.fields(listing, ANY_MOMENT)) : PER_ANSWER;
    });
    return { inputs: JSON.stringify(inputs), fixed: pieces.join(SEPARATOR) };
  }
}

/**
 * A stored page as read for an answer: `fixed` as its UTF-8 bytes, so an answer is assembled without
 * decoding and encoding it again, and its inputs parsed only when something reads them (most
 * listings' per-answer sections need none: the place and why come from the hour's table).
 */
export class StoredListingPage implements ListingMomentFields {
  readonly fixed: Buffer;
  readonly #text: string;
  #parsed: ListingPageInputs | undefined;

  constructor(inputsText: string, fixed: Buffer) {
    this.#text = inputsText;
    this.fixed = fixed;
  }

  get inputs(): ListingPageInputs {
    return (this.#parsed ??= JSON.parse(this.#text) as ListingPageInputs);
  }

  get source() {
    return this.inputs.source;
  }
  get lastPingAt() {
    return this.inputs.lastPingAt;
  }
  get verifiedAt() {
    return this.inputs.verifiedAt;
  }
  get createdAt() {
    return this.inputs.createdAt;
  }
  get hours() {
    return this.inputs.hours;
  }
  get doors() {
    return this.inputs.doors ?? [];
  }
  get payments() {
    return this.inputs.payments ?? [];
  }
}

/**
 * The buffer answers are written in, kept from one answer to the next. Every answer's bytes leave
 * it as one copy of their size, so a search allocates ~50 KB outside V8's heap rather than twice
 * that: V8 runs a full collection of the heap for every few dozen MB allocated there
 * (docs/directory.md, "Full collections on the search path").
 */
let spareBuffer: Buffer | null = null;
/** A buffer grown past this (an answer of 100 listings) is not kept for the next answer. */
const SPARE_MAX_BYTES = 512 * 1024;
const FINISHED = Buffer.alloc(0);

/**
 * An answer's JSON assembled from stored bytes and rendered text, written into one buffer. It is
 * written in one go (no await between the first write and toBuffer() or toOwnedBytes(), which
 * finish it and hand its buffer to the next answer).
 */
export class JsonBytes {
  #buffer: Buffer;
  #length = 0;

  /** `capacity`: a page of 20 results is ~50 KB; the buffer grows when needed. */
  constructor(capacity = 64 * 1024) {
    const spare = spareBuffer;
    if (spare && spare.length >= capacity) {
      spareBuffer = null;
      this.#buffer = spare;
    } else {
      this.#buffer = Buffer.allocUnsafe(capacity);
    }
  }

  bytes(b: Buffer, start = 0, end = b.length): void {
    this.#reserve(end - start);
    this.#length += b.copy(this.#buffer, this.#length, start, end);
  }

  text(s: string): void {
    const n = s.length;
    // A UTF-16 unit takes at most 3 bytes in UTF-8.
    this.#reserve(3 * n);
    const buffer = this.#buffer;
    let at = this.#length;
    // Most pieces are short and ASCII (punctuation, numbers, keys): copied here rather than through
    // a native call each; anything else is encoded by Buffer.write.
    if (n <= 64) {
      let i = 0;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        buffer[at + i] = c;
      }
      if (i === n) {
        this.#length = at + n;
        return;
      }
    }
    at += buffer.write(s, at, 'utf8');
    this.#length = at;
  }

  #reserve(bytes: number): void {
    if (this.#length + bytes <= this.#buffer.length) return;
    if (this.#buffer === FINISHED) throw new Error('JsonBytes: already finished');
    const grown = Buffer.allocUnsafe(Math.max(2 * this.#buffer.length, this.#length + bytes));
    this.#buffer.copy(grown, 0, 0, this.#length);
    this.#buffer = grown;
  }

  /** The bytes in a buffer of their own and of their size (to be moved to another thread): one copy. */
  toOwnedBytes(): Uint8Array<ArrayBuffer> {
    const owned = new Uint8Array(this.#length);
    owned.set(this.#written());
    this.#finish();
    return owned;
  }

  /** The bytes in a buffer of their own and of their size (an answer may be kept by the cache): one copy. */
  toBuffer(): Buffer {
    const owned = Buffer.from(this.#written());
    this.#finish();
    return owned;
  }

  #written(): Buffer {
    if (this.#buffer === FINISHED) throw new Error('JsonBytes: already finished');
    return this.#buffer.subarray(0, this.#length);
  }

  #finish(): void {
    if (this.#buffer.length <= SPARE_MAX_BYTES) spareBuffer = this.#buffer;
    this.#buffer = FINISHED;
    this.#length = 0;
  }
}

const SEPARATOR_BYTE = 0x01;
const PER_ANSWER_BYTE = 0x02;

/**
 * The listing's view as JSON, into `out`: the sections its page keeps as rendered (as stored bytes;
 * in UTF-8 neither mark byte occurs inside a character), the others rendered for this answer.
 */
export function assembleListingBytes(fixed: Buffer, inputs: ListingMomentFields, moment: MomentViewOptions, out: JsonBytes): void {
  out.text('{');
  let first = true;
  let start = 0;
  for (let i = 0; i < VIEW_SECTIONS.length; i++) {
    const section = VIEW_SECTIONS[i] as ViewSection;
    const found = start <= fixed.length ? fixed.indexOf(SEPARATOR_BYTE, start) : -1;
    const stop = found === -1 ? fixed.length : found;
    if (stop - start === 1 && fixed[start] === PER_ANSWER_BYTE) {
      const text = section.kind !== 'moment' ? '' : section.text ? section.text(inputs, moment) : innerJson(section.fields(inputs, moment));
      if (text !== '') {
        out.text(first ? text : `,${text}`);
        first = false;
      }
    } else if (stop > start) {
      if (!first) out.text(',');
      out.bytes(fixed, start, stop);
      first = false;
    }
    start = found === -1 ? fixed.length + 1 : found + 1;
  }
  out.text('}');
}
