/** Directory settings from the environment, each with an embedded default (documented in README.md). */
import { SettingError } from '@svc/shared';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';

export interface DirectoryEnvironment {
  dataDir: string;
  host: string;
  port: number;
  baseUrl: string;
  allowLocalInboxes: boolean;
  seedDemo: boolean;
  demoListings: number;
  logLevel: string;
  /** PostgreSQL instead of the SQLite file (DIRECTORY_DATABASE_URL, a postgres:// URL); null: SQLite. */
  databaseUrl: string | null;
  /** The agentic check (docs/checks.md). */
  checks: { enabled: boolean; dailyBudget: number; concurrency: number; localWeb: string | null };
  /** DIRECTORY_HEAP_GROWING_PERCENT: bounds V8's heap limit to this much over what is live (collector-setting.ts); null: V8's own factor. */
  heapGrowingPercent: number | null;
}

/**
 * A directory on PostgreSQL is one directory whichever node answers (docs/directory.md "Search
 * nodes"): its links, pages and the host signed calls name are its public URL. Left to each node's
 * own address, two nodes would answer different bytes and refuse each other's signatures.
 */
export const SHARED_DATABASE_NEEDS_PUBLIC_URL =
  'DIRECTORY_DATABASE_URL is set but DIRECTORY_PUBLIC_URL is not. Nodes on one PostgreSQL database are one directory: set DIRECTORY_PUBLIC_URL to its public address (such as https://directory.example) on every node, and on the commands that write to its database. Without it each node would name its own host and port in links, pages and signed calls.';

function integer(value: string | undefined, fallback: number, name: string, min: number, max: number): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < min || parsed > max) throw new SettingError(`${name} must be a whole number from ${min} to ${max}, not ${value}`);
  return parsed;
}

export function readDirectoryEnvironment(env: NodeJS.ProcessEnv = process.env): DirectoryEnvironment {
  const host = env.DIRECTORY_HOST || '127.0.0.1';
  const port = integer(env.DIRECTORY_PORT, 8080, 'DIRECTORY_PORT', 0, 65_535);
  const databaseUrl = env.DIRECTORY_DATABASE_URL || null;
  if (databaseUrl !== null && !env.DIRECTORY_PUBLIC_URL) throw new SettingError(SHARED_DATABASE_NEEDS_PUBLIC_URL);
  return {
    dataDir: resolve(env.DATA_DIR || './data'),
    host,
    port,
    baseUrl: env.DIRECTORY_PUBLIC_URL || `http://${host}:${port}`,
    allowLocalInboxes: env.DIRECTORY_ALLOW_LOCAL_INBOXES === 'true',
    seedDemo: env.DIRECTORY_SEED_DEMO !== 'false',
    demoListings: integer(env.DIRECTORY_DEMO_LISTINGS, 3000, 'DIRECTORY_DEMO_LISTINGS', 0, 2_000_000),
    logLevel: env.LOG_LEVEL || 'info',
    databaseUrl,
    checks: {
      enabled: env.DIRECTORY_CHECKS !== 'off',
      dailyBudget: integer(env.DIRECTORY_CHECK_DAILY_BUDGET, 1_000, 'DIRECTORY_CHECK_DAILY_BUDGET', 0, 1_000_000),
      concurrency: integer(env.DIRECTORY_CHECK_CONCURRENCY, 4, 'DIRECTORY_CHECK_CONCURRENCY', 1, 64),
      localWeb: localWebSetting(env.DIRECTORY_CHECK_LOCAL_WEB),
    },
    heapGrowingPercent: env.DIRECTORY_HEAP_GROWING_PERCENT ? integer(env.DIRECTORY_HEAP_GROWING_PERCENT, 0, 'DIRECTORY_HEAP_GROWING_PERCENT', 1, 400) : null,
  };
}

/**
 * Worker threads that assemble search answers (DIRECTORY_ANSWER_WORKERS): by default one fewer than
 * the cores (the server's own thread keeps one), at least one and at most four; 0 assembles on the
 * server's thread.
 */
export function answerWorkersFromEnvironment(env: NodeJS.ProcessEnv = process.env): number {
  return integer(env.DIRECTORY_ANSWER_WORKERS, Math.min(4, Math.max(1, availableParallelism() - 1)), 'DIRECTORY_ANSWER_WORKERS', 0, 16);
}

/**
 * Each answer worker's young generation in MB (DIRECTORY_ANSWER_WORKER_YOUNG_MB; 0, the default: V8's
 * own). On PostgreSQL a worker's page reads wait on the network, so what they allocate outlives
 * scavenges and V8 grows its young generation to the largest (145 MB of heap at 1 M listings after
 * 6,400 searches); a cap keeps it small, for 7–14% of PostgreSQL's search throughput, so it is the
 * operator's choice (docs/directory.md, "A busy node's young generations").
 */
export function answerWorkerYoungMbFromEnvironment(env: NodeJS.ProcessEnv = process.env): number {
  return integer(env.DIRECTORY_ANSWER_WORKER_YOUNG_MB, 0, 'DIRECTORY_ANSWER_WORKER_YOUNG_MB', 0, 1024);
}

/** DIRECTORY_CHECK_LOCAL_WEB: development only, the local web of sample sites at 127.0.0.1:<port> (unset: off). */
function localWebSetting(value: string | undefined): string | null {
  if (value === undefined || value === '' || value === 'off') return null;
  if (!/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}:\d{1,5}$/.test(value)) throw new SettingError(`DIRECTORY_CHECK_LOCAL_WEB must be 127.x.x.x:<port> (the local web of sample sites), not ${value}`);
  return value;
}
