/**
 * Reads the same sets of pages many times through an answer worker's PostgreSQL reader, in a thread of its
 * own as an answer worker does, then answers with how many pages it read and how large V8 let the
 * thread's young generation grow (postgres-page-reader.test.ts).
 */
import { DEFAULT_POSTGRES_SETTINGS } from '@svc/shared/storage';
import { getHeapSpaceStatistics } from 'node:v8';
import { parentPort, resourceLimits, workerData } from 'node:worker_threads';
import { PostgresPageReader } from '../../src/store/kysely/postgres-page-reader.js';

const { url, version, sets, reads } = workerData as { url: string; version: string; sets: number[][]; reads: number };
const reader = new PostgresPageReader(url, DEFAULT_POSTGRES_SETTINGS, 1);
let pages = 0;
for (let i = 0; i < reads; i++) pages += (await reader.read(version, sets[i % sets.length]!)).size;
await reader.close();
const young = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
parentPort?.postMessage({ pages, youngGenerationMb: (young?.space_size ?? 0) / 2 ** 20, largestMb: resourceLimits.maxYoungGenerationSizeMb });
