/**
 * The few query forms that differ between SQLite and PostgreSQL, written once (docs/storage.md "The
 * dialect layer"). Stores build every other query with Kysely's builder, which both engines share;
 * these return Kysely expressions, so they slot into those queries.
 */
import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import { engineOf, type AnyKysely } from './engine.js';

/** Column types a list or a row set can carry (cast on PostgreSQL, read from JSON on SQLite). */
export type SqlScalar = 'text' | 'integer' | 'bigint';

/**
 * `column IN (values)` as one SQL text whatever the number of values, so the statement is prepared
 * once: `IN (SELECT value FROM json_each(?))` on SQLite, `= ANY(?::type[])` on PostgreSQL.
 * An empty list matches nothing.
 */
export function inList(db: AnyKysely, column: string, values: readonly (string | number)[], type: SqlScalar = 'text'): RawBuilder<SqlBool> {
  if (engineOf(db) === 'postgres') return sql<SqlBool>`${sql.ref(column)} = ANY(CAST(${[...values]} AS ${sql.raw(type)}[]))`;
  return sql<SqlBool>`${sql.ref(column)} IN (SELECT value FROM json_each(${JSON.stringify(values)}))`;
}

/**
 * A table read through one of its indexes, for a query that index covers: `INDEXED BY` on SQLite,
 * whose planner takes a lookup by rowid over a covering index even where each row it would read is
 * kilobytes on disk; PostgreSQL's planner weighs the index itself (an index-only scan), so there the
 * table as it is.
 */
export function tableThroughIndex(db: AnyKysely, table: string, index: string): RawBuilder<unknown> {
  if (engineOf(db) === 'postgres') return sql`${sql.id(table)}`;
  return sql`${sql.id(table)} INDEXED BY ${sql.id(index)}`;
}

/**
 * PostgreSQL's `column = ANY(CAST(values AS type[]))` with the list as one parameter, for a reader
 * that runs on PostgreSQL only: unlike `inList`, a compileOnce slot may stand in for the list (the
 * answer workers' page read, prepared once per connection).
 */
export function anyOfArray(column: string, values: unknown, type: SqlScalar): RawBuilder<SqlBool> {
  return sql<SqlBool>`${sql.ref(column)} = ANY(CAST(${values} AS ${sql.raw(type)}[]))`;
}

/**
 * Rows given by the caller as a table to join or update from, in one parameter per engine's taste:
 * `json_each` of one JSON array of arrays on SQLite, `unnest` of one array per column on
 * PostgreSQL. `columns` names and types each position of a row.
 */
export function rowsTable(db: AnyKysely, alias: string, columns: readonly (readonly [name: string, type: SqlScalar])[], rows: readonly (readonly unknown[])[]): RawBuilder<unknown> {
  if (engineOf(db) === 'postgres') {
    const arrays = columns.map(([, type], i) => sql`CAST(${rows.map((row) => row[i] ?? null)} AS ${sql.raw(type)}[])`);
    const names = sql.join(columns.map(([name]) => sql.id(name)));
    return sql`(SELECT * FROM unnest(${sql.join(arrays)}) AS ${sql.id(`${alias}_rows`)}(${names})) AS ${sql.id(alias)}`;
  }
  const picks = sql.join(columns.map(([name], i) => sql`json_extract(value, ${sql.lit(`$[${i}]`)}) AS ${sql.id(name)}`));
  return sql`(SELECT ${picks} FROM json_each(${JSON.stringify(rows)})) AS ${sql.id(alias)}`;
}

/**
 * A text column as its UTF-8 bytes, read with `utf8BytesOf`: CAST AS BLOB on SQLite (a Buffer); the
 * text as it is on PostgreSQL, encoded in the node. The database sends a text column as its UTF-8
 * and converts nothing, where `encode(convert_to(…), 'base64')` made the server encode every row
 * and sent a third more bytes (the answer workers' page read: 50–73% more reads a second,
 * docs/directory.md "The answer worker's page read on PostgreSQL").
 */
export function utf8Bytes(db: AnyKysely, column: string): RawBuilder<Buffer | string> {
  if (engineOf(db) === 'postgres') return sql<string>`${sql.ref(column)}`;
  return sql<Buffer>`CAST(${sql.ref(column)} AS BLOB)`;
}

/** The bytes of a `utf8Bytes` column as read: the blob, or the text's UTF-8 (lossless: a database text holds no lone surrogate). */
export function utf8BytesOf(value: Buffer | Uint8Array | string): Buffer {
  return typeof value === 'string' ? Buffer.from(value, 'utf8') : bytesOf(value);
}

/**
 * A large binary column read for transfer (megabytes a row): base64 text on PostgreSQL, the blob as
 * it is on SQLite; `bytesOf` turns either into a Buffer. node-postgres reads a `bytea` in the text
 * format as hex, twice the bytes on the wire and a hex string decoded in the node, and its binary
 * result mode decodes every column as UTF-8 first (bytes above 0x7f are lost): base64 is a third
 * more bytes than the blob, decoded natively (a snapshot at 1 M, docs/directory.md "A node ready in
 * seconds").
 */
export function bulkBytes(db: AnyKysely, column: string): RawBuilder<Buffer | string> {
  if (engineOf(db) === 'postgres') return sql<string>`encode(${sql.ref(column)}, 'base64')`;
  return sql<Buffer>`${sql.ref(column)}`;
}

/** The bytes of a `bulkBytes` column as read. */
export function bytesOf(value: Buffer | Uint8Array | string): Buffer {
  if (typeof value === 'string') return Buffer.from(value, 'base64');
  return Buffer.isBuffer(value) ? value : Buffer.from(value);
}

/**
 * Decodes a `bulkBytes` value straight into `target` at `offset`, with no buffer of its own between
 * (a large value read in many parts is joined without its parts each allocated and freed). The
 * count of bytes written, or null when they would not fit.
 */
export function copyBytesInto(target: Buffer, offset: number, value: Buffer | Uint8Array | string): number | null {
  if (offset < 0 || offset > target.length) return null;
  if (typeof value !== 'string') {
    if (offset + value.length > target.length) return null;
    target.set(value, offset);
    return value.length;
  }
  // PostgreSQL breaks its base64 into lines (stripping them there costs more than the read): the
  // count from the text's length is at least the bytes' count, exact once decoded. Where that bound
  // passes the end (the last parts), the part is decoded on its own to know whether it fits.
  if (offset + Buffer.byteLength(value, 'base64') <= target.length) return target.write(value, offset, 'base64');
  const bytes = Buffer.from(value, 'base64');
  if (offset + bytes.length > target.length) return null;
  target.set(bytes, offset);
  return bytes.length;
}

/**
 * On PostgreSQL, keeps a binary column's values out of line and uncompressed (STORAGE EXTERNAL):
 * for values that do not compress much (an index snapshot's typed arrays: 238 MB to 165 MB), pglz
 * tried on every write cost 3.5 times the write's time (24.7 s against 7.1 s at 1 M) and its
 * decompression is paid at every read. SQLite stores blobs as they are: nothing to do. Rows written
 * before keep their form. For a migration.
 */
export async function storeUncompressed(db: AnyKysely, table: string, column: string): Promise<void> {
  if (engineOf(db) !== 'postgres') return;
  await sql`ALTER TABLE ${sql.table(table)} ALTER COLUMN ${sql.ref(column)} SET STORAGE EXTERNAL`.execute(db);
}

/**
 * On PostgreSQL, compresses a large text column's new values with LZ4 rather than pglz, when the
 * server was built with it (Debian's and most are; one built without keeps pglz): several times
 * faster to compress and to read back, for a few percent more disk. A value already compressed keeps
 * its method when copied into another table. Values stored before keep theirs; both read alike.
 * SQLite does not compress: nothing to do. For a migration.
 */
export async function compressFast(db: AnyKysely, table: string, columns: readonly string[]): Promise<void> {
  if (engineOf(db) !== 'postgres') return;
  const { rows } = await sql<{ lz4: boolean }>`SELECT 'lz4' = ANY(enumvals) AS lz4 FROM pg_settings WHERE name = 'default_toast_compression'`.execute(db);
  if (rows[0]?.lz4 !== true) return;
  const changes = sql.join(columns.map((column) => sql`ALTER COLUMN ${sql.ref(column)} SET COMPRESSION lz4`));
  await sql`ALTER TABLE ${sql.table(table)} ${changes}`.execute(db);
}

/**
 * Whether `column` starts with `prefix`, without LIKE (an `_` in the prefix would be a wildcard):
 * substr on both engines, the length a parameter so that every prefix shares one SQL text.
 */
export function startsWith(column: string, prefix: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`substr(${sql.ref(column)}, 1, ${prefix.length}) = ${prefix}`;
}

/**
 * On PostgreSQL, takes a lock named `name` that is held until the transaction ends: transactions
 * taking it run that part one at a time and commit in the order they took it (docs/storage.md
 * "Commit order"). SQLite has one writer at a time already: nothing to do. Call inside a transaction.
 */
export async function lockUntilCommit(db: AnyKysely, name: string): Promise<void> {
  if (engineOf(db) !== 'postgres') return;
  if (!db.isTransaction) throw new Error(`lockUntilCommit(${name}) outside a transaction would be released at once`);
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${name}, 0))`.execute(db);
}

/** A boolean expression usable in `.where()`. */
export type Condition = Expression<SqlBool>;
