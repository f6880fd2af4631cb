/**
 * Reads answered from memory (issue 11): the profile, the services, the products and availability
 * are the same bytes for everyone until the owner changes something (and the owner's item list
 * until an item changes; who may read it is checked before, as for every owner call), so an answer is
 * kept with its JSON bytes and their ETag, under a stamp of what it was read from (the store's
 * ChangeStamps: taken before the reads, and different once any of it may have changed, whichever
 * process wrote it). A call whose stamp still matches is answered with the kept bytes; any other
 * call reads, builds and keeps the answer again. An answer that depends on the time also says until
 * when it holds (availability: until its first start falls inside the notice period).
 *
 * Bounded: at most MAX_KEPT answers and MAX_KEPT_BYTES in all; the oldest go first. Kept bodies are
 * frozen, since the MCP door and output checks read the very object later calls get.
 */
import { BoundedKeep, canonicalJson, deepFreeze, etagOfText, type ResponseExtras } from '@svc/shared';
import type { ChangeTopic } from '../store/store.js';
import type { DomainContext } from '../domain/context.js';

const MAX_KEPT = 256;
const MAX_KEPT_BYTES = 4 * 1024 * 1024;

interface Kept {
  stamp: string;
  /** The answer holds while the clock is before this (ms); Infinity when time does not change it. */
  validUntilMs: number;
  body: unknown;
  bytes: Buffer;
  etag: string;
  /** Whether this is still the answer now: the stamp of its topics unchanged and its time not up. */
  holds: () => boolean;
}

/** What a read computes when nothing kept holds. */
export interface Fresh<T> {
  body: T;
  validUntilMs?: number;
}

/** The answers one inbox keeps (one per running inbox: tests run several in one process). */
export class KeptAnswers {
  readonly #entries = new BoundedKeep<Kept>({ maxEntries: MAX_KEPT, maxSize: MAX_KEPT_BYTES, sizeOf: (kept) => kept.bytes.length });

  get(key: string, stamp: string, nowMs: number): Kept | undefined {
    const kept = this.#entries.get(key);
    return kept && kept.stamp === stamp && nowMs < kept.validUntilMs ? kept : undefined;
  }

  set(key: string, kept: Kept): void {
    this.#entries.set(key, kept);
  }
}

/**
 * Answers a public read from what is kept for (operation, input) when its stamp still matches;
 * otherwise runs `read` and keeps what it answers. The bytes and their tag go to the door through
 * `extras.serialized`.
 */
export async function keptAnswer<T>(
  ctx: { domain: Pick<DomainContext, 'store' | 'clock'>; keptAnswers: KeptAnswers },
  extras: ResponseExtras,
  operation: string,
  input: unknown,
  topics: readonly ChangeTopic[],
  read: () => Promise<Fresh<T>>,
): Promise<T> {
  const stamp = await ctx.domain.store.changes.stamp(topics);
  const key = `${operation} ${canonicalJson(input)}`;
  const kept = ctx.keptAnswers.get(key, stamp, ctx.domain.clock.now()) ?? (await keepFresh(ctx, key, topics, stamp, read));
  extras.serialized = { bytes: kept.bytes, etag: kept.etag, holds: kept.holds };
  return kept.body as T;
}

async function keepFresh<T>(
  ctx: { domain: Pick<DomainContext, 'store' | 'clock'>; keptAnswers: KeptAnswers },
  key: string,
  topics: readonly ChangeTopic[],
  stamp: string,
  read: () => Promise<Fresh<T>>,
): Promise<Kept> {
  const fresh = await read();
  const body = deepFreeze(fresh.body);
  const bytes = Buffer.from(JSON.stringify(body));
  const validUntilMs = fresh.validUntilMs ?? Number.POSITIVE_INFINITY;
  const { store, clock } = ctx.domain;
  const kept: Kept = {
    stamp,
    validUntilMs,
    body,
    bytes,
    etag: etagOfText(bytes),
    // The answer replayed in front of the framework holds while this one would be served (no stamp is a promise on SQLite).
    holds: () => {
      const now = store.changes.stamp(topics);
      return typeof now === 'string' && now === stamp && clock.now() < validUntilMs;
    },
  };
  ctx.keptAnswers.set(key, kept);
  return kept;
}
