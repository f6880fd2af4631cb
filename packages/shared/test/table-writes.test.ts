/**
 * Change stamps across connections (table-writes.ts): another connection's commit changes every
 * stamp; the data version read once per callback never hides a commit made through any connection
 * of this process, and one made elsewhere shows from the next callback on.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite } from '@svc/shared';
import type { Kysely, Migration } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const migrations: Record<string, Migration> = {
  '0001': { up: async (db: Kysely<any>) => void (await db.schema.createTable('notes').addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('text', 'text').execute()) },
};

type Opened = Awaited<ReturnType<typeof openSqlite<{ notes: { id: number; text: string } }>>>;

describe('change stamps', () => {
  let dir: string;
  let a: Opened;
  let b: Opened;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'table-writes-'));
    a = await openSqlite(join(dir, 'db.sqlite'), migrations);
    b = await openSqlite(join(dir, 'db.sqlite'), migrations);
  });
  afterEach(async () => {
    await a.db.destroy();
    await b.db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  const nextCallback = () => new Promise<void>((resolve) => setImmediate(resolve));

  it('change at once with a commit made through another counted connection of this process', async () => {
    const before = a.writes.stamp(['notes']);
    expect(a.writes.stamp(['notes'])).toBe(before);
    await b.db.insertInto('notes').values({ id: 1, text: 'one' }).execute();
    // Still the same callback's chain of promises: the commit is seen all the same.
    expect(a.writes.stamp(['notes'])).not.toBe(before);
  });

  it('own stamps change with this connection\'s writes and rollbacks alone, blind to another connection\'s commits', async () => {
    const before = a.writes.ownStamp(['notes']);
    const otherTable = a.writes.ownStamp(['other']);
    await b.db.insertInto('notes').values({ id: 5, text: 'elsewhere' }).execute();
    await nextCallback();
    expect(a.writes.ownStamp(['notes'])).toBe(before);
    expect(a.writes.stamp(['notes'])).not.toBe(before);
    await a.db.insertInto('notes').values({ id: 6, text: 'here' }).execute();
    const written = a.writes.ownStamp(['notes']);
    expect(written).not.toBe(before);
    expect(a.writes.ownStamp(['other'])).toBe(otherTable);
    await expect(
      a.db.transaction().execute(async (trx) => {
        await trx.insertInto('notes').values({ id: 7, text: 'undone' }).execute();
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(a.writes.ownStamp(['notes'])).not.toBe(written);
  });

  it('change from the next callback on with a commit the process did not count (another process)', async () => {
    const before = a.writes.stamp(['notes']);
    // The raw handle stands for another process: nothing of this process counts its commit.
    b.sqlite.prepare("INSERT INTO notes (id, text) VALUES (2, 'two')").run();
    const sameCallback = a.writes.stamp(['notes']);
    await nextCallback();
    const after = a.writes.stamp(['notes']);
    expect(after).not.toBe(before);
    // Within the callback that read the version first, the commit (made after every request it
    // serves was received) may not show yet; it always shows once that callback is over.
    expect([before, after]).toContain(sameCallback);
    expect(a.writes.stamp(['notes'])).toBe(after);
  });

  it('read the data version once for a callback and all the promises it settles, even when taken in its synchronous part', async () => {
    const seen = await new Promise<{ first: string; inPromises: string[]; nextCallback: Promise<string> }>((resolve) => {
      setImmediate(() => {
        // A route's first stamp, taken before its first await.
        const first = a.writes.stamp(['notes']);
        b.sqlite.prepare("INSERT INTO notes (id, text) VALUES (3, 'three')").run();
        const inPromises: string[] = [];
        void Promise.resolve()
          .then(() => inPromises.push(a.writes.stamp(['notes'])))
          .then(async () => {
            await null;
            inPromises.push(a.writes.stamp(['notes']));
            resolve({ first, inPromises, nextCallback: new Promise((next) => setImmediate(() => next(a.writes.stamp(['notes'])))) });
          });
      });
    });
    expect(seen.inPromises).toEqual([seen.first, seen.first]);
    // The commit shows from the next callback on.
    expect(await seen.nextCallback).not.toBe(seen.first);
  });
});
