/**
 * Which test files the PostgreSQL pass runs (vitest.postgres.config.ts), by a rule rather than a
 * list: every test file that opens a service's database, found by reading the test file and the
 * test helpers it imports (never the services' own sources). A file opens a database when it, or a
 * helper it reaches, names one of the OPENS markers: the harnesses (`startInbox`, `startDirectory`)
 * give a data folder the run's database through `testDatabaseUrl`, and a test that builds a service
 * itself (`buildInbox`, `buildDirectory`) must pass it `testDatabaseUrl` too (checked here, so a new
 * test cannot quietly run on SQLite in the PostgreSQL pass). A file about SQLite alone (a full disk,
 * the WAL) says so in a line `// sqlite only: <why>` and is left to the SQLite pass. Pure functions
 * open nothing and run once, on SQLite's pass.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** What opens a service's database, or a PostgreSQL connection of a test's own. */
const OPENS = /\b(testDatabaseUrl|rawRows|storedAnywhere|TEST_POSTGRES_URL|onPostgres|buildInbox|buildDirectory|startInboxFromEnvironment|startDirectoryFromEnvironment)\b/;
/** Building a service by hand: it must be given the run's database. */
const BUILDS = /\b(buildInbox|buildDirectory)\(/;
const GIVES_DATABASE = /\b(testDatabaseUrl|TEST_POSTGRES_URL|onPostgres)\b/;
const SQLITE_ONLY = /^\s*\/\/ sqlite only: (.+)$/m;
const RELATIVE_IMPORT = /(?:from\s+|import\s*\(\s*)'(\.{1,2}\/[^']+)'/g;

export interface PostgresSuites {
  /** Test files the PostgreSQL pass runs, relative to the root. */
  include: string[];
  /** Test files that open a database but are about SQLite alone, with why. */
  sqliteOnly: { file: string; why: string }[];
  /** Test files that build a service without giving it the run's database (they would run on SQLite twice). */
  missingDatabase: string[];
}

function testFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'dist' || name === 'fixtures') continue;
    if (statSync(path).isDirectory()) testFiles(path, out);
    else if (name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

/** A relative import's file: `./x.js` is written for `./x.ts`. */
function resolveImport(from: string, spec: string): string | null {
  const base = resolve(dirname(from), spec);
  for (const candidate of [base.replace(/\.js$/, '.ts'), base, `${base}.ts`]) {
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not this one
    }
  }
  return null;
}

/** Whether a file, or a test helper it imports (not a service's source), opens a database. */
function opensDatabase(file: string, root: string, seen = new Map<string, boolean>()): boolean {
  const known = seen.get(file);
  if (known !== undefined) return known;
  seen.set(file, false);
  const text = readFileSync(file, 'utf8');
  let opens = OPENS.test(text);
  for (const match of text.matchAll(RELATIVE_IMPORT)) {
    if (opens) break;
    const target = resolveImport(file, match[1] as string);
    // Test helpers only: everything in a service's src reaches its store, which says nothing of the test.
    if (!target || relative(root, target).split('/').includes('src')) continue;
    opens = opensDatabase(target, root, seen);
  }
  seen.set(file, opens);
  return opens;
}

export function postgresSuites(root: string): PostgresSuites {
  const files = readdirSync(join(root, 'packages'))
    .map((p) => join(root, 'packages', p, 'test'))
    .filter((dir) => {
      try {
        return statSync(dir).isDirectory();
      } catch {
        return false;
      }
    })
    .flatMap((dir) => testFiles(dir))
    .sort();
  const result: PostgresSuites = { include: [], sqliteOnly: [], missingDatabase: [] };
  const seen = new Map<string, boolean>();
  for (const file of files) {
    if (!opensDatabase(file, root, seen)) continue;
    const path = relative(root, file);
    const text = readFileSync(file, 'utf8');
    const only = SQLITE_ONLY.exec(text);
    if (only) {
      result.sqliteOnly.push({ file: path, why: (only[1] as string).trim() });
      continue;
    }
    if (BUILDS.test(text) && !GIVES_DATABASE.test(text)) result.missingDatabase.push(path);
    result.include.push(path);
  }
  return result;
}
