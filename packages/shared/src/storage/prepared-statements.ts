/**
 * Queries kept as prepared statements on PostgreSQL: a query compiled once (compiled-query.ts) runs
 * as a named statement on each connection, parsed and planned at its first run there and only bound
 * and executed afterwards (guarded-postgres-dialect.ts). The searches' hot reads (the change feed
 * before every search, an answer worker's page read) are such queries; the server then spends no
 * parse and plan on each. SQLite keeps its own statement cache per connection: nothing to do.
 *
 * A name is the SHA-1 of the SQL text, so a connection never holds two texts under one name.
 * Prepared statements live on a connection: behind a pooler that hands a client a different server
 * connection for each transaction (PgBouncer's transaction mode) they need its prepared-statement
 * support (PgBouncer 1.21 and later, max_prepared_statements).
 */
import { createHash } from 'node:crypto';

/** Operation nodes of the queries to run as prepared statements (a compiled-once template's node is shared by each of its runs). */
const prepared = new WeakSet<object>();
const names = new Map<string, string>();

export function keepPrepared(query: object): void {
  prepared.add(query);
}

/** The statement name of a compiled query to run prepared, or undefined. */
export function preparedName(query: object, sqlText: string): string | undefined {
  if (!prepared.has(query)) return undefined;
  let name = names.get(sqlText);
  if (name === undefined) {
    name = `k${createHash('sha1').update(sqlText).digest('hex').slice(0, 30)}`;
    names.set(sqlText, name);
  }
  return name;
}
