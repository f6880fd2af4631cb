/** Feeds, their runs and their product links in SQLite. No business rules here. */
import type { Kysely, Selectable } from 'kysely';
import type { FeedFormat, FeedRecord, FeedRunCounts, FeedRunRecord, FeedRunStatus, FeedRunTrigger, SkippedEntry } from '../../domain/feeds/feed-types.js';
import type { FeedProductCounts, FeedStore } from '../feed-store.js';
import type { PageRequest } from '../store.js';
import type { Database, FeedRunsTable, FeedsTable } from './schema.js';

export class KyselyFeedStore implements FeedStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async insert(feed: FeedRecord): Promise<void> {
    await this.#db.insertInto('feeds').values(feedRow(feed)).execute();
  }

  async get(id: string): Promise<FeedRecord | null> {
    const row = await this.#db.selectFrom('feeds').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toFeed(row) : null;
  }

  async findByUrlHash(urlHash: string): Promise<FeedRecord | null> {
    const row = await this.#db.selectFrom('feeds').selectAll().where('url_hash', '=', urlHash).executeTakeFirst();
    return row ? toFeed(row) : null;
  }

  async list(page: PageRequest): Promise<FeedRecord[]> {
    let query = this.#db.selectFrom('feeds').selectAll().orderBy('id').limit(page.limit);
    if (page.after) query = query.where('id', '>', page.after);
    return (await query.execute()).map(toFeed);
  }

  async count(): Promise<number> {
    const row = await this.#db.selectFrom('feeds').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  async update(feed: FeedRecord): Promise<void> {
    const { id, created_at: _created, ...changes } = feedRow(feed);
    await this.#db.updateTable('feeds').set(changes).where('id', '=', id).execute();
  }

  async delete(id: string): Promise<number> {
    const linked = await this.#db.selectFrom('feed_products').select((eb) => eb.fn.countAll<number>().as('n')).where('feed_id', '=', id).executeTakeFirst();
    // Explicit deletes rather than relying on ON DELETE CASCADE alone, so the rule holds on any engine.
    await this.#db.deleteFrom('feed_products').where('feed_id', '=', id).execute();
    await this.#db.deleteFrom('feed_runs').where('feed_id', '=', id).execute();
    await this.#db.deleteFrom('feeds').where('id', '=', id).execute();
    return Number(linked?.n ?? 0);
  }

  async insertRun(run: FeedRunRecord): Promise<void> {
    await this.#db.insertInto('feed_runs').values(runRow(run)).execute();
  }

  async updateRun(run: FeedRunRecord): Promise<void> {
    const { id, ...changes } = runRow(run);
    await this.#db.updateTable('feed_runs').set(changes).where('id', '=', id).execute();
  }

  async listRuns(feedId: string, limit: number): Promise<FeedRunRecord[]> {
    const rows = await this.#db.selectFrom('feed_runs').selectAll().where('feed_id', '=', feedId).orderBy('id', 'desc').limit(limit).execute();
    return rows.map(toRun);
  }

  async failUnfinishedRuns(feedId: string, error: string, nowMs: number): Promise<void> {
    await this.#db
      .updateTable('feed_runs')
      .set({ status: 'failed', error, finished_at: nowMs })
      .where('feed_id', '=', feedId)
      .where('status', '=', 'running')
      .execute();
  }

  async pruneRuns(feedId: string, keep: number): Promise<void> {
    const kept = this.#db.selectFrom('feed_runs').select('id').where('feed_id', '=', feedId).orderBy('id', 'desc').limit(keep);
    await this.#db.deleteFrom('feed_runs').where('feed_id', '=', feedId).where('id', 'not in', kept).execute();
  }

  async productIdsOf(feedId: string): Promise<string[]> {
    const rows = await this.#db.selectFrom('feed_products').select('product_id').where('feed_id', '=', feedId).execute();
    return rows.map((r) => r.product_id);
  }

  async feedOfProduct(productId: string): Promise<string | null> {
    const row = await this.#db.selectFrom('feed_products').select('feed_id').where('product_id', '=', productId).executeTakeFirst();
    return row?.feed_id ?? null;
  }

  async linkProduct(productId: string, feedId: string): Promise<void> {
    await this.#db
      .insertInto('feed_products')
      .values({ product_id: productId, feed_id: feedId })
      .onConflict((oc) => oc.column('product_id').doUpdateSet({ feed_id: feedId }))
      .execute();
  }

  async productCounts(feedId: string): Promise<FeedProductCounts> {
    const rows = await this.#db
      .selectFrom('feed_products')
      .innerJoin('products', 'products.id', 'feed_products.product_id')
      .select(['products.active as active', (eb) => eb.fn.countAll<number>().as('n')])
      .where('feed_products.feed_id', '=', feedId)
      .groupBy('products.active')
      .execute();
    const counts = { active: 0, archived: 0 };
    for (const row of rows) counts[row.active === 1 ? 'active' : 'archived'] += Number(row.n);
    return counts;
  }
}

function feedRow(f: FeedRecord) {
  return {
    id: f.id,
    name: f.name,
    url_sealed: f.urlSealed,
    url_display: f.urlDisplay,
    url_hash: f.urlHash,
    every_hours: f.everyHours,
    created_at: f.createdAt,
    updated_at: f.updatedAt,
    next_import_at: f.nextImportAt,
    import_requests: f.importRequests,
    last_success_at: f.lastSuccessAt,
    last_error: f.lastError,
    last_error_at: f.lastErrorAt,
  };
}

function toFeed(r: Selectable<FeedsTable>): FeedRecord {
  return {
    id: r.id,
    name: r.name,
    urlSealed: r.url_sealed,
    urlDisplay: r.url_display,
    urlHash: r.url_hash,
    everyHours: r.every_hours,
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
    nextImportAt: Number(r.next_import_at),
    importRequests: r.import_requests,
    lastSuccessAt: r.last_success_at === null ? null : Number(r.last_success_at),
    lastError: r.last_error,
    lastErrorAt: r.last_error_at === null ? null : Number(r.last_error_at),
  };
}

function runRow(run: FeedRunRecord) {
  return {
    id: run.id,
    feed_id: run.feedId,
    trigger: run.trigger,
    status: run.status,
    format: run.format,
    requests_seen: run.requestsSeen,
    started_at: run.startedAt,
    finished_at: run.finishedAt,
    counts: JSON.stringify(run.counts),
    skipped_entries: JSON.stringify(run.skippedEntries),
    error: run.error,
  };
}

function toRun(r: Selectable<FeedRunsTable>): FeedRunRecord {
  return {
    id: r.id,
    feedId: r.feed_id,
    trigger: r.trigger as FeedRunTrigger,
    status: r.status as FeedRunStatus,
    format: r.format as FeedFormat | null,
    requestsSeen: r.requests_seen,
    startedAt: Number(r.started_at),
    finishedAt: r.finished_at === null ? null : Number(r.finished_at),
    counts: JSON.parse(r.counts) as FeedRunCounts,
    skippedEntries: JSON.parse(r.skipped_entries) as SkippedEntry[],
    error: r.error,
  };
}
