/**
 * page-reader.ts's read on PostgreSQL, through Kysely, on a connection of its own (an answer
 * worker's): the current pages of a page of results, `fixed` as its UTF-8 bytes (sql-dialect.ts `utf8Bytes`: the text as it is, encoded here).
 */
import { anyOfArray, compileOnce, connectPostgres, utf8Bytes, utf8BytesOf, type PostgresSettings } from '@svc/shared/storage';
import type { Kysely } from 'kysely';
import { StoredListingPage } from '../../domain/listings/listing-page.js';
import type { DirectoryDatabase } from './schema.js';

/** Built and compiled once, and a prepared statement on the worker's connection (prepared-statements.ts): parsed and planned once, not at every answer. */
const pagesOf = compileOnce((db: Kysely<DirectoryDatabase>, at: { version: string; seqs: readonly number[] }) =>
  db
    .selectFrom('listing_pages')
    .select(['seq', 'inputs', utf8Bytes(db, 'fixed').as('fixed')])
    .where('version', '=', at.version)
    .where(anyOfArray('seq', at.seqs, 'integer')),
);

export class PostgresPageReader {
  readonly #db: Kysely<DirectoryDatabase>;

  /** `connections` of the URL's `max` (docs/storage.md; two when it leaves room, app.ts), with the service's waits. */
  constructor(url: string, settings: PostgresSettings, connections = 1) {
    this.#db = connectPostgres<DirectoryDatabase>(url, { applicationName: 'directory answer worker', max: connections, settings });
  }

  async read(version: string, seqs: readonly number[]): Promise<Map<number, StoredListingPage>> {
    const found = new Map<number, StoredListingPage>();
    if (seqs.length === 0) return found;
    const rows = await pagesOf.all(this.#db, { version, seqs });
    for (const row of rows) found.set(row.seq, new StoredListingPage(row.inputs, utf8BytesOf(row.fixed)));
    return found;
  }

  close(): Promise<void> {
    return this.#db.destroy();
  }
}
