/**
 * Answer workers (workers/): search answers assembled on worker threads must be byte for byte those
 * of the server's thread, and whatever a worker cannot do (a stale page, a listing added since the
 * hour's order, a worker that cannot start) is answered by the server's thread instead.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerWorkerYoungMbFromEnvironment, answerWorkersFromEnvironment } from '../src/config.js';
import { generateListings } from '../src/demo/listing-generator.js';
import { taxonomyCategoryPicker } from '../src/demo/seed-directory.js';
import { AnswerWorkers } from '../src/workers/answer-workers.js';
import { AFTER_RULES_7, DAY, EVERY_DAY, HOUR, MONDAY, hours, idOf, member, shuffleKey } from './support/fixtures.js';
import { TestClock, startDirectory, type TestDirectory } from './support/harness.js';
import { dropTestDatabase, rawRows } from '../../../test-support/test-database.js';

const listings = [
  member('closures.example', {
    name: 'Café Fechado às Segundas',
    hours: hours('America/Sao_Paulo', { [EVERY_DAY]: [['08:00', '20:00']] }, [
      { from: '2026-11-20', to: '2026-11-22' },
      { from: '2026-12-24', to: '2026-12-26' },
    ]),
  }),
  member('quiet.example', { lastPingAt: MONDAY - 3 * DAY, geo: { lat: 41.15, lng: -8.61 }, city: 'Porto', country: 'PT' }),
  ...generateListings({ count: 400, seed: 777, nowMs: MONDAY, placeCategoryOf: taxonomyCategoryPicker() }),
];

const searches = (at: number) => [
  '/v1/businesses?limit=100',
  '/v1/businesses?source=member&limit=100',
  '/v1/businesses?q=cafe&limit=50',
  '/v1/businesses?open_now=true&limit=100',
  '/v1/businesses?near=41.15,-8.61&radius_km=1000&limit=100',
  '/v1/businesses?category=software-ai',
  '/v1/businesses?q=zzzzqqqq',
  ...(at >= AFTER_RULES_7 ? ['/v1/businesses?near=38.72,-9.14&radius_km=1000&order=nearest&limit=30'] : []),
];

/** A plan of one listing, for workers that never get to read it. */
const PLAN = {
  moment: { nowMs: MONDAY, answeringHours: 24, rulesVersion: 6, rulesUrl: 'http://x/v1/ranking?version=6' },
  listings: [
    {
      seq: 1,
      rankPos: 1,
      openNow: null,
      placement: { shuffle: '0123456789abcdef', facts: { member: false, answering: false, reach: 3 as const, standing: { ranked: false, scoreInt: 0 }, shuffle: '0123456789abcdef' } },
    },
  ],
  nextCursor: null,
};

describe('answer workers', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'directory-workers-'));
  const clock = new TestClock(MONDAY);
  let t: TestDirectory;

  async function bodies(paths: string[]): Promise<string[]> {
    const out: string[] = [];
    for (const path of paths) {
      const response = await fetch(`${t.baseUrl}${path}`);
      expect(response.status, path).toBe(200);
      out.push(await response.text());
    }
    return out;
  }

  async function restart(answerWorkers: number): Promise<void> {
    await t?.close({ removeData: false });
    t = await startDirectory({ dataDir, clock, answerWorkers, ...(t ? {} : { listings }) });
    await t.directory.pagesReady;
    await t.directory.search.hour();
  }

  beforeAll(() => restart(1));
  afterAll(async () => {
    await t.close({ removeData: false });
    rmSync(dataDir, { recursive: true, force: true });
    await dropTestDatabase('directory', dataDir);
  });

  it('assemble every answer byte for byte as the server thread does, at any moment and under either rules', async () => {
    const moments = [MONDAY, MONDAY + 14 * HOUR, AFTER_RULES_7 + 3 * HOUR];
    const onWorkers: string[][] = [];
    for (const at of moments) {
      clock.nowMs = at;
      const paths = searches(at);
      const workers = t.directory.answerWorkers!;
      const before = { ...workers.counts };
      onWorkers.push(await bodies(paths));
      // Every answer with listings went through the worker (an empty page needs no assembly).
      expect(workers.counts.assembled - before.assembled).toBe(paths.length - 1);
      expect(workers.counts.declined).toBe(before.declined);
    }
    expect(onWorkers.flat().some((b) => b.includes('"distance_km"') && b.includes('"reputation"') && b.includes('"closures"'))).toBe(true);

    await restart(0);
    expect(t.directory.answerWorkers).toBeNull();
    for (const [i, at] of moments.entries()) {
      clock.nowMs = at;
      expect(await bodies(searches(at))).toEqual(onWorkers[i]);
    }
    await restart(1);
    clock.nowMs = MONDAY;
  });

  it('leaves to the server thread an answer with a stale page or a listing added since the hour began, with the same bytes', async () => {
    const path = '/v1/businesses?source=member&limit=100';
    const [expected] = await bodies([path]);
    const workers = t.directory.answerWorkers!;
    await rawRows('directory', dataDir, "UPDATE listing_pages SET version = 'older' WHERE seq = (SELECT seq FROM listings WHERE domain = 'closures.example')");
    const declined = workers.counts.declined;
    expect(await bodies([path])).toEqual([expected]);
    expect(workers.counts.declined).toBe(declined + 1);
    await t.directory.store.listings.refreshPages();

    // Added during the day: in the next hour's index but not in the day's shuffle table, so placed
    // from its page's inputs on the server's thread, without asking a worker.
    await t.directory.store.listings.upsert(member('newcomer.example', { name: 'Newcomer' }));
    clock.nowMs = MONDAY + HOUR;
    const asked = workers.counts.assembled + workers.counts.declined;
    const next = JSON.parse((await bodies(['/v1/businesses?q=newcomer']))[0]!) as { businesses: Record<string, unknown>[] };
    expect(next.businesses).toMatchObject([{ domain: 'newcomer.example', rank_shuffle: shuffleKey(MONDAY, idOf('newcomer.example')) }]);
    expect(workers.counts.assembled + workers.counts.declined).toBe(asked);
    clock.nowMs = MONDAY;
  });
});

describe('DIRECTORY_ANSWER_WORKERS', () => {
  it('defaults to one fewer than the cores (1 to 4), takes 0 to 16, and refuses anything else', () => {
    const byDefault = answerWorkersFromEnvironment({});
    expect(byDefault).toBe(Math.min(4, Math.max(1, availableParallelism() - 1)));
    expect(answerWorkersFromEnvironment({ DIRECTORY_ANSWER_WORKERS: '' })).toBe(byDefault);
    expect(answerWorkersFromEnvironment({ DIRECTORY_ANSWER_WORKERS: '0' })).toBe(0);
    expect(answerWorkersFromEnvironment({ DIRECTORY_ANSWER_WORKERS: '3' })).toBe(3);
    for (const bad of ['-1', '17', '1.5', 'two']) {
      expect(() => answerWorkersFromEnvironment({ DIRECTORY_ANSWER_WORKERS: bad })).toThrow(/DIRECTORY_ANSWER_WORKERS must be a whole number from 0 to 16/);
    }
  });
});

describe("an answer worker's young generation", () => {
  async function limitsOfWorker(youngGenerationMb: number | undefined): Promise<{ maxYoungGenerationSizeMb: number }> {
    const workers = new AnswerWorkers({
      count: 1,
      storage: { engine: 'sqlite', file: 'unused' },
      pageVersion: 'any',
      cacheKib: 1024,
      onError: () => undefined,
      workerModule: new URL('./support/limits-answer-worker.ts', import.meta.url),
      ...(youngGenerationMb !== undefined ? { youngGenerationMb } : {}),
    });
    try {
      const bytes = await workers.assemble(PLAN);
      expect(bytes).not.toBeNull();
      return JSON.parse(String(bytes)) as { maxYoungGenerationSizeMb: number };
    } finally {
      await workers.close();
    }
  }

  it('is capped at the size asked for, and left to V8 when none is', async () => {
    expect((await limitsOfWorker(16)).maxYoungGenerationSizeMb).toBe(16);
    expect((await limitsOfWorker(1)).maxYoungGenerationSizeMb).toBe(1);
    const own = (await limitsOfWorker(undefined)).maxYoungGenerationSizeMb;
    // V8's own choice, whatever it is on this Node, is not the cap.
    expect(own === -1 || own === 0 || own > 16).toBe(true);
  });

  it('is set by DIRECTORY_ANSWER_WORKER_YOUNG_MB: V8\'s own (0) unless a whole number of MB is given, anything else refused', () => {
    expect(answerWorkerYoungMbFromEnvironment({})).toBe(0);
    expect(answerWorkerYoungMbFromEnvironment({ DIRECTORY_ANSWER_WORKER_YOUNG_MB: '' })).toBe(0);
    expect(answerWorkerYoungMbFromEnvironment({ DIRECTORY_ANSWER_WORKER_YOUNG_MB: '0' })).toBe(0);
    expect(answerWorkerYoungMbFromEnvironment({ DIRECTORY_ANSWER_WORKER_YOUNG_MB: '48' })).toBe(48);
    for (const bad of ['-1', '1025', '1.5', 'big']) {
      expect(() => answerWorkerYoungMbFromEnvironment({ DIRECTORY_ANSWER_WORKER_YOUNG_MB: bad })).toThrow(/DIRECTORY_ANSWER_WORKER_YOUNG_MB must be a whole number from 0 to 1024/);
    }
  });
});

describe('an answer worker that does not answer', () => {
  it('is given up after the timeout, reported, and replaced by a new one on a later answer', async () => {
    const errors: string[] = [];
    const workers = new AnswerWorkers({
      count: 1,
      storage: { engine: 'sqlite', file: 'unused' },
      pageVersion: 'any',
      cacheKib: 1024,
      onError: (message) => errors.push(message),
      answerTimeoutMs: 300,
      respawnMs: 0,
      workerModule: new URL('./support/silent-answer-worker.ts', import.meta.url),
    });
    try {
      const started = Date.now();
      expect(await workers.assemble(PLAN)).toBeNull();
      expect(Date.now() - started).toBeGreaterThanOrEqual(300);
      expect(errors).toEqual(['an answer worker took more than 300 ms; replacing it']);
      // The hung worker was stopped; the next answer goes to a new one (which hangs too).
      expect(await workers.assemble(PLAN)).toBeNull();
      expect(errors).toHaveLength(2);
      expect(workers.counts).toEqual({ assembled: 0, declined: 2 });
    } finally {
      await workers.close();
    }
  });
});

describe('an answer worker that cannot start', () => {
  it('declines, says why, and is not started again at once', async () => {
    const errors: string[] = [];
    const workers = new AnswerWorkers({
      count: 1,
      storage: { engine: 'sqlite', file: join(tmpdir(), 'no-such-directory', 'directory.sqlite') },
      pageVersion: 'any',
      cacheKib: 1024,
      onError: (message, error) => errors.push(`${message}: ${String(error)}`),
      // Its failure to open must be what ends the wait, however slowly it starts on a busy machine.
      answerTimeoutMs: 20_000,
    });
    const plan = PLAN;
    try {
      expect(await workers.assemble(plan)).toBeNull();
      expect(errors.join('\n')).toMatch(/answer worker stopped.*(unable to open|directory does not exist|SQLITE_CANTOPEN)/is);
      // Within the respawn pause no new worker is tried: declined at once.
      const errorCount = errors.length;
      expect(await workers.assemble(plan)).toBeNull();
      expect(errors.length).toBe(errorCount);
      expect(workers.counts).toEqual({ assembled: 0, declined: 2 });
    } finally {
      await workers.close();
    }
  });
});
