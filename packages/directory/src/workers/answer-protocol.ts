/** Messages between the server's thread and its answer workers. */
import type { StorageTarget } from '@svc/shared';
import type { PlacementFacts } from '../domain/ranking/hourly-order.js';
import type { AnswerPlan, PlacedListing } from '../domain/search/answer-assembly.js';

export interface AnswerWorkerData {
  /** The directory's database: its SQLite file (opened read-only), or PostgreSQL (a connection of the worker's own). */
  storage: StorageTarget;
  /** The page renderer's version: a page of another is stale and not used. */
  pageVersion: string;
  /** SQLite page cache of the worker's connection, in KiB. */
  cacheKib: number;
}

/**
 * An AnswerPlan in columns: its numbers in one Float64Array, the shuffle keys in one string. Crossing
 * threads this costs a few microseconds; the object graph (or its JSON) costs 20–70 µs of the server's
 * thread per answer.
 */
export interface AnswerRequest {
  id: number;
  /**
   * nowMs, answeringHours, rulesVersion, then per listing: seq, rankPos, distanceKm (NaN: none),
   * openNow (-1 null, 0, 1), and what the hour's order placed it by (its why is written from them):
   * flags (1 member, 2 answering, 4 ranked), reach, score.
   */
  numbers: Float64Array;
  shuffles: string;
  rulesUrl: string;
  nextCursor: string | null;
}

/** A worker's first message: its modules are loaded and its connection is open. */
export interface AnswerWorkerReady {
  ready: true;
}

/** `bytes` null: a page was missing or stale, or the read failed (`error`); the server's thread answers instead. */
export interface AnswerResponse {
  id: number;
  bytes: Uint8Array | null;
  error?: string;
}

const HEAD = 3;
const PER_LISTING = 7;
const MEMBER = 1;
const ANSWERING = 2;
const RANKED = 4;
const SHUFFLE_LENGTH = 16;

/** The plan as a request; every listing must be placed (the server's thread assembles the others). */
export function encodePlan(id: number, plan: AnswerPlan): AnswerRequest {
  const { moment, listings } = plan;
  const numbers = new Float64Array(HEAD + PER_LISTING * listings.length);
  numbers[0] = moment.nowMs;
  numbers[1] = moment.answeringHours;
  numbers[2] = moment.rulesVersion;
  let shuffles = '';
  listings.forEach((listing, i) => {
    const placement = listing.placement;
    if (!placement || placement.shuffle.length !== SHUFFLE_LENGTH) throw new TypeError(`listing ${listing.seq} has no placement to send`);
    const facts = placement.facts;
    const at = HEAD + PER_LISTING * i;
    numbers[at] = listing.seq;
    numbers[at + 1] = listing.rankPos;
    numbers[at + 2] = listing.distanceKm ?? NaN;
    numbers[at + 3] = listing.openNow === null ? -1 : listing.openNow ? 1 : 0;
    numbers[at + 4] = (facts.member ? MEMBER : 0) | (facts.answering ? ANSWERING : 0) | (facts.standing.ranked ? RANKED : 0);
    numbers[at + 5] = facts.reach;
    numbers[at + 6] = facts.standing.scoreInt;
    shuffles += placement.shuffle;
  });
  return { id, numbers, shuffles, rulesUrl: moment.rulesUrl, nextCursor: plan.nextCursor };
}

export function decodePlan(request: AnswerRequest): AnswerPlan {
  const { numbers } = request;
  const listings: PlacedListing[] = [];
  for (let at = HEAD, i = 0; at < numbers.length; at += PER_LISTING, i++) {
    const distance = numbers[at + 2] as number;
    const open = numbers[at + 3] as number;
    const flags = numbers[at + 4] as number;
    const shuffle = request.shuffles.slice(i * SHUFFLE_LENGTH, (i + 1) * SHUFFLE_LENGTH);
    listings.push({
      seq: numbers[at] as number,
      rankPos: numbers[at + 1] as number,
      distanceKm: Number.isNaN(distance) ? undefined : distance,
      openNow: open === -1 ? null : open === 1,
      placement: { shuffle, facts: { member: (flags & MEMBER) !== 0, answering: (flags & ANSWERING) !== 0, reach: numbers[at + 5] as PlacementFacts['reach'], standing: { ranked: (flags & RANKED) !== 0, scoreInt: numbers[at + 6] as number }, shuffle } },
    });
  }
  return {
    moment: { nowMs: numbers[0] as number, answeringHours: numbers[1] as number, rulesVersion: numbers[2] as number, rulesUrl: request.rulesUrl },
    listings,
    nextCursor: request.nextCursor,
  };
}
