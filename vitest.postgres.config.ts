/**
 * The PostgreSQL pass of `npm test` (scripts/run-tests.mjs starts a throwaway server and sets
 * TEST_POSTGRES_URL; the harnesses then give every data folder a database of its own): every test
 * file that opens a service's database, found by a rule (test-support/postgres-suites.ts), not a
 * list. docs/storage.md says which and why. The whole suite runs on SQLite (vitest.config.ts).
 */
import { availableParallelism } from 'node:os';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { postgresSuites } from './test-support/postgres-suites.js';
import base from './vitest.config.js';

const suites = postgresSuites(dirname(fileURLToPath(import.meta.url)));
if (suites.missingDatabase.length > 0) {
  throw new Error(
    `these tests build a service without the run's database, so the PostgreSQL pass would run them on SQLite: pass databaseUrl: await testDatabaseUrl(...) (test-support/test-database.ts)\n  ${suites.missingDatabase.join('\n  ')}`,
  );
}

/** The test files the PostgreSQL pass runs. */
export const POSTGRES_SUITES = suites.include;

// A PostgreSQL test waits on the server more than on its own process: two files at a time even on two
// cores, where vitest's default is one. (The SQLite pass keeps the default: a second fork there once
// never answered vitest at start and held the run until it was killed.)
export default defineConfig({ test: { ...base.test, include: POSTGRES_SUITES, maxWorkers: Math.max(2, availableParallelism()) } });
