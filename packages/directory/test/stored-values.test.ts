/**
 * What SQLite keeps and PostgreSQL refuses (docs/storage.md "The dialect layer"): SQLite stores a
 * fraction in a bigint column, a text in an integer one, 3,000,000,000 in a 32-bit integer. The
 * harness reads every such column as a service closes and fails the test that left one, so the
 * SQLite run catches a store that binds what the PostgreSQL run would refuse.
 */
// sqlite only: what SQLite keeps; on PostgreSQL the server refuses such a value as it is written
import { describe, expect, it } from 'vitest';
import { onPostgres, rawRows } from '../../../test-support/test-database.js';
import { startDirectory } from './support/harness.js';

describe.skipIf(onPostgres)('a value PostgreSQL would refuse, left in SQLite', () => {
  it.each([
    ['a fraction in a bigint column', "INSERT INTO used_signatures (id, keep_until) VALUES ('sig', 1795927734.386)", /used_signatures\.keep_until \(bigint\) holds real 1795927734\.386/],
    ['a text in a bigint column', "INSERT INTO used_signatures (id, keep_until) VALUES ('sig', 'soon')", /used_signatures\.keep_until \(bigint\) holds text 'soon'/],
    ['a number past 32 bits in an integer column', "INSERT INTO check_budget (day, checks) VALUES ('2026-11-23', 3000000000)", /check_budget\.checks \(integer\) holds integer 3000000000/i],
  ])('fails the test as the service closes: %s', async (_what, statement, message) => {
    const t = await startDirectory({ answerWorkers: 0 });
    await rawRows('directory', t.dataDir, statement);
    await expect(t.close()).rejects.toThrow(message);
  });

  it('passes a service that stored whole numbers only', async () => {
    const t = await startDirectory({ answerWorkers: 0 });
    await rawRows('directory', t.dataDir, "INSERT INTO used_signatures (id, keep_until) VALUES ('sig', 1795927735)");
    await expect(t.close()).resolves.toBeUndefined();
  });
});
