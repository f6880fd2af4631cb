/** Messages between the bulk load and its SQLite writer thread (sqlite-load-writer.ts, sqlite-load-worker.ts). */
import type { ParameterSource } from '@svc/shared/storage';
import type { ListingPage } from '../domain/listings/listing-page.js';
import type { ListingColumns } from '../store/kysely/listing-columns.js';

/** A statement compiled by Kysely on the load's thread, prepared by the worker on its own connection. */
export interface PortableStatement {
  sql: string;
  sources: readonly ParameterSource[];
}

export interface SqliteLoadWorkerData {
  /** The better-sqlite3 build this Node loads (sqlite-driver.ts). */
  driverPath: string;
  file: string;
  busyTimeoutMs: number;
  /** SQLite's page cache, in KiB, as the store's own connection has it. */
  cacheKib: number;
  /** The highest revision stored: no values. */
  lastRevision: PortableStatement;
  /** One listing's row; answers its seq when it was inserted (a domain stored already is left as it is). */
  listing: PortableStatement;
  /** One page's row. */
  page: PortableStatement;
  /** The version every page of the load carries (null: the load writes no pages). */
  pageVersion: string | null;
}

/**
 * One part of a transaction: the rows but their revisions (numbered by the worker inside it), and
 * their pages. The worker begins a transaction with the first part once the load has sent 'begin'
 * for it, and commits it with the part that says so; a failure rolls back every part since the
 * last commit. The other messages to the worker are the words 'begin' and 'close'.
 */
export interface SqliteLoadRequest {
  id: number;
  rows: ListingColumns[];
  pages: ListingPage[] | null;
  commit: boolean;
}

/** The part written (how many of its listings were new), or why the transaction was rolled back. */
export interface SqliteLoadResponse {
  id: number;
  inserted?: number;
  error?: { message: string; code?: string };
}

export interface SqliteLoadReady {
  ready: true;
}
