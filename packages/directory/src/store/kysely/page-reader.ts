/**
 * The hot read of every search: a page of results' pre-rendered listing pages, by seq, in one
 * statement. Used by the store and by the answer workers (each on its own connection). SQLite's;
 * PostgreSQL's is postgres-page-reader.ts (a worker loads only the one it needs).
 */
import type { SqliteDatabase, SqliteStatement } from '@svc/shared/sqlite-driver';
import { StoredListingPage } from '../../domain/listings/listing-page.js';

export class PageReader {
  readonly #statement: SqliteStatement;

  constructor(sqlite: SqliteDatabase) {
    // One result row: every page's `fixed` bytes in one blob (with their lengths) and every `inputs`
    // in one text (JSON never holds a raw \u0001, which separates them). Twenty small rows would make
    // twenty buffers; the aggregates all see the rows in the same order. The seqs are bound as one
    // JSON array, so one prepared statement serves every page size.
    this.#statement = sqlite
      .prepare(
        `SELECT json_group_array(seq), json_group_array(length(CAST(fixed AS BLOB))), group_concat(inputs, char(1)), CAST(group_concat(fixed, '') AS BLOB)
         FROM listing_pages WHERE version = ? AND seq IN (SELECT value FROM json_each(?))`,
      )
      .raw(true);
  }

  /** The current pages (of renderer `version`) of these listings; a missing or stale one is left out. */
  read(version: string, seqs: readonly number[]): Map<number, StoredListingPage> {
    const found = new Map<number, StoredListingPage>();
    if (seqs.length === 0) return found;
    const [seqList, lengthList, inputList, fixed] = this.#statement.get(version, JSON.stringify(seqs)) as [string, string, string | null, Buffer | null];
    if (inputList === null || fixed === null) return found;
    const rowSeqs = JSON.parse(seqList) as number[];
    const lengths = JSON.parse(lengthList) as number[];
    const inputs = inputList.split('\u0001');
    let at = 0;
    for (let i = 0; i < rowSeqs.length; i++) {
      const length = lengths[i] as number;
      found.set(rowSeqs[i] as number, new StoredListingPage(inputs[i] as string, fixed.subarray(at, at + length)));
      at += length;
    }
    return found;
  }
}

