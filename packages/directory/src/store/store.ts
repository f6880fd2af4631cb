/**
 * The directory's storage seam, in domain types. store/kysely implements it on SQLite; the search
 * index is built from `allListed()` and the stored hourly order, not from SQL at query time.
 */
import type { JobStore, ReplayStore } from '@svc/shared';
import type { ListingRecord } from '../domain/listings/listing.js';
import type { ListingPage, PageRendererRecipe, StoredListingPage } from '../domain/listings/listing-page.js';
import type { Standing } from '../domain/ranking/hourly-order.js';
import type { HeldAcknowledgement, HeldReceipt, ReceiptEvidence, ReceiptTally, StandingOutcome } from '../domain/receipts/held-receipt.js';
import type { ListingReputation, MemberReputation, ReputationNight } from '../domain/reputation/reputation.js';
import type { PersonStore } from './person-store.js';
import type { BoardSummary, CheckOutcome } from '../domain/checks/assess.js';
import type { DoorHistory } from '../domain/checks/door-history.js';

/** Renders a listing's search-result page (domain/listings/listing-page.ts); given to the store so every write keeps it current. */
export interface PageRenderer {
  readonly version: string;
  render(listing: ListingRecord): ListingPage;
  /** How a worker thread makes the same renderer; without it the bulk load renders on the caller's thread. */
  readonly recipe?: PageRendererRecipe | undefined;
}

export interface InstanceRecord {
  domain: string;
  origin: string;
  status: 'pending' | 'verified' | 'unreachable';
  manifest: Record<string, unknown> | null;
  manifestUrl: string;
  listingId: string | null;
  registeredAt: number;
  verifiedAt: number | null;
  lastCheckedAt: number | null;
  lastPingAt: number | null;
  failCount: number;
  attempts: number;
  nextAttemptAt: number | null;
  lastError: string | null;
  delistedAt: number | null;
  dormantSince: number | null;
  software: { version: string; runtime: string } | null;
  /** Activity the inbox reported with its last ping (counts over its last day). */
  counts: { bookings?: number; orders?: number; quotes?: number; messages?: number } | null;
}

export interface StoredOrder {
  hourStart: number;
  rulesVersion: number;
  /** Listing seq values in rank order. */
  order: Int32Array;
  computedAt: number;
}

/** What the hourly order reads of a listing, without its document. */
export interface RankRow {
  seq: number;
  id: string;
  source: ListingRecord['source'];
  lastPingAt: number | null;
  level: number;
  /** A live agent door other than an inbox at askable or above. */
  agentDoor: boolean;
}

/** One write of a listing, as the change feed gives it (changesSince). */
export interface ListingChange {
  seq: number;
  /** Number of this write; every write of a listing gets a higher one. */
  revision: number;
  /** Number of the listing's last write that changed what search reads; below `revision` after a ping. */
  contentRevision: number;
  lastPingAt: number | null;
}

/** How a bulk load cuts its listings (each has a default the store chooses). */
export interface LoadOptions {
  /** Listings a transaction commits. */
  rowsPerTransaction?: number;
  /** Listings prepared and handed on to be written at a time; on a SQLite file's writer thread a transaction may span several parts (elsewhere a part is a transaction). */
  rowsPerPart?: number;
  /** Worker threads that render the pages (default none). */
  renderWorkers?: number;
}

export interface ListingStore {
  /** Inserts or replaces by domain; returns the listing with its seq. */
  upsert(listing: Omit<ListingRecord, 'seq'>): Promise<ListingRecord>;
  /** Bulk insert for seeding large data sets; returns how many were written. */
  insertMany(listings: Iterable<Omit<ListingRecord, 'seq'>>, batchSize?: number): Promise<number>;
  /**
   * The bulk load: the rows, pages and revisions `upsert` would store for each listing in turn, in
   * large transactions of its own (or the caller's); a domain stored already is left as it is.
   * With `renderWorkers`, pages are rendered on that many worker threads while the part before is
   * written (default none: rendered on the caller's thread).
   */
  load(listings: Iterable<Omit<ListingRecord, 'seq'>>, options?: LoadOptions): Promise<number>;
  byDomain(domain: string): Promise<ListingRecord | null>;
  /** The number of the listing's last write (any write: a ping, receipts, its document), without reading it; null when no listing has the domain. */
  revisionOf(domain: string): Promise<number | null>;
  /** Every listing currently shown (not delisted, not set aside), in seq order, read `pageSize` rows a query (5,000 unless given). */
  allListed(filter?: { source?: ListingRecord['source']; pageSize?: number }): AsyncIterable<ListingRecord>;
  /**
   * The same, read synchronously one row at a time, so an index can be built from a million listings
   * without holding them all (the reader owns the connection while it iterates). Only where the
   * engine reads synchronously (the root store on SQLite); absent elsewhere (use allListed).
   */
  allListedSync?: (() => Iterable<ListingRecord>) | undefined;
  /**
   * Keeps this process's page cache small (SQLite's, 64 MiB a connection otherwise) while every
   * listing is read (the hour's order, index and counts), so pages read once do not stay in memory
   * (freed pages stay in the process's heap); returns what gives the cache its size back. Absent
   * where the engine keeps no such cache in this process.
   */
  readingEveryListing?(): () => void;
  countListed(): Promise<number>;
  countAll(): Promise<number>;
  /** Listings by seq (for a page of results), fresh from storage. */
  bySeqs(seqs: readonly number[]): Promise<Map<number, ListingRecord>>;
  /**
   * Current pre-rendered pages of these listings. A listing whose page is missing or of another
   * renderer version is left out (the caller renders it from its document); none without a renderer.
   */
  pagesBySeqs(seqs: readonly number[]): Promise<Map<number, StoredListingPage>>;
  /**
   * Renders the pages of listed listings that are missing or of another version, until done or
   * aborted; returns how many. Looks at `span` seqs a query (5,000 by default), writing at most
   * `batchSize` pages a transaction, with a turn of the event loop between queries.
   */
  refreshPages(options?: { batchSize?: number; span?: number; signal?: AbortSignal }): Promise<number>;
  /** A ping: last_ping_at and software change; what search reads does not. */
  recordPing(domain: string, atMs: number, software: ListingRecord['software']): Promise<void>;
  /**
   * What the network holds of a member's promises (receipts, outcomes, reputation) changed: the
   * document and its page follow; what search reads does not change. False when no listing has the domain.
   */
  recordTrust(domain: string, patch: TrustPatch, atMs: number): Promise<boolean>;
  /** Every listed business's rank columns, in seq order, `pageSize` rows a query (a smaller page holds a search for less time on SQLite). */
  rankRows(options?: { pageSize?: number }): AsyncIterable<RankRow>;
  /** The number of the latest write of any listing (0 before any). */
  revision(): Promise<number>;
  /**
   * That number without waiting, while it is known to hold: kept in memory since a read and no write
   * may have moved it (null otherwise, and always on PostgreSQL): for answers replayed without a read.
   */
  peekRevision(): number | null;
  /** Writes after `revision`, oldest first, at most `limit` (a listing written twice appears once, at its last). */
  changesSince(revision: number, limit?: number): Promise<ListingChange[]>;
  /**
   * Whether this process learns of every write without asking the database, so `changesSince` costs
   * microseconds (SQLite: one process owns the file). False on PostgreSQL: other processes commit
   * unseen, and each call is a round trip to the server.
   */
  readonly changesSeenLocally: boolean;
  /**
   * How many transactions writing listings this process has committed where `changesSeenLocally`
   * is false: a change counted here is read before the next cached answer, without waiting for
   * the once-a-second read of other processes' writes.
   */
  readonly committedHere: number;
}

/** The fields of a listing that receipts and the snapshot write. */
export interface TrustPatch {
  receipts?: ListingRecord['receipts'];
  outcomes?: ListingRecord['outcomes'];
  reputation?: ListingReputation | null;
}

export interface InstanceStore {
  get(domain: string): Promise<InstanceRecord | null>;
  put(instance: InstanceRecord): Promise<void>;
  list(): Promise<InstanceRecord[]>;
  /** Whether the domain is registered and since when it is verified, without reading its manifest (every signed call asks). */
  standing(domain: string): Promise<{ status: InstanceRecord['status']; verifiedAt: number | null } | null>;
  /** Verified instances after a domain, in domain order (the nightly snapshot walks them). */
  verified(afterDomain: string | null, limit: number): Promise<{ domain: string; origin: string; verifiedAt: number }[]>;
}

/** Receipts are held once per issuer and id; an issuer is its domain's origin, so they are keyed by (domain, receipt id). */
export interface ReceiptStore {
  get(domain: string, receiptId: string): Promise<HeldReceipt | null>;
  /** Holds a receipt; false when one with its (domain, receiptId) is held already. */
  insert(receipt: HeldReceipt): Promise<boolean>;
  /** Adds an acknowledgement to a held receipt that has none; false otherwise. */
  acknowledge(domain: string, receiptId: string, ack: HeldAcknowledgement): Promise<boolean>;
  /** Records a customer of the business; true when it is a new one. */
  addCustomer(domain: string, sub: string): Promise<boolean>;
  addToTally(domain: string, add: ReceiptTally, atMs: number): Promise<void>;
  tally(domain: string): Promise<ReceiptTally>;
  standingOutcome(domain: string, ref: string): Promise<StandingOutcome | null>;
  /**
   * Offers an outcome of a promise: it stands unless the one standing ranks higher by
   * (businessBroken, iat, receiptId), compared in that order (the rule of reputation/arithmetic.ts
   * outcomeStands). One statement, so concurrent intakes cannot both win.
   */
  offerOutcome(domain: string, outcome: StandingOutcome): Promise<void>;
  /** How many promises closed with each outcome code (the outcomes that stand). */
  outcomeCounts(domain: string): Promise<Record<string, number>>;
  /** Every receipt held from a business, counted or not, and how many carry an acknowledgement. */
  heldFrom(domain: string): Promise<{ held: number; acknowledged: number }>;
  /** Businesses whose tally changed at or after an instant (ms). */
  changedSince(atMs: number): Promise<string[]>;
  /** The tallies of every listed listing, summed (GET /v1/stats). */
  listedTotals(): Promise<{ issued: number; acknowledged: number }>;
  /** A business's receipts without their signed bytes, arrived before an instant (ms). */
  evidence(domain: string, arrivedBefore: number): Promise<ReceiptEvidence[]>;
}

export interface ReputationStore {
  night(night: string): Promise<ReputationNight | null>;
  putNight(night: ReputationNight): Promise<void>;
  /** The latest night at or before `night` whose scores are complete (computed or published). */
  latestComplete(atOrBefore: string): Promise<ReputationNight | null>;
  putScores(night: string, scores: readonly MemberReputation[]): Promise<void>;
  score(night: string, domain: string): Promise<MemberReputation | null>;
  scores(night: string, afterDomain: string | null, limit: number): Promise<MemberReputation[]>;
  /** The night's standings of listed listings, by listing seq (the hourly order). */
  standingsBySeq(night: string): Promise<Map<number, Standing>>;
  /** Removes nights (and their scores) before `night`. */
  prune(beforeNight: string): Promise<void>;
}

/** The replay store of signed instance requests, kept in the database (a restart does not forget). */
export interface DurableReplayStore extends ReplayStore {
  /** Whether a signature is held and still kept at `nowSec` (a check that records nothing). */
  isLive(id: string, nowSec: number): Promise<boolean>;
  /** Deletes signatures no longer kept at `nowSec`; returns how many. */
  prune(nowSec: number): Promise<number>;
}

/** A snapshot of a search node's index as stored: its bytes (what it was built at and laid out for is in them). */
export interface StoredIndexSnapshot {
  id: number;
  writtenAt: number;
  bytes: Buffer;
}

/** Snapshots of search nodes' indexes (docs/directory.md "A node ready in seconds"), kept where every node reads: PostgreSQL's database, a file beside SQLite's. */
export interface IndexSnapshotStore {
  /**
   * Stores a snapshot given as its chunks in turn (a few MB each), visible once whole, then drops
   * all but the newest `keep`.
   */
  put(info: { builtRevision: number; hourStart: number; writtenAt: number }, chunks: AsyncIterable<Buffer>, keep: number): Promise<void>;
  /** The newest whole snapshot; null when none is kept. */
  latest(): Promise<StoredIndexSnapshot | null>;
  /** Removes every snapshot kept (benchmarks start from none). */
  removeAll(): Promise<void>;
}

export interface OrderStore {
  get(hourStart: number): Promise<StoredOrder | null>;
  put(order: StoredOrder): Promise<boolean>;
  /** Removes orders older than `beforeHour`. */
  prune(beforeHour: number): Promise<void>;
}

/**
 * The states of a check result a row can be in (not_checked is no row). `suppressed` is the
 * operator's: a site the directory does not check, show or count (its result answers 404).
 */
export type StoredCheckState = 'queued' | 'checking' | 'scoring' | 'done' | 'blocked' | 'failed' | 'hidden' | 'not_checkable' | 'suppressed';

/** One checked site: its check as a durable queue entry, and its last finished result. */
export interface CheckRecord {
  domain: string;
  state: StoredCheckState;
  /** When a caller last asked for a check (null for scheduled re-checks only). */
  requestedAt: number | null;
  /** Its place in the queue (oldest first) while queued. */
  queuedAt: number | null;
  /** While checking or scoring: until when the worker holds it (a crashed worker's check is taken again after). */
  leaseUntil: number | null;
  attempts: number;
  /** The state of the last finished check, kept while a re-check is queued or running. */
  lastState: 'done' | 'blocked' | 'failed' | 'hidden' | 'not_checkable' | null;
  /** Why the last check ended as it did (our words), for blocked, failed, hidden and not_checkable. */
  lastReason: string | null;
  /** The last done check's outcome. */
  outcome: CheckOutcome | null;
  checkedAt: number | null;
  nextCheckAt: number | null;
}

/** What a leaderboard and the counts read of a done check. */
export interface CheckBoardRow {
  domain: string;
  score: number;
  checkedAt: number;
  agentReady: boolean;
  aiOptOut: boolean;
  kind: string | null;
  category: string | null;
  country: string | null;
  place: string | null;
  summary: BoardSummary;
}

export interface CheckStore {
  get(domain: string): Promise<CheckRecord | null>;
  put(check: CheckRecord): Promise<void>;
  /** Takes up to `limit` queued checks (oldest first) and checks whose lease ran out, marking them checking until `leaseUntil`. */
  claim(nowMs: number, leaseUntil: number, limit: number): Promise<CheckRecord[]>;
  /** 1 + how many queued checks are ahead of this one. */
  queuePosition(domain: string, queuedAt: number): Promise<number>;
  /** Domains of finished checks whose re-check is due. */
  due(nowMs: number, limit: number): Promise<string[]>;
  /** Done checks that are not hidden, with the columns boards read. */
  board(): Promise<CheckBoardRow[]>;
  /** Every done outcome that is not hidden (for the stats counts). */
  outcomes(): AsyncIterable<CheckOutcome>;
  /** Number of the latest change of any check (0 before any). */
  revision(): Promise<number>;
  /** That number without waiting, while it is known to hold (as ListingStore.peekRevision). */
  peekRevision(): number | null;
  /** Counts one check against the day's budget; false when `limit` checks already ran that day. */
  takeBudget(day: string, limit: number): Promise<boolean>;
  budgetUsed(day: string): Promise<number>;
  /** Counts a caller's request in its window; false when it already made `limit`. */
  takeCallerRequest(caller: string, windowStart: number, limit: number): Promise<boolean>;
  /** Forgets caller windows that ended before `before`. */
  pruneCallers(before: number): Promise<void>;
  /** Each door's history of a site, by door key (domain/checks/door-history.ts). */
  doorHistory(domain: string): Promise<Map<string, DoorHistory>>;
  /** Replaces a site's door history (an empty map forgets it). */
  putDoorHistory(domain: string, history: ReadonlyMap<string, DoorHistory>): Promise<void>;
}

/** One entry of the evidence log (docs/verifiable-order.md), its bytes as hashed. */
export interface EvidenceRow {
  index: number;
  at: number;
  kind: string;
  /** What it records, unique in the log: `r <domain> <receipt id>`, `a <domain> <receipt id>`, `m <domain>`, `n <night>`. */
  ref: string;
  entry: string;
  leafHash: Buffer;
}

/** A signed head of the evidence log. */
export interface StoredCheckpoint {
  size: number;
  root: Buffer;
  note: string;
  signedAt: number;
}

/**
 * The append-only evidence log. There is no way to change or remove an entry here (and the
 * database's triggers refuse it). Appends run in a transaction: next() takes the log's turn until
 * the commit, so entries are numbered without gaps in the order they commit.
 */
export interface EvidenceStore {
  /** The next entry's index and the earliest time it may carry (the last entry's); holds the log until commit. */
  next(): Promise<{ index: number; minAt: number }>;
  /** Writes the entry at the index next() gave; false when an entry with its ref is in the log already. */
  append(row: EvidenceRow): Promise<boolean>;
  byRef(ref: string): Promise<EvidenceRow | null>;
  size(): Promise<number>;
  /** How many entries arrived before an instant (ms): the log's prefix before it, times never falling. */
  sizeBefore(atMs: number): Promise<number>;
  /** Entries [start, end) in order. */
  entries(start: number, end: number): Promise<EvidenceRow[]>;
  leafHashes(start: number, end: number): Promise<Buffer[]>;
  /** Roots of whole tiles of 256 entries kept so far, from tile `from` on, in order. */
  blocks(from: number): Promise<Buffer[]>;
  putBlocks(blocks: readonly { index: number; hash: Buffer }[]): Promise<void>;
  latestCheckpoint(): Promise<StoredCheckpoint | null>;
  putCheckpoint(checkpoint: StoredCheckpoint): Promise<void>;
}

/** An hour's signed statement as kept (domain/evidence/hour-statement.ts). */
export interface StoredStatement {
  hourStart: number;
  rulesVersion: number;
  shuffleDay: string;
  night: number | null;
  logSize: number;
  logRoot: Buffer;
  /** The log's size before and after the order read its listings; null for statements made before it was kept. */
  checks: { from: number; to: number } | null;
  orderSize: number;
  orderRoot: Buffer;
  note: string;
  createdAt: number;
}

export interface StatementStore {
  get(hourStart: number): Promise<StoredStatement | null>;
  /** Keeps the statement and what its leaves say; false when the hour has one already. */
  put(statement: StoredStatement, leaves: { facts: Buffer; tileRoots: Buffer }): Promise<boolean>;
  leafFacts(hourStart: number): Promise<{ facts: Buffer; tileRoots: Buffer } | null>;
  /** Forgets what leaves said of hours before `beforeHour` (the statements stay). */
  pruneLeafFacts(beforeHour: number): Promise<void>;
  /** The id and domain of listings by seq (what an order leaf names). */
  listingKeys(seqs: readonly number[]): Promise<Map<number, { id: string; domain: string }>>;
  /** The same of every listing stored, listed or not, in seq order: the first `limit` past seq `after`. */
  listingKeysAfter(after: number, limit: number): Promise<{ seq: number; id: string; domain: string }[]>;
}

export interface DirectoryStore {
  /** The append-only evidence log of what reputation is computed from (docs/verifiable-order.md). */
  readonly evidence: EvidenceStore;
  /** Each hour's signed statement of its order. */
  readonly statements: StatementStore;
  /** Persons, keys, passes and presentations (docs/identity.md "The network side"). */
  readonly persons: PersonStore;
  readonly listings: ListingStore;
  readonly checks: CheckStore;
  readonly instances: InstanceStore;
  readonly orders: OrderStore;
  /** Snapshots of search nodes' indexes. */
  readonly indexSnapshots: IndexSnapshotStore;
  readonly jobs: JobStore;
  readonly replays: DurableReplayStore;
  readonly receipts: ReceiptStore;
  readonly reputation: ReputationStore;
  /**
   * Queries run in a database server's processes (PostgreSQL), which share the machine's cores with
   * this node, rather than on this thread (SQLite): background work paces its queries (stepwise.ts pacedQuery).
   */
  readonly queriesOnServer: boolean;
  /**
   * A stamp of these tables that differs from every earlier one once this store's connection wrote
   * any of them (shared table-writes.ts `ownStamp`); blind to other connections' commits, so only for
   * answers kept a bounded moment. Null where writes are not counted (PostgreSQL, a store inside a
   * transaction).
   */
  ownWritesStamp(tables: readonly string[]): string | null;
  transaction<T>(work: (store: DirectoryStore) => Promise<T>): Promise<T>;
  /**
   * Runs `work` as transaction() does, but in one transaction with the other calls waiting at that
   * moment, each in a savepoint of its own: one call's failure undoes its writes only, and one commit
   * makes many small writes durable (receipt intake under load). Settles after the commit.
   */
  batchedTransaction<T>(work: (store: DirectoryStore) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
