/**
 * The DirectoryStore over Kysely, on SQLite or PostgreSQL. No business rules here.
 *
 * Every write of a listing is numbered (`revision`, max + 1) and running directories follow the
 * numbers (changesSince), so numbers must be handed out in commit order: a reader that has seen
 * number n must never later find a smaller one committed. SQLite's one writer does that. On
 * PostgreSQL a transaction takes the listings' write lock (lockUntilCommit) before its first
 * listing write and keeps it to its commit, so writers of listings commit one at a time (a ping is
 * one short transaction; docs/storage.md "Commit order").
 */
import { KyselyEvidenceStore, KyselyStatementStore } from './evidence-store.js';
import { KyselyPersonStore } from './person-store.js';
import { KyselyJobStore, compileOnce, engineOf, inList, lockUntilCommit, slotsOf, transactionWithRetry, type SqlScalar, WriteBatch, utf8Bytes, utf8BytesOf, type SqliteDatabase, type StorageEngine, type StorageHealth, type StorageTarget, type TableWrites } from '@svc/shared';
import { FileIndexSnapshotStore, KyselyIndexSnapshotStore } from './index-snapshot-store.js';
import type { SqliteStatement } from '@svc/shared/sqlite-driver';
import { sql, type Kysely, type Selectable } from 'kysely';
import { setImmediate as turn } from 'node:timers/promises';
import type { ListingRecord } from '../../domain/listings/listing.js';
import { StoredListingPage, type ListingPage } from '../../domain/listings/listing-page.js';
import { isListed } from '../../domain/listings/regulated.js';
import type { DirectoryStore, IndexSnapshotStore, InstanceRecord, InstanceStore, ListingChange, LoadOptions, ListingStore, OrderStore, PageRenderer, RankRow, StoredOrder, TrustPatch } from '../store.js';
import { LOAD_WRITER_CACHE_KIB, READING_ALL_CACHE_KIB, openDirectoryDatabase } from './database.js';
import { KeptRevision } from './kept-revision.js';
import { listingColumns, type ListingColumns } from './listing-columns.js';
import { copyRowsIn } from './postgres-copy.js';
import { PageRenderers, preparedHere, preparedInSteps, type PreparedRows } from '../../workers/page-renderers.js';
import { PageReader } from './page-reader.js';
import { SqliteLoadWriter } from '../../workers/sqlite-load-writer.js';
import { WriterTransactions } from './sqlite-writer-transactions.js';
import { KyselyCheckStore } from './kysely-check-store.js';
import type { DirectoryDatabase, InstancesTable, ListingsTable } from './schema.js';
import { KyselyReceiptStore, KyselyReplayStore, KyselyReputationStore } from './trust-stores.js';

/** Rows read per round trip when streaming every listing (keyset on seq). */
const STREAM_PAGE = 5_000;
/** Rows per multi-row INSERT (well under SQLite's limit of bound parameters). */
const INSERT_BATCH = 500;

/** Taken by every transaction that writes listings, until it commits (PostgreSQL). */
const LISTINGS_LOCK = 'directory.listings';

/** The number of the next write of a listing (writes are one at a time, so numbers only rise). */
const NEXT_REVISION = sql<number>`(SELECT coalesce(max(revision), 0) + 1 FROM listings)`;

function listingRow(l: Omit<ListingRecord, 'seq'>) {
  return { ...listingColumns(l), revision: NEXT_REVISION, content_revision: NEXT_REVISION };
}

/** Listings a bulk load writes per transaction (each transaction one revision read, one lock). */
const LOAD_TRANSACTION = 10_000;
/**
 * Listings per transaction of the SQLite writer thread: a 25th of the listings stored when it begins,
 * within 50,000 and 200,000. The domain and id indexes take keys in no order, so every transaction
 * rewrites leaves all over them (at 5 M, some 6,400 of each one's ~9,400 leaves for 10,000
 * listings): their leaves grow with the listings stored, and a transaction that grows with them
 * rewrites each leaf for as many listings (docs/directory.md "Loading listings"). Sent in parts of
 * LOAD_PART, so the memory a load holds does not grow with it.
 */
function sqliteTransactionRows(stored: number): number {
  return Math.min(200_000, Math.max(50_000, Math.round(stored / 25)));
}
/** Listings a load prepares and hands on to be written at a time. */
const LOAD_PART = 10_000;
/**
 * Parts a load sends to SQLite's writer thread before it has written them: enough for the load to
 * go on preparing while the writer commits (2–3 s at 5 M listings, against ~1 s to prepare a part).
 */
const WRITER_PARTS_AHEAD = 4;
/** Listings a bulk load reads from its source between two turns of the event loop. */
const LOAD_READ_STEP = 1_000;

/** A listing's row as the bulk load writes it: every column given, its revision numbered by the load. */
type LoadRow = ListingColumns & { revision: number; content_revision: number };

/** The listings' columns a load writes, with their types for PostgreSQL's table the load copies into. */
const LOAD_COLUMNS: readonly (readonly [keyof LoadRow & string, SqlScalar])[] = [
  ['id', 'text'],
  ['domain', 'text'],
  ['source', 'text'],
  ['kind', 'text'],
  ['document', 'text'],
  ['listed', 'integer'],
  ['delisted_at', 'bigint'],
  ['dormant_since', 'bigint'],
  ['verified_at', 'bigint'],
  ['last_ping_at', 'bigint'],
  ['level', 'integer'],
  ['agent_door', 'integer'],
  ['content_at', 'bigint'],
  ['updated_at', 'bigint'],
  ['revision', 'integer'],
  ['content_revision', 'integer'],
];
const LOAD_NAMES = LOAD_COLUMNS.map(([name]) => name);

/** PostgreSQL: the table a load's transaction copies its rows into and empties before it commits (migration 0020). */
const LOAD_STAGING = 'listings_load';
/** Its columns beside the listings' own: the row's page (null: no page to write). */
const LOAD_PAGE_COLUMNS: readonly (readonly [string, SqlScalar])[] = [
  ['page_version', 'text'],
  ['page_inputs', 'text'],
  ['page_fixed', 'text'],
];

/** SQLite: one listing row, prepared once for the connection (a listing already stored under its domain is left as it is). */
const loadListing = compileOnce((db: Kysely<DirectoryDatabase>, row: LoadRow) =>
  db
    .insertInto('listings')
    .values(slotsOf(row, LOAD_NAMES))
    .onConflict((oc) => oc.column('domain').doNothing())
    .returning('seq'),
);

/** The revision a load's transaction numbers its listings after (on the load's SQLite writer thread). */
const lastRevision = compileOnce((db: Kysely<DirectoryDatabase>, _none: Record<string, never>) =>
  db.selectFrom('listings').select((eb) => eb.fn.max('revision').as('last')),
);

/** One page row, prepared once (the same upsert as every other writer of pages). */
const loadPage = compileOnce((db: Kysely<DirectoryDatabase>, row: { seq: number; version: string; inputs: string; fixed: string }) =>
  db
    .insertInto('listing_pages')
    .values(slotsOf(row, ['seq', 'version', 'inputs', 'fixed']))
    .onConflict((oc) => oc.column('seq').doUpdateSet((eb) => ({ version: eb.ref('excluded.version'), inputs: eb.ref('excluded.inputs'), fixed: eb.ref('excluded.fixed') }))),
);

/** The change feed's read (PostgreSQL; SQLite prepares it on its connection), built and compiled once: it runs before every search not answered from the cache. */
const changesAfter = compileOnce((db: Kysely<DirectoryDatabase>, at: { revision: number; limit: number }) =>
  db.selectFrom('listings').select(['seq', 'revision', 'content_revision', 'last_ping_at']).where('revision', '>', at.revision).orderBy('revision').limit(at.limit),
);

function fromListingRow(row: Pick<Selectable<ListingsTable>, 'seq' | 'document'>): ListingRecord {
  return { ...(JSON.parse(row.document) as Omit<ListingRecord, 'seq'>), seq: row.seq };
}

/**
 * Listing writes this process committed (PostgreSQL; SQLite's TableWrites sees them itself): a
 * transaction's stores mark `wrote`, and the root store counts the commit.
 */
class ListingCommits {
  count = 0;
}

/** Seqs looked at by one query of refreshPages. */
const REFRESH_SPAN = 5_000;


class KyselyListingStore implements ListingStore {
  readonly #db: Kysely<DirectoryDatabase>;
  readonly #sqlite: SqliteDatabase | null;
  readonly #pages: PageRenderer | null;
  /** The page read of every search, prepared once. */
  #pageReader: PageReader | null = null;
  /** The change feed read before every search, prepared once. */
  #changes: SqliteStatement | null = null;

  readonly #engine: StorageEngine;
  readonly #revision: KeptRevision;
  readonly changesSeenLocally: boolean;
  readonly #commits: ListingCommits;
  /** In a transaction's store: set when it writes a listing, read by the transaction's owner after the commit. */
  readonly #wrote: { listings: boolean } | null;
  /** The root store's: told of the load's writes on its SQLite writer thread, which its connection does not see. */
  readonly #health: StorageHealth | null;

  constructor(
    db: Kysely<DirectoryDatabase>,
    sqlite: SqliteDatabase | null,
    pages: PageRenderer | null,
    writes: TableWrites | null = null,
    commits: ListingCommits = new ListingCommits(),
    wrote: { listings: boolean } | null = null,
    health: StorageHealth | null = null,
  ) {
    this.#db = db;
    this.#commits = commits;
    this.#wrote = wrote;
    this.#health = health;
    this.#sqlite = sqlite;
    this.#pages = pages;
    this.#engine = engineOf(db);
    this.changesSeenLocally = this.#engine === 'sqlite';
    this.#revision = new KeptRevision(writes, 'listings', async () => {
      const row = await this.#db.selectFrom('listings').select((eb) => eb.fn.max('revision').as('top')).executeTakeFirstOrThrow();
      return Number(row.top ?? 0);
    });
    // Synchronous streaming needs SQLite's own handle (the root store on SQLite).
    if (sqlite === null) this.allListedSync = undefined;
  }

  /**
   * Runs a write of listings: as it is on SQLite; on PostgreSQL inside a transaction (its own when
   * the caller has none) holding the listings' lock, so revision numbers follow commit order.
   */
  async #writing<T>(work: (store: KyselyListingStore) => Promise<T>): Promise<T> {
    if (this.#engine !== 'postgres') return work(this);
    if (this.#db.isTransaction) {
      await lockUntilCommit(this.#db, LISTINGS_LOCK);
      if (this.#wrote) this.#wrote.listings = true;
      return work(this);
    }
    const result = await transactionWithRetry(this.#db, async (trx) => {
      await lockUntilCommit(trx, LISTINGS_LOCK);
      return work(new KyselyListingStore(trx, null, this.#pages));
    });
    this.#commits.count++;
    return result;
  }

  get committedHere(): number {
    return this.#commits.count;
  }

  /** Every write of a listing goes through here after its row: its page is rendered from the stored document. */
  async #writePages(rows: readonly { seq: number; document: string }[]): Promise<void> {
    const renderer = this.#pages;
    if (!renderer || rows.length === 0) return;
    for (let i = 0; i < rows.length; i += INSERT_BATCH) {
      const values = rows.slice(i, i + INSERT_BATCH).map((row) => ({ seq: row.seq, version: renderer.version, ...renderer.render(fromListingRow(row)) }));
      await this.#db
        .insertInto('listing_pages')
        .values(values)
        .onConflict((oc) =>
          oc.column('seq').doUpdateSet((eb) => ({ version: eb.ref('excluded.version'), inputs: eb.ref('excluded.inputs'), fixed: eb.ref('excluded.fixed') })),
        )
        .execute();
    }
  }

  async pagesBySeqs(seqs: readonly number[]): Promise<Map<number, StoredListingPage>> {
    const found = new Map<number, StoredListingPage>();
    const renderer = this.#pages;
    if (!renderer || seqs.length === 0) return found;
    if (this.#sqlite) return (this.#pageReader ??= new PageReader(this.#sqlite)).read(renderer.version, seqs);
    for (const row of await this.#pageQuery(renderer.version, seqs).execute()) {
      found.set(row.seq, new StoredListingPage(row.inputs, utf8BytesOf(row.fixed)));
    }
    return found;
  }

  #pageQuery(version: string, seqs: readonly number[]) {
    // `fixed` as its UTF-8 bytes: an answer is assembled from them without decoding (listing-page.ts).
    return this.#db
      .selectFrom('listing_pages')
      .select(['seq', 'inputs', utf8Bytes(this.#db, 'fixed').as('fixed')])
      .where('version', '=', version)
      .where(inList(this.#db, 'seq', seqs, 'integer'));
  }


  async refreshPages(options: { batchSize?: number; span?: number; signal?: AbortSignal } = {}): Promise<number> {
    if (!this.#pages) return 0;
    const batchSize = options.batchSize ?? 2_000;
    const span = options.span ?? REFRESH_SPAN;
    const top = await this.#db.selectFrom('listings').select((eb) => eb.fn.max('seq').as('top')).executeTakeFirst();
    const end = Number(top?.top ?? 0);
    let after = 0;
    let written = 0;
    while (!options.signal?.aborted && after < end) {
      // Read and write in one transaction, so a listing written meanwhile keeps the page of its newer document.
      const batch = (store: KyselyListingStore) => store.#refreshBatch(after, batchSize, span);
      const done = this.#db.isTransaction ? await batch(this) : await transactionWithRetry(this.#db, (trx) => batch(new KyselyListingStore(trx, null, this.#pages)));
      written += done.count;
      after = done.next;
      // SQLite answers at once: a turn of the event loop between ranges, so searches go on at a start.
      await turn();
    }
    return written;
  }

  /**
   * Pages of the listings after `after` whose page is missing or of another version, written; looks
   * at `span` seqs at most (a short query, even when no page is stale: a look over every
   * listing at once held a 5 M node's start for a minute) and says where to go on from.
   */
  async #refreshBatch(after: number, limit: number, span: number): Promise<{ next: number; count: number }> {
    const renderer = this.#pages as PageRenderer;
    // The current pages of the range from their index (migration 0019) rather than a page's row a
    // listing: a join read each page's row (74 ms a range at 5 M on SQLite, against 5 ms).
    let query = this.#db
      .selectFrom('listings')
      .select(['listings.seq', 'listings.document'])
      .where('listings.listed', '=', 1)
      .where('listings.seq', '>', after)
      .where('listings.seq', '<=', after + span)
      .where((eb) =>
        eb(
          'listings.seq',
          'not in',
          eb
            .selectFrom('listing_pages')
            .select('listing_pages.seq')
            .where('listing_pages.version', '=', renderer.version)
            .where('listing_pages.seq', '>', after)
            .where('listing_pages.seq', '<=', after + span),
        ),
      )
      .orderBy('listings.seq')
      .limit(limit);
    // PostgreSQL: a writer of one of these listings waits for this page, then writes its own newer one.
    if (this.#engine === 'postgres') query = query.forUpdate(['listings']);
    const rows = await query.execute();
    if (rows.length > 0) await this.#writePages(rows);
    const last = rows[rows.length - 1];
    return { next: rows.length === limit && last ? last.seq : after + span, count: rows.length };
  }

  allListedSync?: () => Iterable<ListingRecord> = () => this.#allListedSync();

  readingEveryListing(): () => void {
    const sqlite = this.#sqlite;
    if (!sqlite) return () => undefined;
    // Best effort: a connection busy iterating a result refuses the pragma, and keeps its cache as it is.
    const pragma = (text: string): unknown => {
      try {
        return sqlite.pragma(text, { simple: true });
      } catch {
        return undefined;
      }
    };
    const size = pragma('cache_size');
    if (typeof size !== 'number') return () => undefined;
    pragma(`cache_size = -${READING_ALL_CACHE_KIB}`);
    return () => void pragma(`cache_size = ${size}`);
  }

  *#allListedSync(): Iterable<ListingRecord> {
    if (!this.#sqlite) throw new Error('synchronous reads need the root store, not a transaction');
    // The SQL is Kysely's; only the row-at-a-time iteration is the driver's own.
    const query = this.#db.selectFrom('listings').select(['seq', 'document']).where('listed', '=', 1).orderBy('seq').compile();
    const statement = this.#sqlite.prepare(query.sql);
    for (const row of statement.iterate(...(query.parameters as unknown[])) as Iterable<{ seq: number; document: string }>) {
      yield fromListingRow(row);
    }
  }

  async upsert(listing: Omit<ListingRecord, 'seq'>): Promise<ListingRecord> {
    return this.#writing((store) => store.#upsert(listing));
  }

  async #upsert(listing: Omit<ListingRecord, 'seq'>): Promise<ListingRecord> {
    const row = listingRow(listing);
    const { domain: _domain, ...changes } = row;
    const saved = await this.#db
      .insertInto('listings')
      .values(row)
      .onConflict((oc) => oc.column('domain').doUpdateSet({ ...changes, id: (eb) => eb.ref('listings.id') }))
      .returning(['seq', 'id'])
      .executeTakeFirstOrThrow();
    await this.#writePages([{ seq: saved.seq, document: row.document }]);
    return { ...listing, id: saved.id, seq: saved.seq };
  }

  async insertMany(listings: Iterable<Omit<ListingRecord, 'seq'>>, batchSize = 500): Promise<number> {
    return this.#writing((store) => store.#insertMany(listings, batchSize));
  }

  async #insertMany(listings: Iterable<Omit<ListingRecord, 'seq'>>, batchSize: number): Promise<number> {
    let batch: ReturnType<typeof listingRow>[] = [];
    let written = 0;
    const flush = async () => {
      if (batch.length === 0) return;
      // One statement sees one snapshot, so its rows share one revision on both engines: computed once
      // here rather than as a subquery in each row, which PostgreSQL plans again for every row.
      const revision = await this.#nextRevision();
      const inserted = await this.#db
        .insertInto('listings')
        .values(batch.map((row) => ({ ...row, revision, content_revision: revision })))
        .onConflict((oc) => oc.column('domain').doNothing())
        .returning(['seq', 'domain'])
        .execute();
      const documents = new Map(batch.map((row) => [row.domain, row.document]));
      await this.#writePages(inserted.map((r) => ({ seq: r.seq, document: documents.get(r.domain) as string })));
      written += batch.length;
      batch = [];
    };
    for (const listing of listings) {
      batch.push(listingRow(listing));
      if (batch.length >= batchSize) await flush();
    }
    await flush();
    return written;
  }

  /**
   * The bulk load (imports, the benchmarks, the demo seed): stores listings with their pages as
   * `upsert` stores each, the same rows, pages and revisions (one per listing, rising in the order
   * given), but at the speed of the disk: large transactions (LOAD_TRANSACTION listings, one
   * revision read and one lock each; sqliteTransactionRows on SQLite's writer thread); on SQLite one
   * statement for each table prepared once and run on the transaction's connection, on PostgreSQL
   * the rows sent with COPY into a table of the transaction, then inserted from there in one
   * statement. A listing whose domain is stored already is left as it is (as `insertMany`).
   *
   * On PostgreSQL, a pipeline one transaction deep: while one transaction is written (by the
   * server, on another core), the next one's listings are read and their rows and pages prepared on
   * this thread a step at a time. On SQLite, once a load fills a whole part (LOAD_PART listings),
   * the writes are on a worker thread of their own connection (workers/sqlite-load-writer.ts), up
   * to WRITER_PARTS_AHEAD parts sent ahead, its transaction open across parts and this thread's
   * connection held while it is (sqlite-writer-transactions.ts); a smaller load, or one inside a
   * transaction, is prepared, then written on this thread. With `renderWorkers` (opt-in), on either
   * engine, the next part's pages are rendered on that many worker threads
   * (workers/page-renderers.ts) while one is written; on this two-core machine shared with other
   * work they made loads slower (docs/directory.md "Loading listings"). Transactions commit one
   * after another, in the order given.
   */
  async load(listings: Iterable<Omit<ListingRecord, 'seq'>>, options: LoadOptions = {}): Promise<number> {
    const renderer = this.#pages;
    const renderers = renderer && (options.renderWorkers ?? 0) > 0 ? PageRenderers.start(renderer, options.renderWorkers ?? 0) : null;
    // SQLite writes on a thread of its own once a load fills a whole part (a file's root store only).
    const sqliteFile = this.#engine === 'sqlite' && !this.#db.isTransaction && this.#sqlite && !this.#sqlite.memory ? this.#sqlite.name : null;
    const size = options.rowsPerTransaction ?? LOAD_TRANSACTION;
    // Listings prepared and handed on at a time: on SQLite's writer a transaction spans several parts.
    const partSize = sqliteFile ? Math.min(options.rowsPerTransaction ?? Infinity, options.rowsPerPart ?? LOAD_PART) : size;
    // The writer's transactions grow with the listings stored (sqliteTransactionRows).
    const storedBefore = sqliteFile && options.rowsPerTransaction === undefined ? await this.countAll() : 0;
    let transactions: WriterTransactions | null = null;
    let written = 0;
    const write = async (prepared: PreparedRows) => {
      if (transactions) {
        const sent = transactions.send(prepared.rows, renderer ? prepared.pages : null, false);
        written += prepared.rows.length;
        return sent;
      }
      if (this.#db.isTransaction) {
        await this.#writing((store) => store.#loadChunk(prepared));
      } else {
        await transactionWithRetry(this.#db, async (trx) => {
          await lockUntilCommit(trx, LISTINGS_LOCK);
          return new KyselyListingStore(trx, null, this.#pages).#loadChunk(prepared);
        });
        if (this.#engine === 'postgres') this.#commits.count++;
      }
      written += prepared.rows.length;
    };
    // Prepared while the part before is written elsewhere: by PostgreSQL's server, by the writer thread.
    const overlapped = () => renderers !== null || this.#engine === 'postgres' || transactions !== null;
    // Parts sent and not yet written while the next is read and prepared: one, or on SQLite's writer
    // up to WRITER_PARTS_AHEAD (it keeps them, across its commits too).
    const writing: Promise<void>[] = [];
    // A part refused: none sent after it is written (on SQLite's writer they wait until it closes).
    let refused = false;
    const send = async (part: Omit<ListingRecord, 'seq'>[]) => {
      if (sqliteFile && !transactions && part.length === partSize) {
        const sizeOf = () => options.rowsPerTransaction ?? sqliteTransactionRows(storedBefore + written);
        transactions = new WriterTransactions(this.#sqliteLoadWriter(sqliteFile), this.#db, this.#health, sizeOf);
      }
      if (!overlapped()) return write(preparedHere(part, renderer));
      const prepared = await (renderers ? renderers.prepare(part) : preparedInSteps(part, renderer));
      while (writing.length >= (transactions ? WRITER_PARTS_AHEAD : 1)) await writing.shift();
      const sent = write(prepared);
      // Awaited before the load returns; a failure meanwhile is not unhandled.
      sent.catch(() => (refused = true));
      writing.push(sent);
    };
    try {
      let part: Omit<ListingRecord, 'seq'>[] = [];
      for (const listing of listings) {
        part.push(listing);
        // Listings read from a generator cost time too: the event loop turns now and then, so the
        // part being written goes on meanwhile.
        if (part.length % LOAD_READ_STEP === 0 && overlapped()) await turn();
        if (part.length < partSize) continue;
        await send(part);
        part = [];
      }
      if (part.length > 0) await send(part);
      while (writing.length > 0) await writing.shift();
      // The source ended with the writer's transaction short of its size: it ends here.
      await (transactions as WriterTransactions | null)?.end();
    } finally {
      // A source or a part that failed to prepare leaves the parts sent before it to be written
      // (their whole transactions kept) before the load ends; a part refused, none after it.
      while (writing.length > 0 && !refused) await writing.shift()?.catch(() => undefined);
      // Closing SQLite's writer rolls back a transaction a failure left open (the parts sent behind
      // a refused one with it), then the connection is let go.
      await (transactions as WriterTransactions | null)?.close();
      await Promise.allSettled(writing);
      await renderers?.close();
    }
    return written;
  }

  /** The load's writer thread on this SQLite file, with the load's statements as this store compiles them. */
  #sqliteLoadWriter(file: string): SqliteLoadWriter {
    const statements = { lastRevision: lastRevision.portable(this.#db), listing: loadListing.portable(this.#db), page: loadPage.portable(this.#db) };
    return new SqliteLoadWriter(file, statements, this.#pages?.version ?? null, LOAD_WRITER_CACHE_KIB);
  }

  async #loadChunk(prepared: PreparedRows): Promise<void> {
    const renderer = this.#pages;
    const pages = renderer ? prepared.pages : null;
    const first = await this.#nextRevision();
    const rows: LoadRow[] = prepared.rows.map((row, i) => ({ ...row, revision: first + i, content_revision: first + i }));
    if (this.#engine === 'postgres') {
      await this.#loadRowsPostgres(rows, renderer && pages ? { version: renderer.version, pages } : null);
      return;
    }
    for (let i = 0; i < rows.length; i++) {
      const stored = await loadListing.first(this.#db, rows[i] as LoadRow);
      if (!stored || !renderer || !pages) continue;
      const page = pages[i] as ListingPage;
      await loadPage.run(this.#db, { seq: stored.seq, version: renderer.version, inputs: page.inputs, fixed: page.fixed });
    }
  }

  /**
   * PostgreSQL: the rows, each with its page, sent with COPY into the load's table (whose rows no
   * other transaction sees: the table is emptied before the commit), then one statement inserts the listings whose domain is new (in the order given, so
   * their seqs rise as their revisions do) and the pages of those it inserted.
   */
  async #loadRowsPostgres(rows: readonly LoadRow[], pages: { version: string; pages: readonly ListingPage[] } | null): Promise<void> {
    const staging = sql.id(LOAD_STAGING);
    const names = sql.join(LOAD_NAMES.map((name) => sql.id(name)));
    const columns = [...LOAD_NAMES, ...LOAD_PAGE_COLUMNS.map(([name]) => name)];
    await copyRowsIn(this.#db, LOAD_STAGING, columns, rows, (row, i) => {
      const page = pages?.pages[i];
      return [...LOAD_NAMES.map((name) => row[name]), pages && page ? pages.version : null, page?.inputs ?? null, page?.fixed ?? null];
    });
    await sql`
      WITH inserted AS (
        INSERT INTO listings (${names})
        SELECT ${names} FROM ${staging} ORDER BY revision
        ON CONFLICT (domain) DO NOTHING
        RETURNING seq, domain
      )
      INSERT INTO listing_pages (seq, version, inputs, fixed)
      SELECT inserted.seq, s.page_version, s.page_inputs, s.page_fixed
      FROM inserted JOIN ${staging} AS s ON s.domain = inserted.domain
      WHERE s.page_version IS NOT NULL
      ON CONFLICT (seq) DO UPDATE SET version = excluded.version, inputs = excluded.inputs, fixed = excluded.fixed`.execute(this.#db);
    // Emptied by TRUNCATE, not DELETE: each load's rows deleted stayed in the table as dead rows
    // until a vacuum (which an unlogged table busy only inside transactions may wait long for), and
    // every later transaction scanned them all; at 150,000 listings one took longer than the
    // statement timeout. TRUNCATE gives the table a new, empty file (transactionally: rolled back with
    // the load). Its exclusive lock is on the load's own table, held only by loads, which run one at a time.
    await sql`TRUNCATE ${staging}`.execute(this.#db);
  }

  /** The number of the next write of a listing, read once (the caller holds the listings' lock on PostgreSQL). */
  async #nextRevision(): Promise<number> {
    const row = await this.#db
      .selectFrom('listings')
      .select((eb) => eb.fn.max('revision').as('last'))
      .executeTakeFirst();
    return Number(row?.last ?? 0) + 1;
  }

  async byDomain(domain: string): Promise<ListingRecord | null> {
    const row = await this.#db.selectFrom('listings').select(['seq', 'document']).where('domain', '=', domain).executeTakeFirst();
    return row ? fromListingRow(row) : null;
  }

  async revisionOf(domain: string): Promise<number | null> {
    const row = await this.#db.selectFrom('listings').select('revision').where('domain', '=', domain).executeTakeFirst();
    return row ? Number(row.revision) : null;
  }

  async *allListed(filter: { source?: ListingRecord['source']; pageSize?: number } = {}): AsyncIterable<ListingRecord> {
    const pageSize = filter.pageSize ?? STREAM_PAGE;
    let after = 0;
    for (;;) {
      let query = this.#db.selectFrom('listings').select(['seq', 'document']).where('listed', '=', 1);
      if (filter.source) query = query.where('source', '=', filter.source);
      const rows = await query
        .where('seq', '>', after)
        .orderBy('seq')
        .limit(pageSize)
        .execute();
      for (const row of rows) yield fromListingRow(row);
      const last = rows[rows.length - 1];
      if (!last || rows.length < pageSize) return;
      after = last.seq;
    }
  }

  async countListed(): Promise<number> {
    const row = await this.#db.selectFrom('listings').select((eb) => eb.fn.countAll<number>().as('n')).where('listed', '=', 1).executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async bySeqs(seqs: readonly number[]): Promise<Map<number, ListingRecord>> {
    const found = new Map<number, ListingRecord>();
    if (seqs.length === 0) return found;
    const rows = await this.#db.selectFrom('listings').select(['seq', 'document']).where('seq', 'in', [...seqs]).execute();
    for (const row of rows) found.set(row.seq, fromListingRow(row));
    return found;
  }

  async recordPing(domain: string, atMs: number, software: ListingRecord['software']): Promise<void> {
    return this.#writing((store) => store.#recordPing(domain, atMs, software));
  }

  async #recordPing(domain: string, atMs: number, software: ListingRecord['software']): Promise<void> {
    const row = await this.#db.selectFrom('listings').select(['seq', 'document']).where('domain', '=', domain).executeTakeFirst();
    if (!row) return;
    const before = JSON.parse(row.document) as Omit<ListingRecord, 'seq'>;
    const listing = { ...before, lastPingAt: atMs, software, dormantSince: null };
    const document = JSON.stringify(listing);
    // A ping that brings a member set aside back changes what search reads; any other does not.
    const revived = before.dormantSince !== null;
    await this.#db
      .updateTable('listings')
      .set({
        document,
        last_ping_at: atMs,
        dormant_since: null,
        listed: isListed(listing) ? 1 : 0,
        updated_at: atMs,
        revision: NEXT_REVISION,
        ...(revived ? { content_revision: NEXT_REVISION, content_at: atMs } : {}),
      })
      .where('seq', '=', row.seq)
      .execute();
    await this.#writePages([{ seq: row.seq, document }]);
  }

  async recordTrust(domain: string, patch: TrustPatch, atMs: number): Promise<boolean> {
    return this.#writing((store) => store.#recordTrust(domain, patch, atMs));
  }

  async #recordTrust(domain: string, patch: TrustPatch, atMs: number): Promise<boolean> {
    const row = await this.#db.selectFrom('listings').select(['seq', 'document']).where('domain', '=', domain).executeTakeFirst();
    if (!row) return false;
    const listing = { ...(JSON.parse(row.document) as Omit<ListingRecord, 'seq'>), ...patch };
    const document = JSON.stringify(listing);
    // Receipts and reputation are shown, never searched on: a new revision (the live index re-reads the page), no content change.
    await this.#db.updateTable('listings').set({ document, updated_at: atMs, revision: NEXT_REVISION }).where('seq', '=', row.seq).execute();
    await this.#writePages([{ seq: row.seq, document }]);
    return true;
  }

  revision(): Promise<number> {
    return this.#revision.get();
  }

  peekRevision(): number | null {
    return this.#revision.peek();
  }

  async changesSince(revision: number, limit = 1_000): Promise<ListingChange[]> {
    // Asked before every search that is not answered from the cache: on the root store a prepared
    // statement on the index, a few microseconds when nothing changed; nothing at all when the kept
    // revision (no write since it was read) says nothing was written after `revision`. (A bare
    // `LIMIT ?` would be prepared again on every run by SQLite: shared guarded-dialect.ts.)
    const top = this.#revision.peek();
    if (top !== null && top <= revision) return [];
    if (this.#sqlite) {
      this.#changes ??= this.#sqlite.prepare('SELECT seq, revision, content_revision, last_ping_at FROM listings WHERE revision > ? ORDER BY revision LIMIT CAST(? AS INTEGER)');
      const rows = this.#changes.all(revision, limit) as { seq: number; revision: number; content_revision: number; last_ping_at: number | null }[];
      return rows.map((r) => ({ seq: r.seq, revision: r.revision, contentRevision: r.content_revision, lastPingAt: r.last_ping_at }));
    }
    const rows = await changesAfter.all(this.#db, { revision, limit });
    return rows.map((r) => ({ seq: r.seq, revision: r.revision, contentRevision: r.content_revision, lastPingAt: r.last_ping_at === null ? null : Number(r.last_ping_at) }));
  }

  async *rankRows(options: { pageSize?: number } = {}): AsyncIterable<RankRow> {
    const page = options.pageSize ?? STREAM_PAGE;
    let after = 0;
    for (;;) {
      const rows = await this.#db
        .selectFrom('listings')
        .select(['seq', 'id', 'source', 'last_ping_at', 'level', 'agent_door'])
        .where('listed', '=', 1)
        .where('seq', '>', after)
        .orderBy('seq')
        .limit(page)
        .execute();
      for (const r of rows) {
        yield {
          seq: r.seq,
          id: r.id,
          source: r.source as RankRow['source'],
          lastPingAt: r.last_ping_at === null ? null : Number(r.last_ping_at),
          level: r.level,
          agentDoor: r.agent_door === 1,
        };
      }
      const last = rows[rows.length - 1];
      if (!last || rows.length < page) return;
      after = last.seq;
    }
  }

  async countAll(): Promise<number> {
    const row = await this.#db.selectFrom('listings').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return Number(row.n);
  }
}

function toInstanceRow(i: InstanceRecord): InstancesTable {
  return {
    domain: i.domain,
    origin: i.origin,
    status: i.status,
    manifest: i.manifest ? JSON.stringify(i.manifest) : null,
    manifest_url: i.manifestUrl,
    listing_id: i.listingId,
    registered_at: i.registeredAt,
    verified_at: i.verifiedAt,
    last_checked_at: i.lastCheckedAt,
    last_ping_at: i.lastPingAt,
    fail_count: i.failCount,
    attempts: i.attempts,
    next_attempt_at: i.nextAttemptAt,
    last_error: i.lastError,
    delisted_at: i.delistedAt,
    dormant_since: i.dormantSince,
    software: i.software ? JSON.stringify(i.software) : null,
    counts: i.counts ? JSON.stringify(i.counts) : null,
  };
}

function fromInstanceRow(r: Selectable<InstancesTable>): InstanceRecord {
  const n = (v: number | null) => (v === null ? null : Number(v));
  return {
    domain: r.domain,
    origin: r.origin,
    status: r.status as InstanceRecord['status'],
    manifest: r.manifest ? (JSON.parse(r.manifest) as Record<string, unknown>) : null,
    manifestUrl: r.manifest_url,
    listingId: r.listing_id,
    registeredAt: Number(r.registered_at),
    verifiedAt: n(r.verified_at),
    lastCheckedAt: n(r.last_checked_at),
    lastPingAt: n(r.last_ping_at),
    failCount: r.fail_count,
    attempts: r.attempts,
    nextAttemptAt: n(r.next_attempt_at),
    lastError: r.last_error,
    delistedAt: n(r.delisted_at),
    dormantSince: n(r.dormant_since),
    software: r.software ? (JSON.parse(r.software) as InstanceRecord['software']) : null,
    counts: r.counts ? (JSON.parse(r.counts) as InstanceRecord['counts']) : null,
  };
}

class KyselyInstanceStore implements InstanceStore {
  readonly #db: Kysely<DirectoryDatabase>;
  constructor(db: Kysely<DirectoryDatabase>) {
    this.#db = db;
  }

  async get(domain: string): Promise<InstanceRecord | null> {
    const row = await this.#db.selectFrom('instances').selectAll().where('domain', '=', domain).executeTakeFirst();
    return row ? fromInstanceRow(row) : null;
  }

  async put(instance: InstanceRecord): Promise<void> {
    const row = toInstanceRow(instance);
    const { domain: _domain, ...changes } = row;
    await this.#db.insertInto('instances').values(row).onConflict((oc) => oc.column('domain').doUpdateSet(changes)).execute();
  }

  async list(): Promise<InstanceRecord[]> {
    return (await this.#db.selectFrom('instances').selectAll().orderBy('domain').execute()).map(fromInstanceRow);
  }

  async standing(domain: string): Promise<{ status: InstanceRecord['status']; verifiedAt: number | null } | null> {
    const row = await this.#db.selectFrom('instances').select(['status', 'verified_at']).where('domain', '=', domain).executeTakeFirst();
    return row ? { status: row.status as InstanceRecord['status'], verifiedAt: row.verified_at === null ? null : Number(row.verified_at) } : null;
  }

  async verified(afterDomain: string | null, limit: number): Promise<{ domain: string; origin: string; verifiedAt: number }[]> {
    let query = this.#db.selectFrom('instances').select(['domain', 'origin', 'verified_at']).where('verified_at', 'is not', null);
    if (afterDomain !== null) query = query.where('domain', '>', afterDomain);
    const rows = await query.orderBy('domain').limit(limit).execute();
    return rows.map((r) => ({ domain: r.domain, origin: r.origin, verifiedAt: Number(r.verified_at) }));
  }
}

class KyselyOrderStore implements OrderStore {
  readonly #db: Kysely<DirectoryDatabase>;
  constructor(db: Kysely<DirectoryDatabase>) {
    this.#db = db;
  }

  async get(hourStart: number): Promise<StoredOrder | null> {
    const row = await this.#db.selectFrom('rank_snapshots').selectAll().where('hour_start', '=', hourStart).executeTakeFirst();
    if (!row) return null;
    const bytes = Buffer.from(row.order_blob);
    const order = new Int32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
    return { hourStart: Number(row.hour_start), rulesVersion: row.rules_version, order, computedAt: Number(row.computed_at) };
  }

  /** The first order stored for an hour stands: an hour's order is frozen once written. */
  async put(order: StoredOrder): Promise<boolean> {
    const result = await this.#db
      .insertInto('rank_snapshots')
      .values({
        hour_start: order.hourStart,
        rules_version: order.rulesVersion,
        order_blob: Buffer.from(order.order.buffer, order.order.byteOffset, order.order.byteLength),
        count: order.order.length,
        computed_at: order.computedAt,
      })
      .onConflict((oc) => oc.column('hour_start').doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  async prune(beforeHour: number): Promise<void> {
    await this.#db.deleteFrom('rank_snapshots').where('hour_start', '<', beforeHour).execute();
  }
}

export class KyselyDirectoryStore implements DirectoryStore {
  readonly evidence;
  readonly statements;
  readonly persons;
  readonly listings;
  readonly instances;
  readonly orders;
  readonly indexSnapshots;
  readonly jobs;
  readonly replays;
  readonly receipts;
  readonly reputation;
  readonly checks;
  readonly queriesOnServer: boolean;
  readonly #db: Kysely<DirectoryDatabase>;
  readonly #inTransaction: boolean;

  readonly #pages: PageRenderer | null;
  readonly #writes: TableWrites | null;
  readonly #commits: ListingCommits;

  /**
   * `writes` (the root store on SQLite, table-writes.ts): revisions are read again only after a
   * write. `commits`/`wrote`: a transaction's store marks its listing writes for the root's count.
   */
  constructor(
    db: Kysely<DirectoryDatabase>,
    options: {
      inTransaction?: boolean;
      sqlite?: SqliteDatabase | null;
      health?: StorageHealth;
      pages?: PageRenderer | null;
      writes?: TableWrites | null;
      commits?: ListingCommits;
      wrote?: { listings: boolean };
      indexSnapshots?: IndexSnapshotStore;
    } = {},
  ) {
    this.#db = db;
    this.queriesOnServer = engineOf(db) === 'postgres';
    this.#inTransaction = options.inTransaction ?? false;
    this.#pages = options.pages ?? null;
    const writes = this.#inTransaction ? null : (options.writes ?? null);
    this.#writes = writes;
    this.#commits = options.commits ?? new ListingCommits();
    this.listings = new KyselyListingStore(db, options.sqlite ?? null, this.#pages, writes, this.#commits, options.wrote ?? null, options.health ?? null);
    this.instances = new KyselyInstanceStore(db);
    this.orders = new KyselyOrderStore(db);
    this.indexSnapshots = options.indexSnapshots ?? new KyselyIndexSnapshotStore(db);
    this.jobs = new KyselyJobStore(db);
    this.replays = new KyselyReplayStore(db);
    this.receipts = new KyselyReceiptStore(db);
    this.reputation = new KyselyReputationStore(db);
    this.checks = new KyselyCheckStore(db, writes);
    this.persons = new KyselyPersonStore(db);
    this.evidence = new KyselyEvidenceStore(db);
    this.statements = new KyselyStatementStore(db);
  }

  ownWritesStamp(tables: readonly string[]): string | null {
    return this.#writes?.ownStamp(tables) ?? null;
  }

  /** On PostgreSQL, a transaction that loses a race the database decides (a deadlock) runs again. */
  async transaction<T>(work: (store: DirectoryStore) => Promise<T>): Promise<T> {
    if (this.#inTransaction) return work(this);
    const wrote = { listings: false };
    const result = await transactionWithRetry(this.#db, (trx) => work(new KyselyDirectoryStore(trx, { inTransaction: true, pages: this.#pages, commits: this.#commits, wrote, indexSnapshots: this.indexSnapshots })));
    if (wrote.listings) this.#commits.count++;
    return result;
  }

  #batch: WriteBatch<DirectoryDatabase> | null = null;

  /**
   * On SQLite, calls arriving together share one commit (write-batch.ts: one fsync for many small
   * writes). On PostgreSQL each call is a transaction of its own, run again after a conflict: the
   * server commits many connections' transactions together itself, and a batch's savepoints could
   * not run one call again without the others (a conflict or deadlock ends the whole transaction).
   */
  batchedTransaction<T>(work: (store: DirectoryStore) => Promise<T>): Promise<T> {
    if (this.#inTransaction) return work(this);
    if (engineOf(this.#db) === 'postgres') return this.transaction(work);
    this.#batch ??= new WriteBatch(this.#db);
    return this.#batch.run((trx) => work(new KyselyDirectoryStore(trx, { inTransaction: true, pages: this.#pages, indexSnapshots: this.indexSnapshots })));
  }

  async close(): Promise<void> {
    await this.#db.destroy();
  }
}

export type OpenedDirectoryStore = KyselyDirectoryStore & { storageHealth: StorageHealth; engine: StorageEngine };

/**
 * The directory's store on its SQLite file (a path) or a PostgreSQL database (a target). `pages`
 * renders listings' search-result pages; without it none are written or served (search renders from
 * documents). `storageHealth` says whether the storage takes writes (shared storage-health.ts).
 */
export async function openDirectoryStore(where: string | StorageTarget, options: { pages?: PageRenderer } = {}): Promise<OpenedDirectoryStore> {
  const target: StorageTarget = typeof where === 'string' ? { engine: 'sqlite', file: where } : where;
  const { db, sqlite, health, engine, writes } = await openDirectoryDatabase(target);
  // SQLite: snapshots in files beside the database file (index-snapshot-store.ts says why); PostgreSQL: in the database.
  const indexSnapshots = target.engine === 'sqlite' && target.file !== ':memory:' ? new FileIndexSnapshotStore(target.file) : undefined;
  return Object.assign(new KyselyDirectoryStore(db, { sqlite, health, pages: options.pages ?? null, writes, ...(indexSnapshots ? { indexSnapshots } : {}) }), { storageHealth: health, engine });
}
