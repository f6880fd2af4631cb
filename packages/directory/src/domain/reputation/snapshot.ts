/**
 * The nightly reputation snapshot (docs/reputation.md "The snapshot"): at 00:00 UTC every verified
 * member is scored from the receipts that reached the network before that midnight (the scoring
 * time), by the published arithmetic (arithmetic.ts), under the ranking rules in force then.
 *
 * - Deterministic: a night's scores depend only on the receipts that arrived before its midnight and
 *   on when each member was verified, so running it late, or again, gives the same scores.
 * - Resumable: members are scored in batches, each written with the night's progress (its cursor) in
 *   one transaction; a run that stopped (a crash, a restart) goes on after the last batch written.
 * - Idempotent per night: a night computed is not computed again.
 * - Two phases: `computed` (every score written; the hourly order reads them from then on), then
 *   `published` (every member's listing shows them; also in batches, resumable).
 *
 * The job runs at each midnight and schedules the next; an hour's order that needs a night's scores
 * and finds them missing computes them first (the same run, shared).
 */
import { newId, type JobRecord } from '@svc/shared';
import type { DirectoryContext } from '../context.js';
import type { Standing } from '../ranking/hourly-order.js';
import { rulesInForce } from '../ranking/rules.js';
import type { DirectoryStore } from '../../store/store.js';
import { recordNightBegun } from '../evidence/evidence-log.js';
import { evidencePieces, scoreBusiness } from './arithmetic.js';
import { DAY_MS, listingReputationOf, midnightOf, nextNight, nightOf, type MemberReputation, type ReputationNight } from './reputation.js';

export const SNAPSHOT_JOB = 'reputation.snapshot';
/** One job row, moved to each next midnight when a night is done. */
const SNAPSHOT_DEDUPE = 'reputation-snapshot';
/** Members scored, or listings written, per transaction. */
export const SNAPSHOT_BATCH = 100;
/** Nights kept (the last complete one is what everything reads; older ones explain what changed). */
export const NIGHTS_KEPT = 8;

export class ReputationSnapshots {
  readonly #ctx: DirectoryContext;
  readonly #running = new Map<string, Promise<ReputationNight>>();

  constructor(ctx: DirectoryContext) {
    this.#ctx = ctx;
  }

  /** The night's snapshot, computed and published unless it was; one run per night at a time in this process. */
  ensure(night: string): Promise<ReputationNight> {
    let run = this.#running.get(night);
    if (!run) {
      run = this.#run(night).finally(() => this.#running.delete(night));
      this.#running.set(night, run);
    }
    return run;
  }

  /**
   * The standings the order of the hour starting at `hourStartMs` is made with: the night of that
   * hour's date, computed first if it is not yet (so the order at 00:00 already reads that night's
   * scores), by listing seq.
   */
  async standingsFor(hourStartMs: number): Promise<Map<number, Standing>> {
    const night = nightOf(hourStartMs);
    await this.ensure(night);
    const complete = await this.#ctx.store.reputation.latestComplete(night);
    return complete ? this.#ctx.store.reputation.standingsBySeq(complete.night) : new Map();
  }

  async #run(night: string): Promise<ReputationNight> {
    const { store, clock } = this.#ctx;
    const scoringTime = midnightOf(night);
    let record = await store.reputation.night(night);
    if (!record) {
      const begun: ReputationNight = { night, scoringTime, rulesVersion: rulesInForce(scoringTime).version, status: 'computing', cursor: null, members: 0, startedAt: clock.now(), computedAt: null, publishedAt: null };
      // The evidence log marks where the night begins: every receipt before its midnight has committed
      // once this holds the log's turn, and none after it is dated before (docs/verifiable-order.md).
      await store.transaction(async (tx) => {
        await recordNightBegun(tx, night, scoringTime, clock.now());
        await tx.reputation.putNight(begun);
      });
      record = begun;
    }
    while (record.status === 'computing') record = await this.#computeBatch(record);
    while (record.status === 'computed') record = await this.#publishBatch(record);
    return record;
  }

  /** Scores the next batch of verified members and records how far it got, in one transaction. */
  async #computeBatch(record: ReputationNight): Promise<ReputationNight> {
    const { store, clock } = this.#ctx;
    const batch = await store.instances.verified(record.cursor, SNAPSHOT_BATCH);
    if (batch.length === 0) {
      const done: ReputationNight = { ...record, status: 'computed', cursor: null, computedAt: clock.now() };
      await store.reputation.putNight(done);
      return done;
    }
    const scores: MemberReputation[] = [];
    for (const member of batch) {
      // A member verified after the scoring time was not one at that midnight.
      if (member.verifiedAt > record.scoringTime) continue;
      const evidence = await store.receipts.evidence(member.domain, record.scoringTime);
      const result = scoreBusiness(evidencePieces(evidence, record.scoringTime), Math.floor(record.scoringTime / 1000), Math.floor(member.verifiedAt / 1000));
      scores.push({
        domain: member.domain,
        score: result.score,
        scoreInt: result.scoreInt,
        ranked: result.ranked,
        tier: result.tier,
        kept: result.kept,
        broken: result.broken,
        customers: result.customers,
        verifiedShare: result.verifiedShare,
        units: result.units,
      });
    }
    const next: ReputationNight = { ...record, cursor: (batch[batch.length - 1] as { domain: string }).domain, members: record.members + scores.length };
    await store.transaction(async (tx) => {
      await tx.reputation.putScores(record.night, scores);
      await tx.reputation.putNight(next);
    });
    return next;
  }

  /** Shows the next batch of scores on their listings, in one transaction with the progress. */
  async #publishBatch(record: ReputationNight): Promise<ReputationNight> {
    const { store, clock } = this.#ctx;
    const batch = await store.reputation.scores(record.night, record.cursor, SNAPSHOT_BATCH);
    if (batch.length === 0) {
      const done: ReputationNight = { ...record, status: 'published', cursor: null, publishedAt: clock.now() };
      await store.transaction(async (tx) => {
        await tx.reputation.putNight(done);
        await tx.reputation.prune(nightOf(record.scoringTime - (NIGHTS_KEPT - 1) * DAY_MS));
      });
      return done;
    }
    const next: ReputationNight = { ...record, cursor: (batch[batch.length - 1] as MemberReputation).domain };
    await store.transaction(async (tx) => {
      // A later night already published must not be undone by an earlier one finishing late.
      const latest = await tx.reputation.latestComplete('9999-12-31');
      const current = latest === null || latest.night <= record.night;
      // With the tally and outcomes held now: whatever a stop kept from following, the night brings up to date.
      if (current) {
        for (const member of batch) {
          const receipts = await tx.receipts.tally(member.domain);
          const outcomes = await tx.receipts.outcomeCounts(member.domain);
          await tx.listings.recordTrust(member.domain, { reputation: listingReputationOf(member, record), receipts, outcomes }, clock.now());
        }
      }
      await tx.reputation.putNight(next);
    });
    return next;
  }
}

/** Schedules the snapshot job: now for the last midnight if that night is not published yet, else at the next midnight. */
export async function scheduleSnapshots(store: DirectoryStore, nowMs: number): Promise<void> {
  const last = nightOf(nowMs);
  const done = await store.reputation.night(last);
  const night = done?.status === 'published' ? nextNight(last) : last;
  await store.jobs.enqueue({ id: newId(nowMs), kind: SNAPSHOT_JOB, payload: { night }, runAt: Math.max(nowMs, midnightOf(night)), dedupeKey: SNAPSHOT_DEDUPE }, nowMs);
}

/**
 * The job: the night's snapshot outside any transaction (it writes its own batches), then the next
 * midnight's job in the same row. A night whose midnight has not come yet waits (a clock moved back).
 */
export function snapshotHandler(snapshots: ReputationSnapshots, clock: { now(): number }) {
  return {
    prepare: async (job: JobRecord): Promise<string> => {
      const nowMs = clock.now();
      const scheduled = String(job.payload.night);
      if (midnightOf(scheduled) > nowMs) return scheduled;
      // Late (the service was stopped over midnights): the last midnight's night is the one anything reads.
      const night = nightOf(nowMs) > scheduled ? nightOf(nowMs) : scheduled;
      await snapshots.ensure(night);
      return night;
    },
    commit: async (_job: JobRecord, store: DirectoryStore, night: unknown): Promise<void> => {
      const nowMs = clock.now();
      const done = String(night);
      // The night after the one done (the last midnight's, when the service was down for nights), or
      // the same one again when its midnight has not come.
      const due = midnightOf(done) > nowMs ? done : nightOf(nowMs) > done ? nightOf(nowMs) : nextNight(done);
      await store.jobs.enqueue({ id: newId(nowMs), kind: SNAPSHOT_JOB, payload: { night: due }, runAt: midnightOf(due), dedupeKey: SNAPSHOT_DEDUPE }, nowMs);
    },
  };
}
