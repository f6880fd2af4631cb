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
import type { IssuancesTable, PassesTable, PersonKeysTable, PersonOutcomesTable, PersonsTable, PresentationsTable } from './person-tables.js';

export interface DirectoryDatabase {
  listings: ListingsTable;
  listing_pages: ListingPagesTable;
  instances: InstancesTable;
  rank_snapshots: RankSnapshotsTable;
  jobs: JobsTable;
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
}
