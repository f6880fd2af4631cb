/**
 * Queries compiled once (shared storage/compiled-query.ts) run as the builder would have run them,
 * with each call's own values, inside and outside transactions; a query that cannot take a value as
 * a parameter is refused when first compiled rather than sent with a stand-in. And the ids every
 * row takes (shared ids.ts) are ULIDs that sort in the order they were made.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import { compileOnce, isUlid, newId, openSqlite, slotsOf, ulidTimeMs } from '@svc/shared';

interface Db {
  notes: { id: string; author: string; body: string; stars: number; created_at: number };
}

describe('compileOnce', () => {
  let dir: string;
  let db: Kysely<Db>;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'compiled-'));
    ({ db } = await openSqlite<Db>(join(dir, 'x.sqlite'), {
      '0001': {
        up: async (k) => {
          await k.schema
            .createTable('notes')
            .addColumn('id', 'text', (c) => c.primaryKey())
            .addColumn('author', 'text', (c) => c.notNull())
            .addColumn('body', 'text', (c) => c.notNull())
            .addColumn('stars', 'integer', (c) => c.notNull())
            .addColumn('created_at', 'integer', (c) => c.notNull())
            .execute();
        },
      },
    }));
  });
  afterEach(async () => {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  const COLUMNS = ['id', 'author', 'body', 'stars', 'created_at'] as const;
  const insert = compileOnce((k: Kysely<Db>, row: Db['notes']) => k.insertInto('notes').values(slotsOf(row, COLUMNS)));
  const byAuthor = compileOnce((k: Kysely<Db>, p: { author: string; minStars: number; limit: number }) =>
    k.selectFrom('notes').select(['id', 'body']).where('author', '=', p.author).where('stars', '>=', p.minStars).where('body', '!=', 'hidden').orderBy('id').limit(p.limit),
  );
  // One value used twice (an upsert's insert and its update).
  const upsertBody = compileOnce((k: Kysely<Db>, p: { id: string; body: string }) =>
    k
      .insertInto('notes')
      .values({ id: p.id, author: 'ana', body: p.body, stars: 0, created_at: 0 })
      .onConflict((oc) => oc.column('id').doUpdateSet({ body: p.body })),
  );

  it('runs with each call\'s values what the builder would run', async () => {
    for (const [i, author] of ['ana', 'bo', 'ana', 'ana', 'bo'].entries()) {
      expect(await insert.run(db, { id: `n${i}`, author, body: i === 2 ? 'hidden' : `note ${i}`, stars: i, created_at: i })).toBe(1);
    }
    expect(await byAuthor.all(db, { author: 'ana', minStars: 0, limit: 10 })).toEqual([
      { id: 'n0', body: 'note 0' },
      { id: 'n3', body: 'note 3' },
    ]);
    expect(await byAuthor.all(db, { author: 'bo', minStars: 2, limit: 10 })).toEqual([{ id: 'n4', body: 'note 4' }]);
    expect(await byAuthor.first(db, { author: 'ana', minStars: 1, limit: 1 })).toEqual({ id: 'n3', body: 'note 3' });
    expect(await byAuthor.first(db, { author: 'nobody', minStars: 0, limit: 1 })).toBeUndefined();
    const built = await db.selectFrom('notes').select(['id', 'body']).where('author', '=', 'ana').where('stars', '>=', 0).where('body', '!=', 'hidden').orderBy('id').limit(10).execute();
    expect(await byAuthor.all(db, { author: 'ana', minStars: 0, limit: 10 })).toEqual(built);
    expect(byAuthor.compiled(db, { author: 'x', minStars: 1, limit: 2 }).sql).toBe(
      db.selectFrom('notes').select(['id', 'body']).where('author', '=', 'x').where('stars', '>=', 1).where('body', '!=', 'hidden').orderBy('id').limit(2).compile().sql,
    );
  });

  it('fills a value used twice in both places, and runs in a transaction on its connection', async () => {
    await upsertBody.run(db, { id: 'u', body: 'first' });
    await upsertBody.run(db, { id: 'u', body: 'second' });
    expect(await db.selectFrom('notes').select('body').where('id', '=', 'u').executeTakeFirst()).toEqual({ body: 'second' });

    await expect(
      db.transaction().execute(async (trx) => {
        await insert.run(trx, { id: 't1', author: 'cy', body: 'in a transaction', stars: 5, created_at: 1 });
        expect(await byAuthor.all(trx, { author: 'cy', minStars: 0, limit: 5 })).toHaveLength(1);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await byAuthor.all(db, { author: 'cy', minStars: 0, limit: 5 })).toEqual([]);
  });

  it('refuses, when first compiled, a value that did not become a parameter', async () => {
    const inList = compileOnce((k: Kysely<Db>, p: { ids: string[] }) => k.selectFrom('notes').selectAll().where('id', 'in', p.ids));
    // A stand-in is not a list: Kysely builds `in ?`, which SQLite refuses; never a silent wrong answer.
    await expect(inList.all(db, { ids: ['a'] })).rejects.toThrow();
    const unused = compileOnce((k: Kysely<Db>, p: { id: string; extra: string }) => {
      void p.extra;
      return k.selectFrom('notes').selectAll().where('id', '=', p.id);
    });
    await expect(unused.all(db, { id: 'a', extra: 'b' })).rejects.toThrow(/extra did not become parameters/);
  });
});

describe('newId', () => {
  it('makes ULIDs carrying their time, in strictly rising order within one millisecond and across', () => {
    const at = Date.parse('2026-11-25T12:00:00Z');
    const ids = [...Array.from({ length: 2_000 }, () => newId(at)), ...Array.from({ length: 100 }, (_, i) => newId(at + 1 + i))];
    for (const id of ids) expect(isUlid(id)).toBe(true);
    expect(ulidTimeMs(ids[0]!)).toBe(at);
    expect(ulidTimeMs(ids.at(-1)!)).toBe(at + 100);
    for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('keeps rising when the clock steps back, and refuses a time a ULID cannot hold', () => {
    const first = newId(Date.parse('2030-01-01T00:00:00Z'));
    const earlier = newId(Date.parse('2029-01-01T00:00:00Z'));
    expect(earlier > first).toBe(true);
    expect(() => newId(-1)).toThrow();
    expect(() => newId(1.5)).toThrow();
    expect(() => newId(2 ** 48)).toThrow();
  });

  it('draws fresh random bits for each millisecond', () => {
    const tails = new Set(Array.from({ length: 500 }, (_, i) => newId(Date.parse('2031-01-01T00:00:00Z') + i).slice(10)));
    expect(tails.size).toBe(500);
  });
});
