/** Brings a database's schema up to date with a service's embedded migrations (both engines). */
import { Migrator, type Kysely, type Migration } from 'kysely';

export async function migrateToLatest(db: Kysely<unknown>, migrations: Record<string, Migration>): Promise<void> {
  // On PostgreSQL Kysely runs them in one transaction under an advisory lock, so processes starting
  // together on one database migrate it once. Migrations are numbered by the branch that adds them, so
  // a database may have run a later number before an earlier one arrives (it ran 0009 and 0012, then
  // 0006 comes): what it has not run, it runs, in number order. Every migration of a service is
  // independent of those numbered after it.
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations }, allowUnorderedMigrations: true });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`migration ${failed?.migrationName ?? '?'} failed: ${String(error)}`, { cause: error });
  }
}

/**
 * One row the storage probe rewrites to learn whether the storage takes writes again (storage-health.ts;
 * outside the migrations: every service has it), with a create's size of bytes.
 */
export const PROBE_TABLE = 'storage_probe_writes';
/** The one-row probe table of earlier releases (a timestamp only), dropped at start. */
export const OLD_PROBE_TABLE = 'storage_probe';
