/**
 * Which build of better-sqlite3 the running Node loads. Owns that choice only; opening a service's
 * database (pragmas, migrations) is `sqlite.ts`.
 *
 * better-sqlite3 13 is built on Node-API and ships prebuilt binaries for every common platform, so
 * it installs in seconds with no compiler, but it needs Node 22 or newer (on Node 20 it crashes at
 * first use). 12 and earlier are built per Node version and abort on Node 24 (their `ObjectWrap`
 * destructor removes a cleanup hook when no environment is current: worker threads, teardown). So
 * Node 22 and newer load 13, an ordinary dependency; Node 20 loads 12 from `packages/shared/sqlite-node20`,
 * which `scripts/ensure-deps.mjs` installs only on Node 20. Both builds have the same API and the same
 * types. docs/decisions.md ("Node versions and the SQLite driver") says why.
 */
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

export type SqliteDatabase = BetterSqlite3.Database;
export type SqliteStatement = BetterSqlite3.Statement;
export type SqliteOptions = BetterSqlite3.Options;
type SqliteConstructor = typeof BetterSqlite3;

/** The first Node major that runs better-sqlite3 13 (its `engines`). */
export const FIRST_NODE_FOR_CURRENT_SQLITE = 22;

/** Where Node 20's build lives, relative to this file in `src/storage/` and in `dist/storage/` alike. */
const NODE20_FOLDER = new URL('../../sqlite-node20/package.json', import.meta.url);

let loaded: SqliteConstructor | undefined;

/** The better-sqlite3 constructor for this Node; throws a sentence saying how to install it when it is missing. */
export function sqliteDriver(): SqliteConstructor {
  if (loaded) return loaded;
  const { require, current } = driverRequire();
  try {
    loaded = require('better-sqlite3') as SqliteConstructor;
  } catch (error) {
    const install = current ? 'npm install' : 'npm ci --prefix packages/shared/sqlite-node20';
    throw new Error(
      `better-sqlite3 for Node ${process.versions.node} is not installed (${(error as Error).message}). ` +
        `'npm start' and 'npm test' install it; by hand: ${install}`,
    );
  }
  return loaded;
}

/** Where the driver this Node loads lives, for a worker thread that opens its own connection. */
export function sqliteDriverPath(): string {
  sqliteDriver();
  return driverRequire().require.resolve('better-sqlite3');
}

function driverRequire(): { require: NodeJS.Require; current: boolean } {
  const major = Number(process.versions.node.split('.')[0]);
  const current = major >= FIRST_NODE_FOR_CURRENT_SQLITE;
  return { require: createRequire(current ? import.meta.url : NODE20_FOLDER), current };
}

/** A connection to a SQLite file (or ':memory:') through the driver this Node runs. */
export function openSqliteFile(file: string, options?: SqliteOptions): SqliteDatabase {
  const Database = sqliteDriver();
  return new Database(file, options);
}
