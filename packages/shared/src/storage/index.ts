/**
 * The storage layer alone (`@svc/shared/storage`), for code that must stay light (an answer worker
 * thread): engines, column types, the dialect helpers, transactions, the PostgreSQL pool. The
 * package's main entry exports the same.
 */
export * from './engine.js';
export * from './column-types.js';
export * from './sql-dialect.js';
export * from './transactions.js';
export * from './postgres.js';
export * from './postgres-url.js';
export * from './postgres-failures.js';
export { onPostgresClient } from './guarded-postgres-dialect.js';
export * from './storage.js';
export * from './storage-health.js';
export * from './write-batch.js';
export * from './compiled-query.js';
