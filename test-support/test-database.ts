/**
 * The PostgreSQL side of the test harnesses. When TEST_POSTGRES_URL names a server (scripts/postgres.mjs
 * starts a throwaway one; `npm test` runs the storage-facing suites on it, docs/storage.md), every data
 * folder a harness opens gets a database of its own, made fresh the first time and found again when
 * the same folder is opened again (a restart). Without TEST_POSTGRES_URL the services use their SQLite
 * files, as they do by default.
 *
 * The databases are made with an ICU en-US collation rather than the server's C locale, as an
 * operator's database often is: the stores' ordering must not depend on it (shared column-types.ts).
 */
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { openPostgres } from '@svc/shared';
import pg from 'pg';

export const TEST_POSTGRES_URL = process.env.TEST_POSTGRES_URL || null;

/** Whether this run keeps the services' data in PostgreSQL. */
export const onPostgres = TEST_POSTGRES_URL !== null;

let icu: boolean | null = null;

/** A service's database, or an empty one for a test's own tables. */
export type TestService = 'inbox' | 'directory' | 'scratch';

function databaseName(service: string, dataDir: string): string {
  return `${service}_${createHash('sha256').update(dataDir).digest('hex').slice(0, 24)}`;
}

function urlOf(name: string): string {
  const url = new URL(TEST_POSTGRES_URL as string);
  url.pathname = `/${name}`;
  return url.href;
}

async function withAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL as string });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Makes an empty database: ICU en-US when the server has ICU, else the server's own locale. */
async function createEmpty(client: pg.Client, name: string): Promise<void> {
  if (icu !== false) {
    try {
      await client.query(`CREATE DATABASE "${name}" TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US'`);
      icu = true;
      return;
    } catch (error) {
      if ((error as { code?: string }).code === '42P04') throw error;
      icu = false;
    }
  }
  await client.query(`CREATE DATABASE "${name}" TEMPLATE template0`);
}

const templates = new Map<string, Promise<string>>();

/**
 * A database with the service's schema, made once per server (whichever test process gets there
 * first, under an advisory lock) and copied for each data folder: copying it takes a fraction of
 * running the migrations again. The migrations themselves run here, on PostgreSQL, every run.
 */
function template(service: 'inbox' | 'directory'): Promise<string> {
  let made = templates.get(service);
  if (!made) {
    made = makeTemplate(service);
    templates.set(service, made);
  }
  return made;
}

async function makeTemplate(service: 'inbox' | 'directory'): Promise<string> {
  const name = `svc_template_${service}`;
  await withAdmin(async (client) => {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [name]);
    try {
      const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1 AND datistemplate', [name]);
      if (found.rowCount === 1) return;
      // Half made by a test process that died: again.
      await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await createEmpty(client, name);
      const migrations =
        service === 'inbox'
          ? (await import('../packages/inbox/src/store/kysely/database.js')).INBOX_MIGRATIONS
          : (await import('../packages/directory/src/store/kysely/database.js')).DIRECTORY_MIGRATIONS;
      const { db } = await openPostgres(urlOf(name), migrations, { applicationName: 'test template' });
      await db.destroy();
      await client.query(`ALTER DATABASE "${name}" WITH IS_TEMPLATE true`);
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [name]);
    }
  });
  return name;
}

/**
 * The database URL of a service's data folder on this run: null on SQLite runs; on PostgreSQL runs,
 * that folder's own database (copied from the service's template when it does not exist yet; the
 * service's own start then finds its migrations applied). `scratch`: an empty database.
 */
export async function testDatabaseUrl(service: TestService, dataDir: string): Promise<string | null> {
  if (!onPostgres) return null;
  const name = databaseName(service, dataDir);
  const from = service === 'scratch' ? null : await template(service);
  await withAdmin(async (client) => {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 1) return;
    try {
      if (from === null) await createEmpty(client, name);
      else await client.query(`CREATE DATABASE "${name}" TEMPLATE "${from}"`);
    } catch (error) {
      if ((error as { code?: string }).code !== '42P04') throw error;
    }
  });
  return urlOf(name);
}

/** Drops a data folder's database (the harness's close with removeData). */
export async function dropTestDatabase(service: TestService, dataDir: string): Promise<void> {
  if (!onPostgres) return;
  const name = databaseName(service, dataDir);
  await withAdmin((client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
}

/**
 * Runs SQL (with `?` placeholders) on a data folder's database, whichever engine this run uses:
 * for tests that look at what was stored, or store what an earlier version would have.
 */
export async function rawRows(service: 'inbox' | 'directory', dataDir: string, text: string, params: unknown[] = []): Promise<Record<string, unknown>[]> {
  if (!onPostgres) {
    const { openSqliteFile } = await import('@svc/shared');
    const db = openSqliteFile(join(dataDir, `${service}.sqlite`));
    try {
      // The running service may hold the write lock for a moment (another process would wait too).
      db.pragma('busy_timeout = 5000');
      const statement = db.prepare(text);
      return statement.reader ? (statement.all(...params) as Record<string, unknown>[]) : (statement.run(...params), []);
    } finally {
      db.close();
    }
  }
  let n = 0;
  const client = new pg.Client({ connectionString: (await testDatabaseUrl(service, dataDir)) as string });
  await client.connect();
  try {
    return (await client.query(text.replace(/\?/g, () => `$${++n}`), params)).rows as Record<string, unknown>[];
  } finally {
    await client.end();
  }
}

/**
 * Whether anything a service stored holds `needle` in clear: on SQLite, its database file and WAL
 * byte for byte; on PostgreSQL, every row of every table as text (the server's files are its own).
 */
export async function storedAnywhere(service: 'inbox' | 'directory', dataDir: string, needle: string): Promise<boolean> {
  if (!onPostgres) {
    return readdirSync(dataDir)
      .filter((file) => file.startsWith(`${service}.sqlite`))
      .some((file) => readFileSync(join(dataDir, file)).includes(Buffer.from(needle)));
  }
  const tables = await rawRows(service, dataDir, "SELECT tablename FROM pg_tables WHERE schemaname = 'public'");
  for (const { tablename } of tables) {
    const rows = await rawRows(service, dataDir, `SELECT t::text AS row FROM "${String(tablename)}" AS t`);
    if (rows.some((r) => String(r.row).includes(needle))) return true;
  }
  return false;
}

/** What a column declared with this type may hold on SQLite, for every value to mean the same on PostgreSQL. */
function allowedStorage(declared: string): readonly string[] | null {
  const type = declared.toLowerCase();
  if (type.includes('int')) return ['integer'];
  if (type.includes('blob')) return ['blob'];
  if (type.includes('real') || type.includes('double')) return ['real', 'integer'];
  return null;
}

/**
 * Values SQLite stored that PostgreSQL refuses or reads otherwise: a fraction or a text in an integer
 * column (PostgreSQL: `invalid input syntax for type bigint`), a number past 32 bits in an `integer`
 * column (PostgreSQL's is 32 bits: `out of range for type integer`), a text in a blob column (bytea
 * would read its backslashes), a text in a float column. SQLite keeps whatever it is given in any column,
 * so a store that binds a fraction passes every SQLite test; this finds the row it left. Empty on
 * PostgreSQL runs, where the server refused the write itself. The harnesses call it as they close.
 */
export async function misfitValues(service: 'inbox' | 'directory', dataDir: string): Promise<string[]> {
  if (onPostgres) return [];
  const { openSqliteFile } = await import('@svc/shared');
  const { existsSync } = await import('node:fs');
  const file = join(dataDir, `${service}.sqlite`);
  if (!existsSync(file)) return [];
  const db = openSqliteFile(file);
  const found: string[] = [];
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as { name: string }[];
    for (const { name } of tables) {
      const columns = db.prepare(`SELECT name, type FROM pragma_table_info(?)`).all(name) as { name: string; type: string }[];
      for (const column of columns) {
        const allowed = allowedStorage(column.type);
        if (!allowed) continue;
        const kinds = allowed.map((k) => `'${k}'`).join(', ');
        const c = `"${column.name}"`;
        // PostgreSQL's integer is 32 bits (bigint is 64); SQLite's INTEGER holds either.
        const outOfRange = column.type.toLowerCase() === 'integer' ? ` OR (typeof(${c}) = 'integer' AND (${c} > 2147483647 OR ${c} < -2147483648))` : '';
        const rows = db
          .prepare(`SELECT typeof(${c}) AS kind, quote(${c}) AS value FROM "${name}" WHERE typeof(${c}) NOT IN (${kinds}, 'null')${outOfRange} LIMIT 3`)
          .all() as { kind: string; value: string }[];
        for (const row of rows) found.push(`${name}.${column.name} (${column.type}) holds ${row.kind} ${row.value.slice(0, 80)}`);
      }
    }
  } finally {
    db.close();
  }
  return found;
}

/** Fails when a store left a value PostgreSQL would have refused (misfitValues). */
export async function expectFittingValues(service: 'inbox' | 'directory', dataDir: string): Promise<void> {
  const found = await misfitValues(service, dataDir);
  if (found.length > 0) throw new Error(`the ${service} stored values its PostgreSQL columns would refuse:\n  ${found.join('\n  ')}`);
}
