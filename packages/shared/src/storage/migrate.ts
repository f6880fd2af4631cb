/** Brings a database's schema up to date with a service's embedded migrations (both engines). */
import { Migrator, type Kysely, type Migration } from 'kysely';

export async function migrateToLatest(db: Kysely<unknown>, migrations: Record<string, Migration>): Promise<void> {
  // On PostgreSQL Kysely runs them in one transaction under an advisory lock, so processes starting
  // together on one database migrate it once.
  const { error, results } = await new Migrator({ db, provider: { getMigrations: async () => migrations } }).migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`migration ${failed?.migrationName ?? '?'} failed: ${String(error)}`, { cause: error });
  }
}

/** One row /healthz rewrites to learn whether the storage takes writes again (outside the migrations: every service has it). */
export const PROBE_TABLE = 'storage_probe';
