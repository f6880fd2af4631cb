/**
 * The CheckStore over Kysely, on SQLite or PostgreSQL. No rules here: the domain decides states and times.
 *
 * `revision` (max + 1 on every write) is the stamp readers key their leaderboards and result
 * documents by, so two writes must never get one number. SQLite's one writer does that. On
 * PostgreSQL every write of a check, and every read of one inside a transaction (the domain's
 * read-then-write), takes the checks' lock to the commit (lockUntilCommit): check transactions run
 * one after the other, a claim never hands one check to two crawlers, and numbers rise in commit
 * order. A few thousand checks a day make that lock cheap.
 */
import { engineOf, lockUntilCommit, transactionWithRetry, type StorageEngine, type TableWrites } from '@svc/shared';
import { sql, type Kysely, type Selectable } from 'kysely';
import { boardSummary, type CheckOutcome } from '../../domain/checks/assess.js';
import type { DoorHistory } from '../../domain/checks/door-history.js';
import type { CheckBoardRow, CheckRecord, CheckStore } from '../store.js';
import { KeptRevision } from './kept-revision.js';
import type { ChecksTable, DirectoryDatabase } from './schema.js';

const NEXT_REVISION = sql<number>`(SELECT coalesce(max(revision), 0) + 1 FROM checks)`;
const ACTIVE = ['checking', 'scoring'];
const CHECKS_LOCK = 'directory.checks';

function toRow(c: CheckRecord) {
  const o = c.outcome;
  const shown = c.lastState === 'done' && o !== null;
  return {
    domain: c.domain,
    state: c.state,
    requested_at: c.requestedAt,
    queued_at: c.queuedAt,
    lease_until: c.leaseUntil,
    attempts: c.attempts,
    last_state: c.lastState,
    last_reason: c.lastReason,
    outcome: o ? JSON.stringify(o) : null,
    checked_at: c.checkedAt,
    next_check_at: c.nextCheckAt,
    score: shown ? o.score : null,
    agent_ready: shown && o.agentReady ? 1 : 0,
    ai_opt_out: shown && o.aiOptOut ? 1 : 0,
    kind: shown ? o.kind : null,
    category: shown ? o.group : null,
    country: shown ? o.country : null,
    place: shown ? o.place : null,
    summary: shown ? JSON.stringify(boardSummary(o)) : null,
    revision: NEXT_REVISION,
  };
}

const n = (v: number | null) => (v === null ? null : Number(v));

function fromRow(r: Selectable<ChecksTable>): CheckRecord {
  return {
    domain: r.domain,
    state: r.state as CheckRecord['state'],
    requestedAt: n(r.requested_at),
    queuedAt: n(r.queued_at),
    leaseUntil: n(r.lease_until),
    attempts: r.attempts,
    lastState: r.last_state as CheckRecord['lastState'],
    lastReason: r.last_reason,
    outcome: r.outcome ? (JSON.parse(r.outcome) as CheckOutcome) : null,
    checkedAt: n(r.checked_at),
    nextCheckAt: n(r.next_check_at),
  };
}

export class KyselyCheckStore implements CheckStore {
  readonly #db: Kysely<DirectoryDatabase>;
  readonly #engine: StorageEngine;
  readonly #revision: KeptRevision;
  /** `writes`: the root store's (table-writes.ts), so the revision is read again only after a write; none in a transaction. */
  constructor(db: Kysely<DirectoryDatabase>, writes: TableWrites | null = null) {
    this.#db = db;
    this.#engine = engineOf(db);
    this.#revision = new KeptRevision(writes, 'checks', async () => {
      const row = await this.#db.selectFrom('checks').select((eb) => eb.fn.max('revision').as('top')).executeTakeFirstOrThrow();
      return Number(row.top ?? 0);
    });
  }

  /** Runs `work` holding the checks' lock to the commit on PostgreSQL (in the running transaction, or a new one); as is on SQLite. */
  async #locked<T>(work: (store: KyselyCheckStore) => Promise<T>): Promise<T> {
    if (this.#engine !== 'postgres') return work(this);
    if (this.#db.isTransaction) {
      await lockUntilCommit(this.#db, CHECKS_LOCK);
      return work(this);
    }
    return transactionWithRetry(this.#db, async (trx) => {
      await lockUntilCommit(trx, CHECKS_LOCK);
      return work(new KyselyCheckStore(trx));
    });
  }

  async get(domain: string): Promise<CheckRecord | null> {
    // Inside a transaction the domain reads to write: on PostgreSQL the read waits for the lock, so it sees the last commit.
    if (this.#engine === 'postgres' && this.#db.isTransaction) await lockUntilCommit(this.#db, CHECKS_LOCK);
    const row = await this.#db.selectFrom('checks').selectAll().where('domain', '=', domain).executeTakeFirst();
    return row ? fromRow(row) : null;
  }

  async put(check: CheckRecord): Promise<void> {
    await this.#locked((store) => store.#put(check));
  }

  async #put(check: CheckRecord): Promise<void> {
    const row = toRow(check);
    const { domain: _domain, ...changes } = row;
    await this.#db.insertInto('checks').values(row).onConflict((oc) => oc.column('domain').doUpdateSet(changes)).execute();
  }

  async claim(nowMs: number, leaseUntil: number, limit: number): Promise<CheckRecord[]> {
    return transactionWithRetry(this.#db, async (trx) => {
      if (this.#engine === 'postgres') await lockUntilCommit(trx, CHECKS_LOCK);
      const rows = await trx
        .selectFrom('checks')
        .selectAll()
        .where((eb) => eb.or([eb('state', '=', 'queued'), eb.and([eb('state', 'in', ACTIVE), eb('lease_until', '<', nowMs)])]))
        .orderBy('queued_at')
        .orderBy('domain')
        .limit(limit)
        .execute();
      const claimed: CheckRecord[] = [];
      for (const row of rows) {
        const check: CheckRecord = { ...fromRow(row), state: 'checking', leaseUntil, attempts: row.attempts + 1 };
        await new KyselyCheckStore(trx).#put(check);
        claimed.push(check);
      }
      return claimed;
    });
  }

  async queuePosition(domain: string, queuedAt: number): Promise<number> {
    const row = await this.#db
      .selectFrom('checks')
      .select((eb) => eb.fn.countAll<number>().as('ahead'))
      .where('state', '=', 'queued')
      .where((eb) => eb.or([eb('queued_at', '<', queuedAt), eb.and([eb('queued_at', '=', queuedAt), eb('domain', '<', domain)])]))
      .executeTakeFirstOrThrow();
    return Number(row.ahead) + 1;
  }

  async due(nowMs: number, limit: number): Promise<string[]> {
    const rows = await this.#db
      .selectFrom('checks')
      .select('domain')
      .where('state', 'in', ['done', 'blocked', 'failed', 'hidden', 'not_checkable'])
      .where('next_check_at', '<=', nowMs)
      .orderBy('next_check_at')
      .limit(limit)
      .execute();
    return rows.map((r) => r.domain);
  }

  async board(): Promise<CheckBoardRow[]> {
    const rows = await this.#db
      .selectFrom('checks')
      .select(['domain', 'score', 'checked_at', 'agent_ready', 'ai_opt_out', 'kind', 'category', 'country', 'place', 'summary'])
      .where('last_state', '=', 'done')
      .where('score', 'is not', null)
      .execute();
    return rows.map((r) => ({
      domain: r.domain,
      score: Number(r.score),
      checkedAt: Number(r.checked_at),
      agentReady: r.agent_ready === 1,
      aiOptOut: r.ai_opt_out === 1,
      kind: r.kind,
      category: r.category,
      country: r.country,
      place: r.place,
      summary: JSON.parse(r.summary ?? '{}') as CheckBoardRow['summary'],
    }));
  }

  async *outcomes(): AsyncIterable<CheckOutcome> {
    let after = '';
    for (;;) {
      const rows = await this.#db
        .selectFrom('checks')
        .select(['domain', 'outcome'])
        .where('last_state', '=', 'done')
        .where('outcome', 'is not', null)
        .where('domain', '>', after)
        .orderBy('domain')
        .limit(1_000)
        .execute();
      for (const row of rows) yield JSON.parse(row.outcome as string) as CheckOutcome;
      const last = rows[rows.length - 1];
      if (!last || rows.length < 1_000) return;
      after = last.domain;
    }
  }

  revision(): Promise<number> {
    return this.#revision.get();
  }

  peekRevision(): number | null {
    return this.#revision.peek();
  }

  /** One statement decides, so racing processes never take more than the limit together. */
  async takeBudget(day: string, limit: number): Promise<boolean> {
    if (limit <= 0) return false;
    const taken = await this.#db
      .insertInto('check_budget')
      .values({ day, checks: 1 })
      .onConflict((oc) => oc.column('day').doUpdateSet({ checks: sql`check_budget.checks + 1` }).where('check_budget.checks', '<', limit))
      .returning('checks')
      .executeTakeFirst();
    return taken !== undefined;
  }

  async budgetUsed(day: string): Promise<number> {
    const row = await this.#db.selectFrom('check_budget').select('checks').where('day', '=', day).executeTakeFirst();
    return row?.checks ?? 0;
  }

  async takeCallerRequest(caller: string, windowStart: number, limit: number): Promise<boolean> {
    if (limit <= 0) return false;
    const taken = await this.#db
      .insertInto('check_callers')
      .values({ caller, window_start: windowStart, count: 1 })
      .onConflict((oc) => oc.columns(['caller', 'window_start']).doUpdateSet({ count: sql`check_callers.count + 1` }).where('check_callers.count', '<', limit))
      .returning('count')
      .executeTakeFirst();
    return taken !== undefined;
  }

  async pruneCallers(before: number): Promise<void> {
    await this.#db.deleteFrom('check_callers').where('window_start', '<', before).execute();
  }

  async doorHistory(domain: string): Promise<Map<string, DoorHistory>> {
    const rows = await this.#db.selectFrom('check_doors').select(['door_key', 'history']).where('domain', '=', domain).execute();
    return new Map(rows.map((r) => [r.door_key, JSON.parse(r.history) as DoorHistory]));
  }

  async putDoorHistory(domain: string, history: ReadonlyMap<string, DoorHistory>): Promise<void> {
    // Under the checks' lock on PostgreSQL: two writers of one site's doors never interleave their delete and insert.
    await this.#locked((store) => store.#putDoorHistory(domain, history));
  }

  async #putDoorHistory(domain: string, history: ReadonlyMap<string, DoorHistory>): Promise<void> {
    await this.#db.deleteFrom('check_doors').where('domain', '=', domain).execute();
    if (history.size === 0) return;
    await this.#db
      .insertInto('check_doors')
      .values([...history].map(([door_key, h]) => ({ domain, door_key, history: JSON.stringify(h) })))
      .execute();
  }
}
