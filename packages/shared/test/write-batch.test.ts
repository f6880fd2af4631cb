/**
 * Group commit on SQLite (write-batch.ts): calls arriving together share one transaction, each in a
 * savepoint; one call's failure undoes only its own writes; nobody is answered before the commit
 * that holds their writes; a commit that fails fails every call of its batch and stores nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WriteBatch, openSqlite, openSqliteFile } from '@svc/shared';
import { sql, type Kysely, type Migration } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

interface Db {
  notes: { id: string; body: string };
  parents: { id: string };
  children: { id: string; parent_id: string };
}

const migrations: Record<string, Migration> = {
  '0001': {
    async up(db: Kysely<unknown>) {
      await db.schema.createTable('notes').addColumn('id', 'text', (c) => c.primaryKey()).addColumn('body', 'text', (c) => c.notNull()).execute();
      await db.schema.createTable('parents').addColumn('id', 'text', (c) => c.primaryKey()).execute();
      // Checked at COMMIT, so one call can make the whole batch's commit fail.
      await sql`create table children (id text primary key, parent_id text not null references parents (id) deferrable initially deferred)`.execute(db);
    },
  },
};

describe('WriteBatch on SQLite', () => {
  let dir: string;
  let file: string;
  let db: Kysely<Db>;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'write-batch-'));
    file = join(dir, 'batch.sqlite');
    ({ db } = await openSqlite<Db>(file, migrations));
  });

  afterEach(async () => {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  const countOnDisk = (table: 'notes' | 'children'): number => {
    // Another connection sees only what is committed.
    const other = openSqliteFile(file);
    try {
      return (other.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n;
    } finally {
      other.close();
    }
  };

  it('commits calls arriving together in one transaction, each answered after the commit holds its row', async () => {
    const batch = new WriteBatch(db);
    const seenCommitted: number[] = [];
    const calls = Array.from({ length: 20 }, (_, i) =>
      batch
        .run(async (trx) => {
          await trx.insertInto('notes').values({ id: `n${i}`, body: `note ${i}` }).execute();
          return i;
        })
        .then((value) => {
          seenCommitted.push(countOnDisk('notes'));
          return value;
        }),
    );
    expect(await Promise.all(calls)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    // Every call, when answered, found its own row (and its batch's) already on disk.
    expect(Math.min(...seenCommitted)).toBeGreaterThanOrEqual(1);
    expect(countOnDisk('notes')).toBe(20);
  });

  it('undoes only the writes of a call that fails; the others of its batch stand', async () => {
    const batch = new WriteBatch(db);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        batch.run(async (trx) => {
          await trx.insertInto('notes').values({ id: `n${i}`, body: 'first write' }).execute();
          if (i === 4) {
            // A second write of the failing call, then its refusal: both of its writes go.
            await trx.insertInto('notes').values({ id: 'n4-extra', body: 'second write' }).execute();
            throw new Error('refused');
          }
          if (i === 7) await trx.insertInto('notes').values({ id: 'n0', body: 'a duplicate key' }).execute();
          return i;
        }),
      ),
    );
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect((outcomes[4] as PromiseRejectedResult).reason).toMatchObject({ message: 'refused' });
    expect(String((outcomes[7] as PromiseRejectedResult).reason)).toMatch(/UNIQUE/);
    const ids = (await db.selectFrom('notes').select('id').orderBy('id').execute()).map((r) => r.id);
    expect(ids).toEqual(['n0', 'n1', 'n2', 'n3', 'n5', 'n6', 'n8', 'n9']);
    expect((await db.selectFrom('notes').select('body').where('id', '=', 'n0').executeTakeFirstOrThrow()).body).toBe('first write');
  });

  it('runs each call once when the calls that fail changed nothing (no savepoint needed)', async () => {
    const batch = new WriteBatch(db);
    const runs = new Map<number, number>();
    const outcomes = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) =>
        batch.run(async (trx) => {
          runs.set(i, (runs.get(i) ?? 0) + 1);
          // A refusal after reading, before any write: the usual way for a call to fail.
          await trx.selectFrom('notes').select('id').execute();
          if (i === 1 || i === 4) throw new Error(`refused ${i}`);
          // An update that changes no row, then a refusal: nothing to undo either.
          if (i === 5) {
            await trx.updateTable('notes').set({ body: 'x' }).where('id', '=', 'nobody').execute();
            throw new Error('refused 5');
          }
          await trx.insertInto('notes').values({ id: `n${i}`, body: 'kept' }).execute();
          return i;
        }),
      ),
    );
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'rejected', 'rejected']);
    expect([...runs.values()]).toEqual([1, 1, 1, 1, 1, 1]);
    expect(countOnDisk('notes')).toBe(3);
  });

  it('writes the batch again, each call undoable alone, when a call fails after changing rows', async () => {
    const batch = new WriteBatch(db);
    const runs = new Map<number, number>();
    const outcomes = await Promise.allSettled(
      Array.from({ length: 5 }, (_, i) =>
        batch.run(async (trx) => {
          runs.set(i, (runs.get(i) ?? 0) + 1);
          await trx.insertInto('notes').values({ id: `n${i}`, body: `run ${runs.get(i)}` }).execute();
          if (i === 2) throw new Error('refused after writing');
          return i;
        }),
      ),
    );
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect((outcomes[2] as PromiseRejectedResult).reason).toMatchObject({ message: 'refused after writing' });
    // The calls before the failure ran twice (the first try was rolled back), the failed one once, the rest once.
    expect(Object.fromEntries(runs)).toEqual({ 0: 2, 1: 2, 2: 1, 3: 1, 4: 1 });
    const rows = await db.selectFrom('notes').select(['id', 'body']).orderBy('id').execute();
    expect(rows).toEqual([
      { id: 'n0', body: 'run 2' },
      { id: 'n1', body: 'run 2' },
      { id: 'n3', body: 'run 1' },
      { id: 'n4', body: 'run 1' },
    ]);
  });

  it('fails every call of a batch whose commit fails, and stores none of them', async () => {
    const batch = new WriteBatch(db);
    const outcomes = await Promise.allSettled([
      batch.run(async (trx) => trx.insertInto('notes').values({ id: 'a', body: 'kept only if the batch commits' }).execute()),
      // A child without its parent: accepted by the statement, refused by the COMMIT.
      batch.run(async (trx) => trx.insertInto('children').values({ id: 'c', parent_id: 'nobody' }).execute()),
      batch.run(async (trx) => trx.insertInto('notes').values({ id: 'b', body: 'the same' }).execute()),
    ]);
    expect(outcomes.every((o) => o.status === 'rejected')).toBe(true);
    expect(String((outcomes[0] as PromiseRejectedResult).reason)).toMatch(/FOREIGN KEY/);
    expect(countOnDisk('notes')).toBe(0);
    expect(countOnDisk('children')).toBe(0);
    // The next batch is a fresh transaction.
    await batch.run(async (trx) => trx.insertInto('notes').values({ id: 'after', body: 'a later call' }).execute());
    expect(countOnDisk('notes')).toBe(1);
  });

  it('runs a call alone when nothing else is waiting, and batches at most 64 calls', async () => {
    const batch = new WriteBatch(db);
    await batch.run(async (trx) => trx.insertInto('notes').values({ id: 'alone', body: 'one call' }).execute());
    expect(countOnDisk('notes')).toBe(1);
    // What another connection sees stays put within a batch and moves at each commit.
    const other = openSqliteFile(file);
    const committedCounts: number[] = [];
    try {
      await Promise.all(
        Array.from({ length: 150 }, (_, i) =>
          batch.run(async (trx) => {
            committedCounts.push((other.prepare('select count(*) as n from notes').get() as { n: number }).n);
            await trx.insertInto('notes').values({ id: `m${i}`, body: 'many' }).execute();
          }),
        ),
      );
    } finally {
      other.close();
    }
    expect(countOnDisk('notes')).toBe(151);
    expect([...new Set(committedCounts)]).toEqual([1, 65, 129]);
  });
});
