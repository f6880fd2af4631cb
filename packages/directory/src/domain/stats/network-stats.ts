/**
 * The answer of GET /v1/stats (directory spec §4), kept a moment. It is drawn from every registered
 * inbox, the listings, the receipts' tallies and the jobs: 5–8 ms of CPU on the demo's data, so a
 * page or a JSON read of it ran at 2% of a bare route, and a burst of them held the event loop.
 *
 * It is kept for at most a second while the service's own connection wrote none of the tables it
 * reads (shared table-writes.ts `ownStamp`; never on PostgreSQL), the hour's state is the same and so
 * are the directory counts (taken at most every ten minutes, CheckService.counts). Its `generated_at`
 * says when it was drawn. What that second may leave out: what reads the clock alone (the inboxes
 * that pinged in the last day, the jobs' lag in whole seconds) and another connection's commit (the
 * CLI, a second process). A page of it is replayed at each request; not asking SQLite whether another
 * connection committed (`PRAGMA data_version`) is what keeps that replay cheap.
 */
import type { CheckService } from '../checks/check-service.js';
import type { DirectoryContext } from '../context.js';
import type { DirectorySearch } from '../search/search-service.js';
import { emptyCounts, type DirectoryCounts } from './directory-counts.js';

export const STATS_HOLD_MS = 1_000;
const DAY_MS = 86_400_000;
/** Every table the answer reads. */
const STATS_TABLES = ['instances', 'listings', 'receipt_tallies', 'jobs'] as const;

export interface NetworkStatsAnswer {
  instances_online: number;
  businesses_listed: number;
  activity_24h: { bookings: number; orders: number; quotes: number; messages: number };
  receipts_issued: number;
  receipts_acknowledged: number;
  reviews_published: number;
  status: { api: 'ok' | 'degraded'; jobs_lag_seconds: number; last_sweep_at: string | null };
  directory: DirectoryCounts;
  generated_at: string;
}

interface KeptAnswer {
  stamp: string;
  state: object | null;
  directory: DirectoryCounts | null;
  at: number;
  answer: NetworkStatsAnswer;
}

export class NetworkStats {
  readonly #ctx: DirectoryContext;
  readonly #search: DirectorySearch;
  readonly #checks: CheckService;
  #kept: KeptAnswer | null = null;

  constructor(ctx: DirectoryContext, search: DirectorySearch, checks: CheckService) {
    this.#ctx = ctx;
    this.#search = search;
    this.#checks = checks;
  }

  async answer(): Promise<NetworkStatsAnswer> {
    const nowMs = this.#ctx.clock.now();
    const state = this.#search.peek();
    // From check results and members, taken at most every ten minutes (domain/checks/check-counts.ts),
    // once the service is up (before its first hour is prepared no count was taken: the zero time).
    const directory = state ? await this.#checks.counts() : null;
    // Taken before the reads: a write landing during them leaves a stamp no later one equals.
    const stamp = this.#ctx.store.ownWritesStamp(STATS_TABLES);
    const kept = this.#kept;
    if (kept && stamp !== null && kept.stamp === stamp && kept.state === state && kept.directory === directory && this.#withinHold(kept, nowMs)) return kept.answer;

    const store = this.#ctx.store;
    const [instances, listed, oldestDue, receipts] = await Promise.all([
      store.instances.list(),
      store.listings.countListed(),
      store.jobs.oldestDueAt(nowMs),
      store.receipts.listedTotals(),
    ]);
    // Answering: pinged in the last day, and not failing its manifest check (listings/answering.ts).
    const online = instances.filter((i) => i.lastPingAt !== null && i.lastPingAt >= nowMs - DAY_MS && i.status !== 'unreachable');
    const activity = { bookings: 0, orders: 0, quotes: 0, messages: 0 };
    for (const instance of online) {
      for (const key of Object.keys(activity) as (keyof typeof activity)[]) activity[key] += instance.counts?.[key] ?? 0;
    }
    const lagSeconds = oldestDue === null ? 0 : Math.max(0, (nowMs - oldestDue) / 1000);
    const answer: NetworkStatsAnswer = {
      instances_online: online.length,
      businesses_listed: listed,
      activity_24h: activity,
      receipts_issued: receipts.issued,
      receipts_acknowledged: receipts.acknowledged,
      reviews_published: 0,
      status: {
        api: state ? 'ok' : 'degraded',
        jobs_lag_seconds: Math.round(lagSeconds),
        last_sweep_at: state ? new Date(state.computedAt).toISOString() : null,
      },
      directory: directory ?? emptyCounts(),
      generated_at: new Date(nowMs).toISOString(),
    };
    this.#kept = stamp === null ? null : { stamp, state, directory, at: nowMs, answer };
    return answer;
  }

  /**
   * Whether answer() would hand `answer` back now, known without waiting. A page drawn from it is
   * replayed in front of the framework (shared answer-replay.ts) only while this holds.
   */
  holds(answer: object): boolean {
    const kept = this.#kept;
    if (kept?.answer !== answer || !this.#withinHold(kept, this.#ctx.clock.now())) return false;
    if (this.#ctx.store.ownWritesStamp(STATS_TABLES) !== kept.stamp) return false;
    const state = this.#search.peek();
    return state === kept.state && (kept.directory === null || this.#checks.countsHold(kept.directory));
  }

  #withinHold(kept: KeptAnswer, nowMs: number): boolean {
    return nowMs >= kept.at && nowMs - kept.at < STATS_HOLD_MS;
  }
}
