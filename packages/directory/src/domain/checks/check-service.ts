/**
 * The agentic check as a durable job (directory spec §3, §4): asking for a check queues the site
 * (one row per registrable domain: the queue entry and its last result, checks.ts store); a worker
 * takes queued checks under a lease, checks the site, scores it and writes the result with its found
 * listing in one transaction; re-checks are scheduled; a daily budget bounds the crawler; asking is
 * limited per domain and per caller. Reading a result never starts a check.
 */
import { Problem, sha256Hex } from '@svc/shared';
import type { DirectoryContext } from '../context.js';
import type { CheckRecord } from '../../store/store.js';
import { listingLevel, levelRank } from '../listings/listing.js';
import { isListed } from '../listings/regulated.js';
import { rulesInForce } from '../ranking/rules.js';
import { assess, type CheckOutcome } from './assess.js';
import { reconcileDoors, withDoorHistory } from './door-history.js';
import { countChecks } from './check-counts.js';
import { checkResultDocument, notCheckedDocument, type QueueView, type RankView } from './check-result.js';
import { syncFoundListing } from './found-listing.js';
import { Board, leaderboardDocument, type BoardScope } from './leaderboard.js';
import type { SiteObservation } from './observation.js';
import { scoreRulesInForce } from './score-rules.js';
import { siteName, type SiteName } from './site-name.js';
import type { DirectoryCounts } from '../stats/directory-counts.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export interface CheckSettings {
  /** The crawler runs (DIRECTORY_CHECKS); off: checks are queued and wait (budget "paused"). */
  enabled: boolean;
  /** Checks the crawler may start in one UTC day. */
  dailyBudget: number;
  /** Sites checked at the same time. */
  concurrency: number;
  /** Development only: the local web of sample sites (`127.0.0.1:<port>`), which makes `.test` names checkable. */
  localWeb: string | null;
  /** A domain's check may be asked for again this long after its last one ended. */
  minRecheckMs: number;
  /** Scheduled re-checks after each way a check can end. */
  recheckAfterMs: { done: number; failed: number; blocked: number; hidden: number; not_checkable: number };
  /** New checks one caller may ask for in an hour. */
  callerChecksPerHour: number;
  /** How long a worker holds a check (a crashed worker's check is taken again after). */
  leaseMs: number;
  /** A site whose live door failed is checked again this soon (three failures in seven days make it failing). */
  doorRecheckMs: number;
  /** POST /check/visibility reads a site's owner file: at most this many times an hour per caller… */
  visibilityPerCallerPerHour: number;
  /** …and per site, whoever asks (the site is not read more often because many callers ask). */
  visibilityPerDomainPerHour: number;
}

export const DEFAULT_CHECK_SETTINGS: CheckSettings = {
  enabled: true,
  dailyBudget: 1_000,
  concurrency: 4,
  localWeb: null,
  minRecheckMs: HOUR,
  recheckAfterMs: { done: 7 * DAY, failed: 6 * HOUR, blocked: 30 * DAY, hidden: 30 * DAY, not_checkable: 30 * DAY },
  callerChecksPerHour: 20,
  leaseMs: 120_000,
  doorRecheckMs: DAY,
  visibilityPerCallerPerHour: 20,
  visibilityPerDomainPerHour: 6,
};

/** How a site check ended (the crawler's answer, src/checks/site-check.ts). */
export type SiteCheckResult =
  | { state: 'done'; observation: SiteObservation }
  | { state: 'hidden' | 'blocked' | 'failed' | 'not_checkable'; reason: string };

/** Counts of GET /v1/stats are taken at most this often. */
export const COUNTS_EVERY_MS = 10 * 60_000;

/** Longer spellings are judged afresh each time (the kept names stay small). */
const MAX_KEPT_NAME = 300;

const DAY_MS = 86_400_000;
/** The UTC date of a moment (YYYY-MM-DD); the day last asked for is kept, since every result read names it. */
let lastDay = { startMs: 0, text: '1970-01-01' };
/** What a board document was drawn from besides its scope and page: the checks written and the score rules in force. */
function boardStamp(checksRevision: number, rulesVersion: number): string {
  return `${checksRevision}|${rulesVersion}`;
}

function utcDay(ms: number): string {
  if (ms >= lastDay.startMs && ms < lastDay.startMs + DAY_MS) return lastDay.text;
  const startMs = Math.floor(ms / DAY_MS) * DAY_MS;
  lastDay = { startMs, text: new Date(startMs).toISOString().slice(0, 10) };
  return lastDay.text;
}

/** A suppressed site is answered like one that cannot be checked: the contract's 404 on reads, 400 on asking. Our reason is never given. */
function suppressedProblem(code: 'not_found' | 'bad_request'): Problem {
  const message = 'This site cannot be checked: this directory does not check or show it.';
  return code === 'not_found' ? new Problem('not_found', message) : new Problem('bad_request', message, { fields: [{ path: 'url', problem: 'invalid', message: 'this directory does not check this site' }] });
}

/** A check queued anew: the last result stays in view until the new one replaces it. */
function queuedCheck(domain: string, existing: CheckRecord | null | undefined, nowMs: number, requestedAt: number | null): CheckRecord {
  return {
    domain,
    state: 'queued',
    requestedAt,
    queuedAt: nowMs,
    leaseUntil: null,
    attempts: 0,
    lastState: existing?.lastState ?? null,
    lastReason: existing?.lastReason ?? null,
    outcome: existing?.outcome ?? null,
    checkedAt: existing?.checkedAt ?? null,
    nextCheckAt: null,
  };
}

export class CheckService {
  readonly #ctx: DirectoryContext;
  readonly settings: CheckSettings;
  #board: { revision: number; board: Board } | null = null;
  #counts: { at: number; counts: DirectoryCounts } | null = null;
  #countsPending: Promise<DirectoryCounts> | null = null;
  readonly #documents = new Map<string, { key: string; doc: Record<string, unknown> }>();
  readonly #boards = new Map<string, { key: string; doc: Record<string, unknown> }>();
  /** Each board document's key in #boards (leaderboardHolds). */
  readonly #boardKeys = new WeakMap<object, string>();
  /** Names read before (siteName is pure, and every read of a result or badge asks twice: its spelling, then its canonical name). */
  readonly #names = new Map<string, SiteName>();

  constructor(ctx: DirectoryContext, settings: CheckSettings) {
    this.#ctx = ctx;
    this.settings = settings;
  }

  /** The canonical domain of a name, or a 404 problem: a site that cannot be checked. */
  canonical(raw: string): string {
    const name = this.#siteName(raw);
    if (!name.ok) throw new Problem('not_found', `This site cannot be checked: ${name.reason}`);
    return name.domain;
  }

  /** Whether a name can be checked at all (it depends on the name and the settings only). */
  checkable(raw: string): boolean {
    return this.#siteName(raw).ok;
  }

  /** Another spelling of a checkable domain gives its canonical name (for a 301); the canonical one gives null. */
  otherSpelling(raw: string): string | null {
    const name = this.#siteName(raw);
    return name.ok && name.domain !== raw ? name.domain : null;
  }

  #siteName(raw: string): SiteName {
    const known = this.#names.get(raw);
    if (known) return known;
    const name = siteName(raw, { localWeb: this.settings.localWeb !== null });
    if (raw.length <= MAX_KEPT_NAME) {
      if (this.#names.size >= 10_000) this.#names.clear();
      this.#names.set(raw, name);
    }
    return name;
  }

  async #board_(): Promise<Board> {
    const revision = await this.#ctx.store.checks.revision();
    if (this.#board?.revision !== revision) this.#board = { revision, board: new Board(await this.#ctx.store.checks.board()) };
    return this.#board.board;
  }

  async #queueView(check: CheckRecord, nowMs: number): Promise<QueueView> {
    const position = await this.#ctx.store.checks.queuePosition(check.domain, check.queuedAt ?? nowMs);
    if (!this.settings.enabled) return { position, budget: 'paused' };
    const used = await this.#ctx.store.checks.budgetUsed(utcDay(nowMs));
    if (used >= this.settings.dailyBudget) return { position, budget: 'spent', retry_after_s: Math.ceil((DAY - (nowMs % DAY)) / 1000) };
    return { position, budget: 'open' };
  }

  async #rank(o: CheckOutcome): Promise<RankView | null> {
    if (o.kind === null) return null;
    const board = await this.#board_();
    const scope: BoardScope = { category: o.group ?? undefined, ...(o.country ? { country: o.country } : {}), ...(o.country && o.place ? { place: o.place } : {}) };
    const inScope = board.position(o.domain, scope);
    const overall = board.position(o.domain, o.kind === 'software_and_ai' ? { category: 'software-ai' } : {});
    if (!inScope || !overall) return null;
    // Our words and our vocabulary only (the group slug, the country code); the place, named from the site's own text, is in `scope`.
    const where = [o.group, o.country].filter(Boolean).join(' in ');
    return {
      text: `${inScope.position} of ${inScope.of} checked (${where}${scope.place ? ', same place' : ''})`,
      scope: { ...(scope.category ? { category: scope.category } : {}), ...(scope.country ? { country: scope.country } : {}), ...(scope.place ? { place: scope.place } : {}) },
      position: inScope.position,
      of: inScope.of,
      overall,
    };
  }

  /** The result document of a canonical domain; never starts a check. */
  async document(domain: string): Promise<Record<string, unknown>> {
    const nowMs = this.#ctx.clock.now();
    const revision = await this.#ctx.store.checks.revision();
    // A listing can change without a check (a member verified on the domain): its revision is in the key too.
    const key = this.#documentKey(revision, await this.#ctx.store.listings.revision(), nowMs);
    const cached = this.#documents.get(domain);
    if (cached && cached.key === key) return cached.doc;
    const check = await this.#ctx.store.checks.get(domain);
    if (check?.state === 'suppressed') throw suppressedProblem('not_found');
    const baseUrl = this.#ctx.settings.baseUrl;
    let doc: Record<string, unknown>;
    if (!check) doc = notCheckedDocument(domain, baseUrl);
    else {
      const listing = check.state === 'done' ? await this.#ctx.store.listings.byDomain(domain) : null;
      doc = checkResultDocument(check, {
        baseUrl,
        nowMs,
        ...(check.state === 'queued' ? { queue: await this.#queueView(check, nowMs) } : {}),
        rank: check.state === 'done' && check.outcome ? await this.#rank(check.outcome) : null,
        listed: listing !== null && listing.source === 'found' && isListed(listing) && levelRank(listingLevel(listing.doors)) >= levelRank('askable'),
        nextCheckAllowedAt: check.checkedAt !== null ? check.checkedAt + this.settings.minRecheckMs : null,
      });
    }
    if (this.#documents.size > 10_000) this.#documents.clear();
    this.#documents.set(domain, { key, doc });
    return doc;
  }

  #documentKey(checksRevision: number, listingsRevision: number, nowMs: number): string {
    return `${checksRevision}|${listingsRevision}|${utcDay(nowMs)}|${this.settings.enabled}`;
  }

  /**
   * Whether document(domain) would hand `doc` back now, known without waiting: false unless both
   * revisions are kept in memory (never on PostgreSQL). An answer replayed in front of the framework
   * (shared answer-replay.ts) is replayed only while this holds.
   */
  documentHolds(domain: string, doc: object): boolean {
    const cached = this.#documents.get(domain);
    if (cached?.doc !== doc) return false;
    const checks = this.#ctx.store.checks.peekRevision();
    const listings = this.#ctx.store.listings.peekRevision();
    return checks !== null && listings !== null && cached.key === this.#documentKey(checks, listings, this.#ctx.clock.now());
  }

  /**
   * Asks for a check (POST /check, MCP check_business): a new or due check is queued (202); one
   * queued or running is where it stands (202); one that ended less than minRecheckMs ago is its
   * result (200) with when it may be asked again. A caller may queue callerChecksPerHour new checks an hour.
   */
  async request(rawUrl: string, caller: string): Promise<{ status: 200 | 202; domain: string; document: Record<string, unknown> }> {
    const name = siteName(rawUrl, { localWeb: this.settings.localWeb !== null });
    if (!name.ok) throw new Problem('bad_request', `This site cannot be checked: ${name.reason}`, { fields: [{ path: 'url', problem: 'invalid', message: name.reason }] });
    const domain = name.domain;
    const nowMs = this.#ctx.clock.now();
    const store = this.#ctx.store;
    const existing = await store.checks.get(domain);
    if (existing?.state === 'suppressed') throw suppressedProblem('bad_request');
    const active = existing && (existing.state === 'queued' || existing.state === 'checking' || existing.state === 'scoring');
    if (existing && !active && existing.checkedAt !== null && nowMs < existing.checkedAt + this.settings.minRecheckMs) {
      return { status: 200, domain, document: await this.document(domain) };
    }
    if (!active) {
      const windowStart = nowMs - (nowMs % HOUR);
      const callerKey = sha256Hex(`svc-check-caller:${caller}`).slice(0, 32);
      if (!(await store.checks.takeCallerRequest(callerKey, windowStart, this.settings.callerChecksPerHour))) {
        const wait = Math.ceil((windowStart + HOUR - nowMs) / 1000);
        throw new Problem('rate_limited', `This caller asked for ${this.settings.callerChecksPerHour} checks this hour; ask again in ${wait} seconds.`, { headers: { 'retry-after': String(wait) } });
      }
      await store.checks.put(queuedCheck(domain, existing, nowMs, nowMs));
      await store.checks.pruneCallers(windowStart - HOUR);
    }
    return { status: 202, domain, document: await this.document(domain) };
  }

  /** Queues a check on the operator's behalf (the demo start): no caller budget, no wait after the last check. */
  async schedule(rawUrl: string): Promise<string> {
    const name = siteName(rawUrl, { localWeb: this.settings.localWeb !== null });
    if (!name.ok) throw new Problem('bad_request', `This site cannot be checked: ${name.reason}`);
    const nowMs = this.#ctx.clock.now();
    const existing = await this.#ctx.store.checks.get(name.domain);
    if (existing && (existing.state === 'queued' || existing.state === 'checking' || existing.state === 'scoring' || existing.state === 'suppressed')) return name.domain;
    await this.#ctx.store.checks.put(queuedCheck(name.domain, existing, nowMs, null));
    return name.domain;
  }

  /** Queues the re-checks that are due (a chore of the worker). */
  async queueDue(limit = 100): Promise<number> {
    const nowMs = this.#ctx.clock.now();
    const due = await this.#ctx.store.checks.due(nowMs, limit);
    for (const domain of due) {
      await this.#ctx.store.transaction(async (store) => {
        const check = await store.checks.get(domain);
        if (!check || check.nextCheckAt === null || check.nextCheckAt > nowMs) return;
        await store.checks.put({ ...check, state: 'queued', queuedAt: check.nextCheckAt, nextCheckAt: null, leaseUntil: null });
      });
    }
    return due.length;
  }

  /** Takes checks to run now, within the day's budget; none while the crawler is off. */
  async claim(limit: number): Promise<CheckRecord[]> {
    if (!this.settings.enabled || limit <= 0) return [];
    const nowMs = this.#ctx.clock.now();
    const used = await this.#ctx.store.checks.budgetUsed(utcDay(nowMs));
    const room = Math.min(limit, this.settings.dailyBudget - used);
    if (room <= 0) return [];
    const claimed = await this.#ctx.store.checks.claim(nowMs, nowMs + this.settings.leaseMs, room);
    for (const _check of claimed) await this.#ctx.store.checks.takeBudget(utcDay(nowMs), this.settings.dailyBudget);
    return claimed;
  }

  /** The crawl is over: the check is scoring (a state readers see). */
  async scoring(domain: string): Promise<void> {
    const check = await this.#ctx.store.checks.get(domain);
    if (check && check.state === 'checking') await this.#ctx.store.checks.put({ ...check, state: 'scoring' });
  }

  /**
   * Writes how a check ended, its scored outcome and its found listing, in one transaction. A done
   * check's doors are read with their history first (door-history.ts): a door is failing after three
   * failures in seven days, gone after thirty days failing; a live door that failed brings the next
   * check forward to doorRecheckMs.
   */
  async finish(domain: string, result: SiteCheckResult): Promise<CheckRecord | null> {
    const nowMs = this.#ctx.clock.now();
    const rules = scoreRulesInForce(nowMs);
    return this.#ctx.store.transaction(async (store) => {
      const check = await store.checks.get(domain);
      if (!check || (check.state !== 'checking' && check.state !== 'scoring')) return null;
      const state = result.state;
      let outcome: CheckOutcome | null = null;
      let recheckSoon = false;
      if (result.state === 'done') {
        const doors = reconcileDoors(result.observation, await store.checks.doorHistory(domain), nowMs);
        outcome = withDoorHistory(assess(doors.observation, rules.version, this.#ctx.resolveCategories), doors.views);
        recheckSoon = doors.recheckSoon;
        await store.checks.putDoorHistory(domain, doors.history);
      } else if (state !== 'failed') {
        // Hidden, blocked or not checkable: nothing of the site is kept, its doors' history neither.
        await store.checks.putDoorHistory(domain, new Map());
      }
      const recheckAfter = recheckSoon ? Math.min(this.settings.recheckAfterMs.done, this.settings.doorRecheckMs) : this.settings.recheckAfterMs[state];
      const finished: CheckRecord = {
        ...check,
        state,
        leaseUntil: null,
        queuedAt: null,
        attempts: 0,
        lastState: state,
        lastReason: result.state === 'done' ? null : result.reason,
        // A failed re-check keeps the last done result; a hidden, blocked or uncheckable one keeps nothing.
        outcome: outcome ?? (state === 'failed' ? check.outcome : null),
        checkedAt: nowMs,
        nextCheckAt: nowMs + recheckAfter,
      };
      await store.checks.put(finished);
      if (state !== 'failed') await syncFoundListing(store, domain, outcome, state === 'hidden', nowMs, this.#ctx.resolveCategories);
      return finished;
    });
  }

  /**
   * POST /check/visibility: reads the owner's file of a site now and applies it. Reading a site on an
   * anonymous caller's word is bounded twice before anything is fetched: per caller
   * (visibilityPerCallerPerHour) and per site whoever asks (visibilityPerDomainPerHour); past either,
   * 429 rate_limited with Retry-After to the end of the hour.
   */
  async visibility(rawDomain: string, caller: string, readChoice: (domain: string) => Promise<'hidden' | 'shown' | null>): Promise<{ status: 200 | 202; domain: string; document: Record<string, unknown> }> {
    const domain = this.canonical(rawDomain);
    const store = this.#ctx.store;
    if ((await store.checks.get(domain))?.state === 'suppressed') throw suppressedProblem('not_found');
    const nowMs = this.#ctx.clock.now();
    const windowStart = nowMs - (nowMs % HOUR);
    const wait = Math.ceil((windowStart + HOUR - nowMs) / 1000);
    const callerKey = sha256Hex(`svc-check-visibility-caller:${caller}`).slice(0, 32);
    if (!(await store.checks.takeCallerRequest(callerKey, windowStart, this.settings.visibilityPerCallerPerHour))) {
      throw new Problem('rate_limited', `This caller asked to apply owners' choices ${this.settings.visibilityPerCallerPerHour} times this hour; ask again in ${wait} seconds.`, { headers: { 'retry-after': String(wait) } });
    }
    const domainKey = sha256Hex(`svc-check-visibility-domain:${domain}`).slice(0, 32);
    if (!(await store.checks.takeCallerRequest(domainKey, windowStart, this.settings.visibilityPerDomainPerHour))) {
      throw new Problem('rate_limited', `The owner's file of ${domain} was read ${this.settings.visibilityPerDomainPerHour} times this hour; ask again in ${wait} seconds (the next scheduled check reads it too).`, { headers: { 'retry-after': String(wait) } });
    }
    await store.checks.pruneCallers(windowStart - HOUR);
    return this.applyOwnerChoice(domain, await readChoice(domain), caller);
  }

  /** The owner's choice read from its site (POST /check/visibility): hidden hides at once; shown queues a check. */
  async applyOwnerChoice(rawDomain: string, choice: 'hidden' | 'shown' | null, caller: string): Promise<{ status: 200 | 202; domain: string; document: Record<string, unknown> }> {
    const domain = this.canonical(rawDomain);
    const nowMs = this.#ctx.clock.now();
    if (choice === 'hidden') {
      await this.#ctx.store.transaction(async (store) => {
        const check = await store.checks.get(domain);
        if (check?.state === 'suppressed') throw suppressedProblem('not_found');
        await store.checks.put({
          domain,
          state: 'hidden',
          requestedAt: check?.requestedAt ?? null,
          queuedAt: null,
          leaseUntil: null,
          attempts: 0,
          lastState: 'hidden',
          lastReason: 'The owner hides this result (its /.well-known/svc-check.json says hidden).',
          outcome: null,
          checkedAt: nowMs,
          nextCheckAt: nowMs + this.settings.recheckAfterMs.hidden,
        });
        await syncFoundListing(store, domain, null, true, nowMs, this.#ctx.resolveCategories);
      });
      return { status: 200, domain, document: await this.document(domain) };
    }
    const check = await this.#ctx.store.checks.get(domain);
    if (check?.state === 'hidden' && choice === 'shown') {
      await this.#ctx.store.checks.put({ ...check, state: 'queued', queuedAt: nowMs, checkedAt: null, nextCheckAt: null, lastState: null, lastReason: null });
      return { status: 202, domain, document: await this.document(domain) };
    }
    if (choice === null) throw new Problem('bad_request', `No owner's choice was found at https://${domain}/.well-known/svc-check.json: publish {"result": "hidden"} or {"result": "shown"} there first.`, { fields: [{ path: 'domain', problem: 'invalid', message: 'the site has no /.well-known/svc-check.json with a result' }] });
    return this.request(domain, caller);
  }

  /**
   * The operator suppresses a site (a legal request, abuse, a site that must not be named): nothing
   * of it is kept (its result, its doors' history), its found listing is withdrawn, it is never
   * checked, shown, ranked or counted (the `checked` count of /v1/stats leaves it out), its result
   * answers 404 and asking for a check 400, until the operator lifts it. Our reason is kept, never shown.
   */
  async suppress(rawDomain: string, reason: string): Promise<string> {
    const domain = this.canonical(rawDomain);
    const nowMs = this.#ctx.clock.now();
    await this.#ctx.store.transaction(async (store) => {
      const check = await store.checks.get(domain);
      await store.checks.put({
        domain,
        state: 'suppressed',
        requestedAt: check?.requestedAt ?? null,
        queuedAt: null,
        leaseUntil: null,
        attempts: 0,
        lastState: null,
        lastReason: reason.slice(0, 500),
        outcome: null,
        checkedAt: nowMs,
        nextCheckAt: null,
      });
      await store.checks.putDoorHistory(domain, new Map());
      await syncFoundListing(store, domain, null, true, nowMs, this.#ctx.resolveCategories);
    });
    return domain;
  }

  /** The operator lifts a suppression: the site is checked again at once (queued); false when it was not suppressed. */
  async lift(rawDomain: string): Promise<boolean> {
    const domain = this.canonical(rawDomain);
    const nowMs = this.#ctx.clock.now();
    return this.#ctx.store.transaction(async (store) => {
      const check = await store.checks.get(domain);
      if (check?.state !== 'suppressed') return false;
      await store.checks.put({ ...check, state: 'queued', queuedAt: nowMs, checkedAt: null, nextCheckAt: null, lastReason: null });
      return true;
    });
  }

  /** The leaderboard of a scope and page; its document is kept until a check changes or other score rules come into force. */
  async leaderboard(scope: BoardScope, page: number): Promise<Record<string, unknown>> {
    const revision = await this.#ctx.store.checks.revision();
    const rules = scoreRulesInForce(this.#ctx.clock.now());
    const stamp = boardStamp(revision, rules.version);
    const key = `${scope.category ?? ''}|${scope.country ?? ''}|${scope.place ?? ''}|${page}`;
    const cached = this.#boards.get(key);
    if (cached && cached.key === stamp) return cached.doc;
    const board = await this.#board_();
    const doc = leaderboardDocument(board, scope, page, this.#ctx.settings.baseUrl, rules.version);
    if (this.#boards.size > 5_000) this.#boards.clear();
    this.#boards.set(key, { key: stamp, doc });
    this.#boardKeys.set(doc, key);
    return doc;
  }

  /**
   * Whether leaderboard() would hand `doc` back now for the board it answered, known without
   * waiting: false unless the checks' revision is kept in memory (never on PostgreSQL). A page drawn
   * from it is replayed in front of the framework (shared answer-replay.ts) only while this holds.
   */
  leaderboardHolds(doc: object): boolean {
    const key = this.#boardKeys.get(doc);
    const cached = key === undefined ? undefined : this.#boards.get(key);
    if (cached?.doc !== doc) return false;
    const revision = this.#ctx.store.checks.peekRevision();
    return revision !== null && cached.key === boardStamp(revision, scoreRulesInForce(this.#ctx.clock.now()).version);
  }

  /** Whether counts() would hand `counts` back now, known without waiting. */
  countsHold(counts: DirectoryCounts): boolean {
    return this.#counts !== null && this.#counts.counts === counts && this.#ctx.clock.now() - this.#counts.at < COUNTS_EVERY_MS;
  }

  /** The `directory` counts of GET /v1/stats, taken at most every ten minutes. */
  async counts(): Promise<DirectoryCounts> {
    const nowMs = this.#ctx.clock.now();
    if (this.#counts && nowMs - this.#counts.at < COUNTS_EVERY_MS) return this.#counts.counts;
    this.#countsPending ??= (async () => {
      const outcomes: CheckOutcome[] = [];
      for await (const o of this.#ctx.store.checks.outcomes()) outcomes.push(o);
      const members = [];
      for await (const m of this.#ctx.store.listings.allListed({ source: 'member' })) members.push(m);
      const counts = countChecks(outcomes, members, nowMs, rulesInForce(nowMs).numbers.answeringHours);
      this.#counts = { at: nowMs, counts };
      return counts;
    })().finally(() => {
      this.#countsPending = null;
    });
    return this.#countsPending;
  }
}
