/**
 * A table's highest revision, kept in memory until the table may have been written (shared
 * table-writes.ts: this connection's writes, and on SQLite any other connection's commit). Result
 * documents, boards and pages key on these revisions on every read; the `max(revision)` query built
 * and run each time was a tenth of a result page's cost. Without TableWrites (PostgreSQL, where other
 * processes commit unseen, or a store inside a transaction) every call reads the table.
 */
import type { TableWrites } from '@svc/shared';

export class KeptRevision {
  readonly #writes: TableWrites | null;
  readonly #tables: readonly string[];
  readonly #read: () => Promise<number>;
  #kept: { stamp: string; revision: number } | null = null;

  constructor(writes: TableWrites | null, table: string, read: () => Promise<number>) {
    this.#writes = writes;
    this.#tables = [table];
    this.#read = read;
  }

  /** The kept revision while no write may have changed it since it was read; null otherwise (or without TableWrites). */
  peek(): number | null {
    if (!this.#writes || !this.#kept) return null;
    return this.#writes.stamp(this.#tables) === this.#kept.stamp ? this.#kept.revision : null;
  }

  async get(): Promise<number> {
    if (!this.#writes) return this.#read();
    // The stamp is taken before the read: a write landing during it leaves a stamp no later one equals.
    const stamp = this.#writes.stamp(this.#tables);
    if (this.#kept?.stamp === stamp) return this.#kept.revision;
    const revision = await this.#read();
    this.#kept = { stamp, revision };
    return revision;
  }
}
