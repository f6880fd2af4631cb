/** The replay, receipt and reputation stores over Kysely, on SQLite or PostgreSQL. No business rules here. */
import type { ReplayOutcome } from '@svc/shared';
import { sql, type Kysely, type Selectable } from 'kysely';
import type { Standing } from '../../domain/ranking/hourly-order.js';
import type { HeldAcknowledgement, HeldReceipt, ReceiptEvidence, ReceiptTally, StandingOutcome } from '../../domain/receipts/held-receipt.js';
import type { Tier } from '../../domain/reputation/arithmetic.js';
import type { MemberReputation, NightStatus, ReputationNight } from '../../domain/reputation/reputation.js';
import type { DurableReplayStore, ReceiptStore, ReputationStore } from '../store.js';
import { boundQuery } from './bound-query.js';
import type { DirectoryDatabase, ReceiptsTable, ReputationScoresTable } from './schema.js';

/** Rows per multi-row INSERT (well under SQLite's limit of bound parameters). */
const INSERT_BATCH = 200;

/* The statements of every signed call and every receipt taken, compiled once (bound-query.ts). */

const REMEMBER = boundQuery(
  (v: { id: string; keep_until: number; now: number }, db) =>
    db
      .insertInto('used_signatures')
      .values({ id: v.id, keep_until: v.keep_until })
      .onConflict((oc) => oc.column('id').doUpdateSet((eb) => ({ keep_until: eb.ref('excluded.keep_until') })).where('used_signatures.keep_until', '<', v.now)),
  ['id', 'keep_until', 'now'],
);

const IS_LIVE = boundQuery(
  (v: { id: string; now: number }, db) => db.selectFrom('used_signatures').select('id').where('id', '=', v.id).where('keep_until', '>=', v.now),
  ['id', 'now'],
);

const RECEIPT_COLUMNS = [
  'iss', 'receipt_id', 'domain', 'kid', 'jws', 'sha256', 'typ', 'knd', 'out', 'ref', 'prv', 'sub', 'itm', 'iat', 'due', 'end_at', 'paid', 'aut', 'counted', 'arrived_at', 'ack_jws', 'ack_jkt', 'ack_iat', 'ack_at',
] as const satisfies readonly (keyof ReceiptsTable)[];

const INSERT_RECEIPT = boundQuery(
  (v: Record<string, unknown>, db) =>
    db
      .insertInto('receipts')
      .values(v as unknown as ReceiptsTable)
      .onConflict((oc) => oc.columns(['domain', 'receipt_id']).doNothing()),
  RECEIPT_COLUMNS,
);

const GET_RECEIPT = boundQuery(
  (v: { domain: string; receipt_id: string }, db) => db.selectFrom('receipts').selectAll().where('domain', '=', v.domain).where('receipt_id', '=', v.receipt_id),
  ['domain', 'receipt_id'],
);

const ADD_CUSTOMER = boundQuery(
  (v: { domain: string; sub: string }, db) =>
    db
      .insertInto('receipt_customers')
      .values(v)
      .onConflict((oc) => oc.columns(['domain', 'sub']).doNothing()),
  ['domain', 'sub'],
);

const ADD_TO_TALLY = boundQuery(
  (v: { domain: string; issued: number; acknowledged: number; customers: number; last_at: number | null; updated_at: number }, db) =>
    db
      .insertInto('receipt_tallies')
      .values(v)
      .onConflict((oc) =>
        oc.column('domain').doUpdateSet((eb) => ({
          issued: eb('receipt_tallies.issued', '+', eb.ref('excluded.issued')),
          acknowledged: eb('receipt_tallies.acknowledged', '+', eb.ref('excluded.acknowledged')),
          customers: eb('receipt_tallies.customers', '+', eb.ref('excluded.customers')),
          // The latest arrival; an addition without one (an acknowledgement) keeps it.
          last_at: sql<number | null>`CASE WHEN excluded.last_at IS NULL THEN receipt_tallies.last_at WHEN receipt_tallies.last_at IS NULL OR excluded.last_at > receipt_tallies.last_at THEN excluded.last_at ELSE receipt_tallies.last_at END`,
          updated_at: eb.ref('excluded.updated_at'),
        })),
      ),
  ['domain', 'issued', 'acknowledged', 'customers', 'last_at', 'updated_at'],
);

/** The outcome offered replaces the one standing when it ranks higher by (business_broken, iat, receipt_id). */
const OFFER_OUTCOME = boundQuery(
  (v: { domain: string; ref: string; receipt_id: string; code: string; iat: number; business_broken: number }, db) =>
    db
      .insertInto('receipt_outcomes')
      .values(v)
      .onConflict((oc) =>
        oc
          .columns(['domain', 'ref'])
          .doUpdateSet((eb) => ({
            receipt_id: eb.ref('excluded.receipt_id'),
            code: eb.ref('excluded.code'),
            iat: eb.ref('excluded.iat'),
            business_broken: eb.ref('excluded.business_broken'),
          }))
          .where(sql<boolean>`(excluded.business_broken, excluded.iat, excluded.receipt_id) > (receipt_outcomes.business_broken, receipt_outcomes.iat, receipt_outcomes.receipt_id)`),
      ),
  ['domain', 'ref', 'receipt_id', 'code', 'iat', 'business_broken'],
);


export class KyselyReplayStore implements DurableReplayStore {
  readonly #db: Kysely<DirectoryDatabase>;
  constructor(db: Kysely<DirectoryDatabase>) {
    this.#db = db;
  }

  /**
   * One statement, so two requests with one signature cannot both pass: a held row still kept wins;
   * an expired one is taken over. Times are seconds and may have a fraction (a clock read in
   * milliseconds over 1000); `keep_until` is a bigint, which PostgreSQL will not compare with a
   * fraction, so they are bound as whole seconds: for a whole K, K < t exactly when K < ceil(t).
   */
  async remember(id: string, keepUntil: number, now: number): Promise<ReplayOutcome> {
    const result = await REMEMBER.run(this.#db, { id, keep_until: Math.ceil(keepUntil), now: Math.ceil(now) });
    return Number(result.numAffectedRows ?? 0) === 1 ? 'new' : 'seen';
  }

  /** K >= t exactly when K >= ceil(t). */
  async isLive(id: string, nowSec: number): Promise<boolean> {
    return (await IS_LIVE.run(this.#db, { id, now: Math.ceil(nowSec) })).rows.length > 0;
  }

  async prune(nowSec: number): Promise<number> {
    const result = await this.#db.deleteFrom('used_signatures').where('keep_until', '<', Math.ceil(nowSec)).executeTakeFirst();
    return Number(result.numDeletedRows ?? 0);
  }
}

const bool = (v: number) => v === 1;

function toReceiptRow(r: HeldReceipt): ReceiptsTable {
  return {
    iss: r.iss,
    receipt_id: r.receiptId,
    domain: r.domain,
    kid: r.kid,
    jws: r.jws,
    sha256: r.sha256,
    typ: r.typ,
    knd: r.knd,
    out: r.out,
    ref: r.ref,
    prv: r.prv,
    sub: r.sub,
    itm: r.itm,
    iat: r.iat,
    due: r.due,
    end_at: r.end,
    paid: r.paid ? 1 : 0,
    aut: r.aut ? 1 : 0,
    counted: r.counted ? 1 : 0,
    arrived_at: r.arrivedAt,
    ack_jws: r.ack?.jws ?? null,
    ack_jkt: r.ack?.jkt ?? null,
    ack_iat: r.ack?.iat ?? null,
    ack_at: r.ack?.at ?? null,
  };
}

function fromEvidenceRow(r: Omit<Selectable<ReceiptsTable>, 'jws' | 'ack_jws' | 'ack_jkt' | 'ack_iat' | 'ack_at'> & { acknowledged: number }): ReceiptEvidence {
  return {
    iss: r.iss,
    receiptId: r.receipt_id,
    domain: r.domain,
    kid: r.kid,
    sha256: r.sha256,
    typ: r.typ,
    knd: r.knd,
    out: r.out,
    ref: r.ref,
    prv: r.prv,
    sub: r.sub,
    itm: r.itm,
    iat: Number(r.iat),
    due: Number(r.due),
    end: r.end_at === null ? null : Number(r.end_at),
    paid: bool(r.paid),
    aut: bool(r.aut),
    counted: bool(r.counted),
    arrivedAt: Number(r.arrived_at),
    acknowledged: r.acknowledged === 1,
  };
}

function fromReceiptRow(r: Selectable<ReceiptsTable>): HeldReceipt {
  const { acknowledged: _acknowledged, ...rest } = fromEvidenceRow({ ...r, acknowledged: r.ack_jws === null ? 0 : 1 });
  return {
    ...rest,
    jws: r.jws,
    ack:
      r.ack_jws === null
        ? null
        : { jws: r.ack_jws, jkt: r.ack_jkt ?? '', iat: Number(r.ack_iat ?? 0), at: Number(r.ack_at ?? 0) },
  };
}

export class KyselyReceiptStore implements ReceiptStore {
  readonly #db: Kysely<DirectoryDatabase>;
  constructor(db: Kysely<DirectoryDatabase>) {
    this.#db = db;
  }

  async get(domain: string, receiptId: string): Promise<HeldReceipt | null> {
    const row = (await GET_RECEIPT.run<Selectable<ReceiptsTable>>(this.#db, { domain, receipt_id: receiptId })).rows[0];
    return row ? fromReceiptRow(row) : null;
  }

  async insert(receipt: HeldReceipt): Promise<boolean> {
    const result = await INSERT_RECEIPT.run(this.#db, toReceiptRow(receipt) as unknown as Record<string, unknown>);
    return Number(result.numAffectedRows ?? 0) === 1;
  }

  async acknowledge(domain: string, receiptId: string, ack: HeldAcknowledgement): Promise<boolean> {
    const result = await this.#db
      .updateTable('receipts')
      .set({ ack_jws: ack.jws, ack_jkt: ack.jkt, ack_iat: ack.iat, ack_at: ack.at })
      .where('domain', '=', domain)
      .where('receipt_id', '=', receiptId)
      .where('ack_jws', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows ?? 0) === 1;
  }

  async addCustomer(domain: string, sub: string): Promise<boolean> {
    const result = await ADD_CUSTOMER.run(this.#db, { domain, sub });
    return Number(result.numAffectedRows ?? 0) === 1;
  }

  async addToTally(domain: string, add: ReceiptTally, atMs: number): Promise<void> {
    await ADD_TO_TALLY.run(this.#db, { domain, issued: add.issued, acknowledged: add.acknowledged, customers: add.customers, last_at: add.lastAt, updated_at: atMs });
  }

  async tally(domain: string): Promise<ReceiptTally> {
    const row = await this.#db.selectFrom('receipt_tallies').select(['issued', 'acknowledged', 'customers', 'last_at']).where('domain', '=', domain).executeTakeFirst();
    if (!row) return { issued: 0, acknowledged: 0, customers: 0, lastAt: null };
    return { issued: row.issued, acknowledged: row.acknowledged, customers: row.customers, lastAt: row.last_at === null ? null : Number(row.last_at) };
  }

  async standingOutcome(domain: string, ref: string): Promise<StandingOutcome | null> {
    const row = await this.#db.selectFrom('receipt_outcomes').selectAll().where('domain', '=', domain).where('ref', '=', ref).executeTakeFirst();
    return row ? { ref: row.ref, receiptId: row.receipt_id, code: row.code, iat: Number(row.iat), businessBroken: row.business_broken === 1 } : null;
  }

  async offerOutcome(domain: string, outcome: StandingOutcome): Promise<void> {
    await OFFER_OUTCOME.run(this.#db, { domain, ref: outcome.ref, receipt_id: outcome.receiptId, code: outcome.code, iat: outcome.iat, business_broken: outcome.businessBroken ? 1 : 0 });
  }

  async outcomeCounts(domain: string): Promise<Record<string, number>> {
    const rows = await this.#db
      .selectFrom('receipt_outcomes')
      .select(['code', (eb) => eb.fn.countAll<number>().as('n')])
      .where('domain', '=', domain)
      .groupBy('code')
      .orderBy('code')
      .execute();
    return Object.fromEntries(rows.map((r) => [r.code, Number(r.n)]));
  }

  async heldFrom(domain: string): Promise<{ held: number; acknowledged: number }> {
    const row = await this.#db
      .selectFrom('receipts')
      .select((eb) => [eb.fn.countAll<number>().as('held'), eb.fn.count<number>('ack_jws').as('acknowledged')])
      .where('domain', '=', domain)
      .executeTakeFirstOrThrow();
    return { held: Number(row.held), acknowledged: Number(row.acknowledged) };
  }

  async changedSince(atMs: number): Promise<string[]> {
    return (await this.#db.selectFrom('receipt_tallies').select('domain').where('updated_at', '>=', atMs).execute()).map((r) => r.domain);
  }

  async listedTotals(): Promise<{ issued: number; acknowledged: number }> {
    const row = await this.#db
      .selectFrom('receipt_tallies')
      .innerJoin('listings', 'listings.domain', 'receipt_tallies.domain')
      .select((eb) => [eb.fn.sum<number>('receipt_tallies.issued').as('issued'), eb.fn.sum<number>('receipt_tallies.acknowledged').as('acknowledged')])
      .where('listings.listed', '=', 1)
      .executeTakeFirstOrThrow();
    return { issued: Number(row.issued ?? 0), acknowledged: Number(row.acknowledged ?? 0) };
  }

  async evidence(domain: string, arrivedBefore: number): Promise<ReceiptEvidence[]> {
    const rows = await this.#db
      .selectFrom('receipts')
      .select([
        'iss',
        'receipt_id',
        'domain',
        'kid',
        'sha256',
        'typ',
        'knd',
        'out',
        'ref',
        'prv',
        'sub',
        'itm',
        'iat',
        'due',
        'end_at',
        'paid',
        'aut',
        'counted',
        'arrived_at',
        // Acknowledged by the scoring time: one that arrived later counts from the next night (a night is computed alike whenever it runs).
        sql<number>`CASE WHEN ack_jws IS NOT NULL AND ack_at < ${arrivedBefore} THEN 1 ELSE 0 END`.as('acknowledged'),
      ])
      .where('domain', '=', domain)
      .where('arrived_at', '<', arrivedBefore)
      .execute();
    return rows.map(fromEvidenceRow);
  }
}

function fromScoreRow(r: Selectable<ReputationScoresTable>): MemberReputation {
  return {
    domain: r.domain,
    score: r.score,
    scoreInt: r.score_int,
    ranked: r.ranked === 1,
    tier: r.tier as Tier,
    kept: r.kept,
    broken: r.broken,
    customers: r.customers,
    verifiedShare: r.verified_share,
    units: r.units,
  };
}

export class KyselyReputationStore implements ReputationStore {
  readonly #db: Kysely<DirectoryDatabase>;
  constructor(db: Kysely<DirectoryDatabase>) {
    this.#db = db;
  }

  async night(night: string): Promise<ReputationNight | null> {
    const row = await this.#db.selectFrom('reputation_nights').selectAll().where('night', '=', night).executeTakeFirst();
    return row ? fromNightRow(row) : null;
  }

  async putNight(n: ReputationNight): Promise<void> {
    const row = {
      night: n.night,
      scoring_time: n.scoringTime,
      rules_version: n.rulesVersion,
      status: n.status,
      cursor: n.cursor,
      members: n.members,
      started_at: n.startedAt,
      computed_at: n.computedAt,
      published_at: n.publishedAt,
    };
    const { night: _night, ...changes } = row;
    await this.#db.insertInto('reputation_nights').values(row).onConflict((oc) => oc.column('night').doUpdateSet(changes)).execute();
  }

  async latestComplete(atOrBefore: string): Promise<ReputationNight | null> {
    const row = await this.#db
      .selectFrom('reputation_nights')
      .selectAll()
      .where('night', '<=', atOrBefore)
      .where('status', 'in', ['computed', 'published'])
      .orderBy('night', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? fromNightRow(row) : null;
  }

  async putScores(night: string, scores: readonly MemberReputation[]): Promise<void> {
    for (let i = 0; i < scores.length; i += INSERT_BATCH) {
      const values = scores.slice(i, i + INSERT_BATCH).map((s) => ({
        night,
        domain: s.domain,
        score: s.score,
        score_int: s.scoreInt,
        ranked: s.ranked ? 1 : 0,
        tier: s.tier,
        kept: s.kept,
        broken: s.broken,
        customers: s.customers,
        verified_share: s.verifiedShare,
        units: s.units,
      }));
      await this.#db
        .insertInto('reputation_scores')
        .values(values)
        .onConflict((oc) =>
          oc.columns(['night', 'domain']).doUpdateSet((eb) => ({
            score: eb.ref('excluded.score'),
            score_int: eb.ref('excluded.score_int'),
            ranked: eb.ref('excluded.ranked'),
            tier: eb.ref('excluded.tier'),
            kept: eb.ref('excluded.kept'),
            broken: eb.ref('excluded.broken'),
            customers: eb.ref('excluded.customers'),
            verified_share: eb.ref('excluded.verified_share'),
            units: eb.ref('excluded.units'),
          })),
        )
        .execute();
    }
  }

  async score(night: string, domain: string): Promise<MemberReputation | null> {
    const row = await this.#db.selectFrom('reputation_scores').selectAll().where('night', '=', night).where('domain', '=', domain).executeTakeFirst();
    return row ? fromScoreRow(row) : null;
  }

  async scores(night: string, afterDomain: string | null, limit: number): Promise<MemberReputation[]> {
    let query = this.#db.selectFrom('reputation_scores').selectAll().where('night', '=', night);
    if (afterDomain !== null) query = query.where('domain', '>', afterDomain);
    return (await query.orderBy('domain').limit(limit).execute()).map(fromScoreRow);
  }

  async standingsBySeq(night: string): Promise<Map<number, Standing>> {
    const rows = await this.#db
      .selectFrom('reputation_scores')
      .innerJoin('listings', 'listings.domain', 'reputation_scores.domain')
      .select(['listings.seq', 'reputation_scores.score_int', 'reputation_scores.ranked'])
      .where('reputation_scores.night', '=', night)
      .where('listings.listed', '=', 1)
      .execute();
    return new Map(rows.map((r) => [r.seq, { scoreInt: r.score_int, ranked: r.ranked === 1 }]));
  }

  async prune(beforeNight: string): Promise<void> {
    await this.#db.deleteFrom('reputation_scores').where('night', '<', beforeNight).execute();
    await this.#db.deleteFrom('reputation_nights').where('night', '<', beforeNight).execute();
  }
}

function fromNightRow(r: Selectable<DirectoryDatabase['reputation_nights']>): ReputationNight {
  return {
    night: r.night,
    scoringTime: Number(r.scoring_time),
    rulesVersion: r.rules_version,
    status: r.status as NightStatus,
    cursor: r.cursor,
    members: r.members,
    startedAt: Number(r.started_at),
    computedAt: r.computed_at === null ? null : Number(r.computed_at),
    publishedAt: r.published_at === null ? null : Number(r.published_at),
  };
}
