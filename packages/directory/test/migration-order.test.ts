/**
 * Branches add directory migrations side by side, so a data folder may have run later numbers before
 * earlier ones arrive: one made before issue 13 at the directory ran 0009-checks and 0012-persons but
 * not 0006/0007. Opening it must run what is missing, in number order, and keep what it holds.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onPostgres, rawRows } from '../../../test-support/test-database.js';
import { describe, expect, it } from 'vitest';
import { listing } from './support/fixtures.js';
import { startDirectory } from './support/harness.js';

const ISSUE_13_MIGRATIONS = ['0006-receipts-and-reputation', '0007-receipts-from-the-network'];
const ISSUE_13_TABLES = ['used_signatures', 'receipts', 'receipt_tallies', 'receipt_customers', 'receipt_outcomes', 'reputation_nights', 'reputation_scores'];

describe('a data folder that ran later migrations before 0006 and 0007 arrived', () => {
  it('opens: the missing migrations run, what it held stays, and signed calls are remembered in the new replay store', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'directory-unordered-'));
    const before = await startDirectory({ dataDir, answerWorkers: 0, listings: [listing('kept-across.example', { name: 'Kept Across' })] });
    await before.close({ removeData: false });

    // As main left it: 0001-0005, 0009-checks and 0012-persons run, issue 13's tables absent.
    for (const table of ISSUE_13_TABLES) await rawRows('directory', dataDir, `DROP TABLE ${table}`);
    for (const name of ISSUE_13_MIGRATIONS) await rawRows('directory', dataDir, 'DELETE FROM kysely_migration WHERE name = ?', [name]);
    const ran = (await rawRows('directory', dataDir, 'SELECT name FROM kysely_migration ORDER BY name')).map((r) => r.name);
    expect(ran).toContain('0009-checks');
    expect(ran).toContain('0012-persons');

    const reopened = await startDirectory({ dataDir, answerWorkers: 0 });
    try {
      const names = (await rawRows('directory', dataDir, 'SELECT name FROM kysely_migration')).map((r) => r.name);
      const tables = (await rawRows('directory', dataDir, onPostgres ? "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'" : "SELECT name FROM sqlite_master WHERE type = 'table'")).map((r) => r.name);
      for (const name of ISSUE_13_MIGRATIONS) expect(names).toContain(name);
      for (const table of [...ISSUE_13_TABLES, 'checks', 'persons']) expect(tables).toContain(table);
      expect((await reopened.get('/v1/businesses/kept-across.example')).body.name).toBe('Kept Across');
      expect((await reopened.get('/v1/stats')).body.receipts_issued).toBe(0);
      expect(await reopened.directory.store.replays.remember('sig-after-upgrade', 2_000_000_000, 1_000)).toBe('new');
      expect(await reopened.directory.store.replays.remember('sig-after-upgrade', 2_000_000_000, 1_000)).not.toBe('new');
    } finally {
      await reopened.close();
    }
  }, 60_000);
});
