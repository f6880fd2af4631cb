/**
 * Test harness: a real directory on a temporary data folder, on 127.0.0.1 with an ephemeral port,
 * a movable clock, and listings the test provides. Tests talk to it over real HTTP.
 */
import { TestClock as SharedClock, jsonClient, type ApiResponse } from '../../../../test-support/http-client.js';
import { dropTestDatabase, expectFittingValues, testDatabaseUrl } from '../../../../test-support/test-database.js';
import { expect } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildDirectory, type Directory, type DirectoryOptions } from '../../src/app.js';
import type { ListingRecord } from '../../src/domain/listings/listing.js';
import type { CheckSettings } from '../../src/domain/checks/check-service.js';

/** A clock tests move by hand. Defaults to Monday 2026-11-23T10:15:00Z. */
export class TestClock extends SharedClock {
  constructor(start: string | number = '2026-11-23T10:15:00Z') {
    super(start);
  }
}

export type { ApiResponse };

/** The public URL every test directory is built with (what about_url and rules_url start with); the server listens elsewhere. */
export const HARNESS_BASE_URL = 'http://127.0.0.1';

export interface TestDirectory {
  directory: Directory;
  /** Where the server listens. */
  baseUrl: string;
  /** The public URL it was built with (what signed calls name as @authority): HARNESS_BASE_URL unless `publicAtListenAddress`. */
  publicUrl: string;
  dataDir: string;
  clock: TestClock;
  request<T = any>(method: string, path: string, options?: { body?: unknown; headers?: Record<string, string>; rawBody?: string }): Promise<ApiResponse<T>>;
  get<T = any>(path: string, headers?: Record<string, string>): Promise<ApiResponse<T>>;
  close(options?: { removeData?: boolean }): Promise<void>;
}

export interface StartDirectoryOptions {
  clock?: TestClock;
  dataDir?: string;
  listings?: Iterable<Omit<ListingRecord, 'seq'>>;
  allowLocalInboxes?: boolean;
  runJobs?: boolean;
  /** Off unless a test is about the answer cache, so each search reads the index. */
  cacheAnswers?: boolean;
  searchDeadlineMs?: number;
  /** Answer worker threads (the default of the machine when absent; 0: the server's thread). */
  answerWorkers?: number;
  /** Log lines (info and up) go here; the directory logs nothing when absent. */
  logStream?: { write(line: string): void };
  /** Build it with its listen address as its public URL (a real inbox calls it there and signs for that host). */
  publicAtListenAddress?: boolean;
  /** The agentic check's settings (the local web of sample sites: `localWeb`). */
  checks?: Partial<CheckSettings>;
  /** Run checks in the background (default off: tests drain the worker). */
  runChecks?: boolean;
  /** Scale of the burst budgets (off in tests unless a test is about them). */
  rateLimit?: number;
  /** Orders of at least this many places have their tree hashed on a worker thread (the service's default unless given). */
  orderTreeWorkerFrom?: number;
  /**
   * Run what a directory runs as it starts (the last midnight's snapshot) before the test goes on
   * (default true); false for a test that loads the demo first, as main.ts does: the night's entry in
   * the evidence log comes after the history the demo makes up.
   */
  runStartJobs?: boolean;
}

/** A port free on 127.0.0.1 right now (the directory must know its public URL before it listens). */
async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const port = (probe.address() as { port: number }).port;
      probe.close(() => resolve(port));
    });
  });
}

export async function startDirectory(options: StartDirectoryOptions = {}): Promise<TestDirectory> {
  const clock = options.clock ?? new TestClock();
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'directory-test-'));
  const port = options.publicAtListenAddress ? await freePort() : 0;
  const publicUrl = options.publicAtListenAddress ? `http://127.0.0.1:${port}` : HARNESS_BASE_URL;
  const directory = await buildDirectory({
    dataDir,
    // PostgreSQL runs (TEST_POSTGRES_URL): the data folder's own database; otherwise its SQLite file.
    databaseUrl: await testDatabaseUrl('directory', dataDir),
    baseUrl: publicUrl,
    allowLocalInboxes: options.allowLocalInboxes ?? false,
    clock,
    logLevel: options.logStream ? 'info' : 'silent',
    ...(options.logStream ? { logStream: options.logStream } : {}),
    runJobs: options.runJobs ?? false,
    jobPollIntervalMs: 50,
    hourlyTimer: false,
    cacheAnswers: options.cacheAnswers ?? false,
    ...(options.searchDeadlineMs !== undefined ? { searchDeadlineMs: options.searchDeadlineMs } : {}),
    ...(options.answerWorkers !== undefined ? { answerWorkers: options.answerWorkers } : {}),
    // A worker's first answer includes its start; on a loaded machine that can pass the 2 s the
    // service allows, and the answer would quietly come from the server's thread instead.
    answerTimeoutMs: 20_000,
    ...(options.checks ? { checks: options.checks } : {}),
    runChecks: options.runChecks ?? false,
    ...(options.rateLimit !== undefined ? { rateLimit: options.rateLimit } : {}),
    ...(options.orderTreeWorkerFrom !== undefined ? { orderTreeWorkerFrom: options.orderTreeWorkerFrom } : {}),
  });
  if (options.listings) await directory.store.transaction((tx) => tx.listings.insertMany(options.listings as Iterable<Omit<ListingRecord, 'seq'>>));
  // What a directory does as it starts (the last midnight's reputation snapshot, which finds no member
  // here): done, so a test's runDue counts its own jobs. The next snapshot waits for the next midnight.
  if (!(options.runJobs ?? false) && (options.runStartJobs ?? true)) await directory.jobs.runDue();
  const address = await directory.http.listen({ host: '127.0.0.1', port });

  const request: TestDirectory['request'] = jsonClient(address);
  return {
    directory,
    baseUrl: address,
    publicUrl,
    dataDir,
    clock,
    request,
    get: (path, headers) => request('GET', path, headers ? { headers } : {}),
    async close(closeOptions = {}) {
      await directory.close();
      // A value SQLite kept that PostgreSQL would refuse (a fraction in a bigint column) fails the test.
      const misfit = await expectFittingValues('directory', dataDir).then(() => null, (error: unknown) => error);
      if (closeOptions.removeData ?? true) {
        rmSync(dataDir, { recursive: true, force: true });
        await dropTestDatabase('directory', dataDir);
      }
      if (misfit) throw misfit;
    },
  };
}

/**
 * A directory on the test database of `dataDir` (SQLite there, or the PostgreSQL run's) that does
 * nothing by itself: no jobs, no hourly timer, no answer cache, answers on the test's thread. Tests
 * that hold answers byte for byte between directories drive it through `http.inject`.
 */
export async function quietDirectory(dataDir: string, clock: TestClock, options: Partial<DirectoryOptions> = {}): Promise<Directory> {
  return buildDirectory({
    dataDir,
    databaseUrl: await testDatabaseUrl('directory', dataDir),
    baseUrl: HARNESS_BASE_URL,
    clock,
    logLevel: 'silent',
    runJobs: false,
    hourlyTimer: false,
    cacheAnswers: false,
    answerWorkers: 0,
    ...options,
  });
}

/** The bytes of each GET, in turn, each answered 200 (tests that hold answers byte for byte between directories). */
export async function okBodies(directory: Directory, paths: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const path of paths) {
    const response = await directory.http.inject({ method: 'GET', url: path });
    expect(response.statusCode, `${path}: ${response.body}`).toBe(200);
    out.push(response.body);
  }
  return out;
}
