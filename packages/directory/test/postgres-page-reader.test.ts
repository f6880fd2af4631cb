/**
 * An answer worker's page read on PostgreSQL (postgres-page-reader.ts): each page's `fixed` comes
 * back byte for byte, and a thread that keeps reading does not make V8 grow its young generation
 * toward its largest (node-postgres's promise form kept every result alive past the next scavenge:
 * docs/directory.md "The answer worker's page read on PostgreSQL").
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_POSTGRES_SETTINGS } from '@svc/shared/storage';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropTestDatabase, onPostgres, testDatabaseUrl } from '../../../test-support/test-database.js';
import { PostgresPageReader } from '../src/store/kysely/postgres-page-reader.js';
import { startModuleWorker } from '../src/workers/module-worker.js';

const VERSION = 'test-pages';
const SEQS = Array.from({ length: 120 }, (_, i) => i + 1);
/** As the query mix asks: pages of 20 results, and one of 100 (an answer of ~200 KB, read in several parts). */
const SETS = [...Array.from({ length: 6 }, (_, i) => SEQS.slice(i * 20, i * 20 + 20)), SEQS.slice(0, 100)];
/** A page's fixed part as it might be: markup, quotes, backslashes, characters of two to four UTF-8 bytes, ~2 KB. */
function fixedOf(seq: number): string {
  return `<article data-seq="${seq}"><h2>Café ${seq} \\ "Zürich" 日本 🍕</h2>${'<p>Opening hours & a menu, written out at some length.</p>'.repeat(32)}</article>`;
}

describe.skipIf(!onPostgres)('the answer worker\'s page read on PostgreSQL', () => {
  const dir = mkdtempSync(join(tmpdir(), 'page-reader-'));
  let url: string;

  beforeAll(async () => {
    url = (await testDatabaseUrl('directory', dir)) as string;
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      for (const seq of SEQS) {
        await client.query('INSERT INTO listing_pages (seq, version, inputs, fixed) VALUES ($1, $2, $3, $4)', [seq, VERSION, JSON.stringify({ seq, name: `Café ${seq}` }), fixedOf(seq)]);
      }
    } finally {
      await client.end();
    }
  });

  afterAll(async () => {
    await dropTestDatabase('directory', dir);
    rmSync(dir, { recursive: true, force: true });
  });

  it('gives each page its fixed part as the UTF-8 bytes of the stored text, and leaves out what is not there', async () => {
    const reader = new PostgresPageReader(url, DEFAULT_POSTGRES_SETTINGS, 1);
    try {
      const pages = await reader.read(VERSION, [...SEQS, 999]);
      expect([...pages.keys()].sort((a, b) => a - b)).toEqual(SEQS);
      for (const seq of SEQS) expect(pages.get(seq)!.fixed.equals(Buffer.from(fixedOf(seq), 'utf8'))).toBe(true);
      expect((await reader.read('another-version', SEQS)).size).toBe(0);
    } finally {
      await reader.close();
    }
  });

  it('keeps a reading thread\'s young generation small: what a read makes is garbage by the next collection', async () => {
    const reads = 3_500;
    const worker = startModuleWorker(new URL('./support/page-reading-worker.ts', import.meta.url), { url, version: VERSION, sets: SETS, reads });
    const [answer] = (await once(worker, 'message')) as [{ pages: number; youngGenerationMb: number; largestMb: number }];
    await worker.terminate();
    expect(answer.pages).toBe(SETS.reduce((sum, set, i) => sum + set.length * Math.ceil((reads - i) / SETS.length), 0));
    // With each read's rows kept alive past a scavenge, V8 grew the young generation to its largest
    // (128 MB of a worker's 192 on Node 24) within the first thousand reads; read as they should,
    // 16–32 MB. A worker on Node 20 has 48 MB in all, which reads reach either way: nothing to tell apart there.
    if (answer.largestMb >= 128) expect(answer.youngGenerationMb).toBeLessThanOrEqual(answer.largestMb / 4);
  }, 60_000);
});
