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
import pg from 'pg';

export const TEST_POSTGRES_URL = process.env.TEST_POSTGRES_URL || null;

/** Whether this run keeps the services' data in PostgreSQL. */
export const onPostgres = TEST_POSTGRES_URL !== null;

let icu: boolean | null = null;

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

/**
 * The database URL of a service's data folder on this run: null on SQLite runs; on PostgreSQL runs,
 * that folder's own database (made when it does not exist yet).
 */
export async function testDatabaseUrl(service: 'inbox' | 'directory', dataDir: string): Promise<string | null> {
  if (!onPostgres) return null;
  const name = databaseName(service, dataDir);
  await withAdmin(async (client) => {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 1) return;
    try {
      if (icu !== false) {
        await client.query(`CREATE DATABASE "${name}" TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US'`);
        icu = true;
        return;
      }
    } catch (error) {
      // A server built without ICU: the server's own locale then.
      if ((error as { code?: string }).code === '42P04') return;
      icu = false;
    }
    try {
      await client.query(`CREATE DATABASE "${name}" TEMPLATE template0`);
    } catch (error) {
      if ((error as { code?: string }).code !== '42P04') throw error;
    }
  });
  return urlOf(name);
}

/** Drops a data folder's database (the harness's close with removeData). */
export async function dropTestDatabase(service: 'inbox' | 'directory', dataDir: string): Promise<void> {
  if (!onPostgres) return;
  const name = databaseName(service, dataDir);
  await withAdmin((client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
}
