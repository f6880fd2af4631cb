/**
 * Directory tables as Kysely sees them. Times are INTEGER ms since the epoch; documents are JSON
 * TEXT; booleans INTEGER 0/1. Only store/kysely reads these shapes.
 */
import type { JobsTable } from '@svc/shared';
import type { Generated } from 'kysely';

export interface ListingsTable {
  seq: Generated<number>; // INTEGER PRIMARY KEY: dense, used by the search index and stored orders
  id: string;
  domain: string;
  source: string;
  kind: string;
  /** The whole ListingRecord (minus seq) as JSON; columns beside it exist for lookups and counts. */
  document: string;
  listed: number;
  delisted_at: number | null;
  dormant_since: number | null;
  verified_at: number | null;
  last_ping_at: number | null;
  /** Rank inputs kept as columns, so the hourly order is computed without reading documents. */
  level: number;
  agent_door: number;
  /** Last change of what search reads (not pings): the search index is rebuilt when it moves. */
  content_at: number;
  updated_at: number;
  /** Number of the listing's last write, rising across the table (every write, pings too). */
  revision: Generated<number>;
  /** `revision` of its last write that changed what search reads (not a ping). */
  content_revision: Generated<number>;
}

export interface InstancesTable {
  domain: string;
  origin: string;
  status: string; // pending | verified | unreachable
  manifest: string | null;
  manifest_url: string;
  listing_id: string | null;
  registered_at: number;
  verified_at: number | null;
  last_checked_at: number | null;
  last_ping_at: number | null;
  fail_count: number;
  attempts: number;
  next_attempt_at: number | null;
  last_error: string | null;
  delisted_at: number | null;
  dormant_since: number | null;
  software: string | null;
  counts: string | null;
}

/** A search node's index as it was written (migration 0016); its bytes are its chunks, in part order. */
export interface IndexSnapshotsTable {
  id: number;
  built_revision: number;
  hour_start: number;
  chunks: number;
  bytes: number;
  written_at: number;
}

export interface IndexSnapshotChunksTable {
  snapshot_id: number;
  part: number;
  bytes: Buffer;
}

export interface RankSnapshotsTable {
  hour_start: number; // ms, on the hour (UTC)
  rules_version: number;
  /** Little-endian Int32 listing seq values in rank order. */
  order_blob: Buffer;
  count: number;
  computed_at: number;
}

/** A listing's pre-rendered search-result view (see domain/listings/listing-page.ts). */
export interface ListingPagesTable {
  seq: number; // the listing's seq
  /** The renderer's version; a page of another version is stale and not served. */
  version: string;
  /** JSON of the inputs of the moment sections. */
  inputs: string;
  /** The fixed sections, rendered. */
  fixed: string;
}

/** Signatures of instance requests already accepted, kept until keep_until (unix seconds): the replay store. */
export interface UsedSignaturesTable {
  id: string;
  keep_until: number;
}

/** A receipt published by a verified inbox, with its acknowledgement once one arrived. */
export interface ReceiptsTable {
  iss: string;
  receipt_id: string;
  /** The issuer's domain (its origin's host): what listings are keyed by. */
  domain: string;
  kid: string;
  jws: string;
  /** base64url SHA-256 of jws: what an acknowledgement binds and what a duplicate is compared by. */
  sha256: string;
  typ: string;
  knd: string;
  out: string | null;
  ref: string | null;
  prv: string | null;
  sub: string;
  itm: string;
  /** Claims times are unix seconds; arrival and acknowledgement times ms. */
  iat: number;
  due: number;
  end_at: number | null;
  paid: number;
  aut: number;
  /** 0 for a sandbox receipt: held (so it deduplicates), counted for nothing. */
  counted: number;
  arrived_at: number;
  ack_jws: string | null;
  ack_jkt: string | null;
  ack_iat: number | null;
  ack_at: number | null;
}

/** What every view reads of a business's receipts, kept current by the intake. */
export interface ReceiptTalliesTable {
  domain: string;
  issued: number;
  acknowledged: number;
  customers: number;
  last_at: number | null;
  updated_at: number;
}

/** The distinct customers (receipt `sub`) a business's counted receipts came from. */
export interface ReceiptCustomersTable {
  domain: string;
  sub: string;
}

/** The outcome that stands for each promise (the promise's receipt id is `ref`). */
export interface ReceiptOutcomesTable {
  domain: string;
  ref: string;
  receipt_id: string;
  code: string;
  iat: number;
  business_broken: number;
}

/** One nightly reputation snapshot and how far it got (computing → computed → published). */
export interface ReputationNightsTable {
  night: string;
  scoring_time: number;
  rules_version: number;
  status: string;
  cursor: string | null;
  members: number;
  started_at: number;
  computed_at: number | null;
  published_at: number | null;
}

export interface ReputationScoresTable {
  night: string;
  domain: string;
  score: number;
  score_int: number;
  ranked: number;
  tier: string;
  kept: number;
  broken: number;
  customers: number;
  verified_share: number;
  units: number;
}

/** One checked site (domain/checks): its queue state and last result (the outcome as JSON, with the columns boards and counts read). */
export interface ChecksTable {
  domain: string;
  state: string;
  requested_at: number | null;
  queued_at: number | null;
  lease_until: number | null;
  attempts: number;
  last_state: string | null;
  last_reason: string | null;
  outcome: string | null;
  checked_at: number | null;
  next_check_at: number | null;
  score: number | null;
  agent_ready: number;
  ai_opt_out: number;
  kind: string | null;
  category: string | null;
  country: string | null;
  place: string | null;
  /** JSON of what a leaderboard row shows besides the columns: name, grade, level, answers. */
  summary: string | null;
  revision: number;
}

export interface CheckBudgetTable {
  day: string;
  checks: number;
}

/** A door's history across checks (domain/checks/door-history.ts), as JSON. */
export interface CheckDoorsTable {
  domain: string;
  door_key: string;
  history: string;
}

export interface CheckCallersTable {
  caller: string;
  window_start: number;
  count: number;
}
import type { EvidenceBlocksTable, EvidenceCheckpointsTable, EvidenceLogTable, OrderLeafFactsTable, OrderStatementsTable } from './evidence-tables.js';
import type { IssuancesTable, PassesTable, PersonKeysTable, PersonOutcomesTable, PersonsTable, PresentationsTable } from './person-tables.js';

export interface DirectoryDatabase {
  listings: ListingsTable;
  listing_pages: ListingPagesTable;
  instances: InstancesTable;
  rank_snapshots: RankSnapshotsTable;
  index_snapshots: IndexSnapshotsTable;
  index_snapshot_chunks: IndexSnapshotChunksTable;
  jobs: JobsTable;
  used_signatures: UsedSignaturesTable;
  receipts: ReceiptsTable;
  receipt_tallies: ReceiptTalliesTable;
  receipt_customers: ReceiptCustomersTable;
  receipt_outcomes: ReceiptOutcomesTable;
  reputation_nights: ReputationNightsTable;
  reputation_scores: ReputationScoresTable;
  checks: ChecksTable;
  check_budget: CheckBudgetTable;
  check_callers: CheckCallersTable;
  check_doors: CheckDoorsTable;
  persons: PersonsTable;
  person_keys: PersonKeysTable;
  passes: PassesTable;
  presentations: PresentationsTable;
  person_outcomes: PersonOutcomesTable;
  issuances: IssuancesTable;
  evidence_log: EvidenceLogTable;
  evidence_blocks: EvidenceBlocksTable;
  evidence_checkpoints: EvidenceCheckpointsTable;
  order_statements: OrderStatementsTable;
  order_leaf_facts: OrderLeafFactsTable;
}
