/**
 * A data folder from before check results were logged (migration 0015): opening it writes every found
 * listing listed then into the evidence log as a `check` entry (its id and doors), after every entry
 * already there, so the next hour's order verifies, found listings included.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseEntry, siteOf, verifyNetwork } from '@svc/verify';
import { describe, expect, it } from 'vitest';
import { rawRows } from '../../../test-support/test-database.js';
import { fetchVia } from './support/evidence-scene.js';
import { listing } from './support/fixtures.js';
import { startDirectory, TestClock } from './support/harness.js';

const HOUR = 3_600_000;

describe('a data folder whose found listings were never logged', () => {
  it('logs each listed found listing once when opened, and its next order verifies from the log', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'directory-check-evidence-'));
    const clock = new TestClock();
    const mcp = { type: 'mcp', url: 'https://kept-found.example/mcp', level: 'bookable' as const, status: 'live' as const, kinds: ['book' as const], src: 'seen' as const };
    const before = await startDirectory({
      dataDir,
      clock,
      answerWorkers: 0,
      listings: [listing('kept-found.example', { name: 'Kept Found', doors: [mcp] }), listing('gone-found.example', { name: 'Gone Found', delistedAt: clock.now() })],
    });
    await before.close({ removeData: false });
    // As it was before 0015: no columns for the checks the order read, no check entries.
    await rawRows('directory', dataDir, 'ALTER TABLE order_statements DROP COLUMN checks_from');
    await rawRows('directory', dataDir, 'ALTER TABLE order_statements DROP COLUMN checks_to');
    await rawRows('directory', dataDir, 'DELETE FROM kysely_migration WHERE name = ?', ['0015-check-evidence']);
    const entriesBefore = Number((await rawRows('directory', dataDir, 'SELECT count(*) AS n FROM evidence_log'))[0]?.n);

    const t = await startDirectory({ dataDir, clock, answerWorkers: 0 });
    try {
      const rows = await rawRows('directory', dataDir, "SELECT idx, entry FROM evidence_log WHERE kind = 'check' ORDER BY idx");
      expect(rows).toHaveLength(1);
      expect(Number(rows[0]?.idx)).toBe(entriesBefore);
      const id = (await t.get('/v1/businesses/kept-found.example')).body.id;
      expect(parseEntry(String(rows[0]?.entry))).toMatchObject({ kind: 'check', site: siteOf('kept-found.example'), listing: id, doors: [{ type: 'mcp', level: 'bookable', status: 'live' }] });

      clock.advance(HOUR);
      await t.directory.search.hour();
      const report = await verifyNetwork({ network: t.publicUrl, hour: clock.now(), fetch: fetchVia(t), now: () => clock.now() });
      expect(report.difference).toBeNull();
      expect(report.counts.checked_places).toBe(1);
    } finally {
      await t.close();
    }
  }, 60_000);
});
