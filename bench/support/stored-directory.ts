/**
 * A directory node on a benchmark's stored listings (`bench/.data/directory-<size>`, made by
 * `bench/directory.ts --prepare-only true`), as the in-process benchmarks open it: its clock at the
 * benchmarks' fixed moment, no burst limits (one client sending as fast as it can,
 * docs/security.md), no jobs, no hourly timer, every answer cache off.
 */
import { join } from 'node:path';
import { buildDirectory, type Directory } from '../../packages/directory/src/app.js';

export async function storedDirectory(size: number, now = '2026-12-08T12:00:00Z'): Promise<Directory> {
  const offset = Date.parse(now) - Date.now();
  return buildDirectory({
    dataDir: join(new URL('..', import.meta.url).pathname, '.data', `directory-${size}`),
    baseUrl: 'http://127.0.0.1:8080',
    rateLimit: 0,
    clock: { now: () => Date.now() + offset },
    logLevel: 'silent',
    runJobs: false,
    hourlyTimer: false,
    cacheAnswers: false,
  });
}
