/**
 * The dialect layer both engines share (docs/storage.md), on the engine of the run: SQLite, and
 * PostgreSQL on the PostgreSQL run (TEST_POSTGRES_URL). Column types read back the same, text sorts
 * by bytes whatever the database's locale, the query forms that differ answer alike, conflicts run a
 * transaction again, and two processes' worth of job claims never take one job twice.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  KyselyJobStore,
  WriteConflict,
  columnTypes,
  conditionalWriteMissed,
  createJobsTable,
  describeStorage,
  engineOf,
  inList,
  isRetryableConflict,
  lockUntilCommit,
  openStorage,
  postgresLocation,
  rowsTable,
  STORAGE_PROBE_BYTES,
  startsWith,
  storageFailureKind,
  storageTarget,
  transactionWithRetry,
  utf8Bytes,
  utf8BytesOf,
  bulkBytes,
  bytesOf,
  copyBytesInto,
  storeUncompressed,
  tableThroughIndex,
  type JobsDatabase,
  type StorageTarget,
} from '@svc/shared';
import { sql, type Generated, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropTestDatabase, onPostgres, testDatabaseUrl } from '../../../test-support/test-database.js';

interface Row {
  seq: Generated<number>;
  name: string;
  at: number;
  bytes: Buffer | null;
  doc: string;
  flag: number;
}
interface TestDb extends JobsDatabase {
  things: Row;
}

const MIGRATIONS = {
  '0001-things': {
    up: async (db: Kysely<unknown>) => {
      const t = columnTypes(db);
      await db.schema
        .createTable('things')
        .addColumn('seq', t.integer, t.autoKey)
        .addColumn('name', t.text, (c) => c.notNull().unique())
        .addColumn('at', t.bigint, (c) => c.notNull())
        .addColumn('bytes', t.blob)
        .addColumn('doc', t.json, (c) => c.notNull())
        .addColumn('flag', t.integer, (c) => c.notNull())
        .execute();
      await createJobsTable(db);
    },
  },
};

const dir = mkdtempSync(join(tmpdir(), 'storage-dialect-'));
let target: StorageTarget;
let db: Kysely<TestDb>;

beforeAll(async () => {
  target = storageTarget(await testDatabaseUrl('scratch', dir), join(dir, 'things.sqlite'), 'TEST_DATABASE');
  db = (await openStorage<TestDb>(target, MIGRATIONS, { applicationName: 'storage test' })).db;
  const names = ['apple', 'Banana', 'banana', 'Äpfel', 'zebra', '_under', 'a_b', 'a%b', 'épée', '10', '9'];
  await db
    .insertInto('things')
    .values(names.map((name, i) => ({ name, at: 1_795_000_000_000 + i, bytes: null, doc: '{"b":1,  "a":[2,1]}', flag: i % 2 })))
    .execute();
});

afterAll(async () => {
  await db?.destroy();
  rmSync(dir, { recursive: true, force: true });
  await dropTestDatabase('scratch', dir);
});

describe(`the dialect layer on ${onPostgres ? 'PostgreSQL' : 'SQLite'}`, () => {
  it('runs on the engine the run asked for', () => {
    expect(engineOf(db)).toBe(onPostgres ? 'postgres' : 'sqlite');
  });

  it('sorts and compares text by its bytes, whatever the locale', async () => {
    const names = (await db.selectFrom('things').select('name').orderBy('name').execute()).map((r) => r.name);
    expect(names).toEqual(['10', '9', 'Banana', 'a%b', 'a_b', 'apple', 'banana', 'zebra', 'Äpfel', '_under', 'épée'].sort((a, b) => (Buffer.compare(Buffer.from(a), Buffer.from(b)))));
    const after = await db.selectFrom('things').select('name').where('name', '>', 'Banana').where('name', '<', 'apple').orderBy('name').execute();
    expect(after.map((r) => r.name)).toEqual(['_under', 'a%b', 'a_b']);
  });

  it('reads bigint back as a number, bytes as a Buffer and JSON as it was written', async () => {
    const big = Number.MAX_SAFE_INTEGER;
    await db.insertInto('things').values({ name: 'big', at: big, bytes: Buffer.from([0, 255, 92, 10]), doc: '{"b":1,  "a":[2,1]}', flag: 1 }).execute();
    const row = await db.selectFrom('things').selectAll().where('name', '=', 'big').executeTakeFirstOrThrow();
    expect(row.at).toBe(big);
    expect(typeof row.seq).toBe('number');
    expect(Buffer.from(row.bytes as Uint8Array)).toEqual(Buffer.from([0, 255, 92, 10]));
    expect(row.doc).toBe('{"b":1,  "a":[2,1]}');
    const counted = await db.selectFrom('things').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(counted.n).toBe(12);
  });

  it('hands out keys that rise', async () => {
    const seqs = (await db.selectFrom('things').select('seq').orderBy('seq').execute()).map((r) => r.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(seqs[0]).toBeGreaterThan(0);
  });

  it('matches a list given as one parameter, empty or long', async () => {
    const pick = async (values: string[]) => (await db.selectFrom('things').select('name').where(inList(db, 'name', values)).orderBy('name').execute()).map((r) => r.name);
    expect(await pick([])).toEqual([]);
    expect(await pick(['apple'])).toEqual(['apple']);
    expect(await pick(['zebra', 'apple', 'missing', ...Array.from({ length: 500 }, (_, i) => `n${i}`)])).toEqual(['apple', 'zebra']);
    const bySeq = await db.selectFrom('things').select('name').where(inList(db, 'seq', [1, 2], 'integer')).orderBy('seq').execute();
    expect(bySeq).toHaveLength(2);
  });

  it('reads a table through the index named, where the index covers the query', async () => {
    await db.schema.createIndex('things_seq_name').ifNotExists().on('things').columns(['seq', 'name']).execute();
    const through = async (seqs: number[]) =>
      (await sql<{ seq: number; name: string }>`SELECT seq, name FROM ${tableThroughIndex(db, 'things', 'things_seq_name')} WHERE ${inList(db, 'seq', seqs, 'integer')} ORDER BY seq`.execute(db)).rows.map((r) => [Number(r.seq), r.name]);
    const plain = (await db.selectFrom('things').select(['seq', 'name']).where('seq', 'in', [1, 3, 99]).orderBy('seq').execute()).map((r) => [Number(r.seq), r.name]);
    expect(await through([1, 3, 99])).toEqual(plain);
    expect(plain).toHaveLength(2);
    if (!onPostgres) {
      // SQLite would look the rows up by rowid; through the index it reads the index alone
      const plan = await sql<{ detail: string }>`EXPLAIN QUERY PLAN SELECT seq, name FROM ${tableThroughIndex(db, 'things', 'things_seq_name')} WHERE ${inList(db, 'seq', [1], 'integer')}`.execute(db);
      expect(plan.rows.map((r) => r.detail).join(' | ')).toMatch(/COVERING INDEX things_seq_name/);
    }
  });

  it('updates from a row set given as parameters', async () => {
    const rows = rowsTable(db, 'o', [['name', 'text'], ['at', 'bigint'], ['flag', 'integer']], [['apple', 42, 7], ['zebra', 43, 8]]);
    await sql`UPDATE things SET at = o.at, flag = o.flag FROM ${rows} WHERE things.name = o.name`.execute(db);
    const changed = await db.selectFrom('things').select(['name', 'at', 'flag']).where('name', 'in', ['apple', 'zebra']).orderBy('name').execute();
    expect(changed).toEqual([{ name: 'apple', at: 42, flag: 7 }, { name: 'zebra', at: 43, flag: 8 }]);
  });

  it('pages with LIMIT and OFFSET given as values, one SQL text for every page (never a bare bound LIMIT on SQLite)', async () => {
    const page = (limit: number, offset: number) => db.selectFrom('things').select('name').orderBy('name').limit(limit).offset(offset);
    const all = (await db.selectFrom('things').select('name').orderBy('name').execute()).map((r) => r.name);
    expect((await page(3, 0).execute()).map((r) => r.name)).toEqual(all.slice(0, 3));
    expect((await page(2, 3).execute()).map((r) => r.name)).toEqual(all.slice(3, 5));
    expect((await page(1, all.length).execute()).map((r) => r.name)).toEqual([]);
    // One text for every page, so a kept statement serves them all; on SQLite LIMIT is an expression,
    // as a bound LIMIT makes SQLite prepare the statement again on every run.
    const compiled = page(3, 0).compile();
    expect(page(7, 9).compile().sql).toBe(compiled.sql);
    if (!onPostgres) expect(compiled.sql).toMatch(/limit cast\(\? as integer\) offset cast\(\? as integer\)$/);
  });

  it('finds prefixes without LIKE wildcards, and gives a text as its UTF-8 bytes', async () => {
    const prefixed = await db.selectFrom('things').select('name').where(startsWith('name', 'a_')).execute();
    expect(prefixed.map((r) => r.name)).toEqual(['a_b']);
    const row = await db.selectFrom('things').select(utf8Bytes(db, 'name').as('raw')).where('name', '=', 'épée').executeTakeFirstOrThrow();
    expect(utf8BytesOf(row.raw)).toEqual(Buffer.from('épée', 'utf8'));
    // Backslashes, quotes, characters outside the BMP (four UTF-8 bytes) and a control character come back byte for byte.
    const awkward = 'a\\b \\x41 "q" \'s 🍕 日本 \u0001 \u00ff';
    await db.insertInto('things').values({ name: awkward, at: 9, bytes: null, doc: '{}', flag: 0 }).execute();
    const read = await db.selectFrom('things').select(utf8Bytes(db, 'name').as('raw')).where('name', '=', awkward).executeTakeFirstOrThrow();
    expect(utf8BytesOf(read.raw).equals(Buffer.from(awkward, 'utf8'))).toBe(true);
    await db.deleteFrom('things').where('name', '=', awkward).execute();
  });

  it('reads a binary column of every byte value whole', async () => {
    await sql`CREATE TABLE blobs (id integer PRIMARY KEY, bytes ${sql.raw(onPostgres ? 'bytea' : 'blob')} NOT NULL)`.execute(db);
    await storeUncompressed(db, 'blobs', 'bytes');
    const bytes = Buffer.alloc(70_000);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7 + (i >> 8)) & 0xff;
    await db.insertInto('blobs' as never).values({ id: 1, bytes } as never).execute();
    const row = (await db.selectFrom('blobs' as never).select(bulkBytes(db, 'bytes').as('bytes')).executeTakeFirstOrThrow()) as { bytes: Buffer | string };
    expect(bytesOf(row.bytes).equals(bytes)).toBe(true);
  });

  it('joins a binary column read in parts straight into one buffer, and refuses a part that does not fit', async () => {
    await sql`CREATE TABLE parts (id integer PRIMARY KEY, bytes ${sql.raw(onPostgres ? 'bytea' : 'blob')} NOT NULL)`.execute(db);
    // Lengths that leave base64 with and without padding, and one above PostgreSQL's 76-character lines.
    const parts = [70_001, 3, 1, 2, 65_536].map((length, n) => Buffer.from(Array.from({ length }, (_, i) => (i * 31 + n * 17 + (i >> 9)) & 0xff)));
    for (const [id, bytes] of parts.entries()) await db.insertInto('parts' as never).values({ id, bytes } as never).execute();
    const rows = (await db.selectFrom('parts' as never).select(['id' as never, bulkBytes(db, 'bytes').as('bytes')]).orderBy('id' as never).execute()) as { bytes: Buffer | string }[];
    const whole = Buffer.concat(parts);
    const joined = Buffer.alloc(whole.length);
    let filled = 0;
    for (const row of rows) {
      const written = copyBytesInto(joined, filled, row.bytes);
      expect(written).not.toBeNull();
      filled += written as number;
    }
    expect(filled).toBe(whole.length);
    expect(joined.equals(whole)).toBe(true);
    // The last part again, one byte short of room: nothing written, null.
    const short = Buffer.alloc(whole.length - 1);
    short.fill(0xaa);
    expect(copyBytesInto(short, whole.length - parts[4]!.length, rows[4]!.bytes)).toBeNull();
    expect(short.subarray(whole.length - parts[4]!.length).every((b) => b === 0xaa)).toBe(true);
    // PostgreSQL's own base64 has line breaks: a text's length then says more bytes than it holds,
    // in the middle of the buffer and where that count would pass its end.
    const broken = Buffer.from(Array.from({ length: 12 }, (_, i) => i + 200)).toString('base64').replace(/(.{4})(?!$)/g, '$1\n');
    for (const room of [100, 12]) {
      const into = Buffer.alloc(room);
      expect(copyBytesInto(into, 0, broken)).toBe(12);
      expect([...into.subarray(0, 12)]).toEqual(Array.from({ length: 12 }, (_, i) => i + 200));
    }
    expect(copyBytesInto(Buffer.alloc(11), 0, broken)).toBeNull();
  });

  it('runs a transaction again after a conflict, and gives up after eight runs', async () => {
    let runs = 0;
    const value = await transactionWithRetry(db, async (trx) => {
      runs++;
      await trx.updateTable('things').set({ flag: runs }).where('name', '=', 'banana').execute();
      if (runs < 3) throw new WriteConflict('lost a race');
      return 'done';
    });
    expect({ value, runs }).toEqual({ value: 'done', runs: 3 });
    let endless = 0;
    await expect(
      transactionWithRetry(db, async () => {
        endless++;
        throw new WriteConflict('always');
      }),
    ).rejects.toThrow('always');
    expect(endless).toBe(8);
    // A refusal is not a conflict: run once.
    let once = 0;
    await expect(
      transactionWithRetry(db, async () => {
        once++;
        throw new Error('no');
      }),
    ).rejects.toThrow('no');
    expect(once).toBe(1);
    expect(isRetryableConflict({ code: '40P01' })).toBe(true);
    expect(isRetryableConflict({ code: '23505' })).toBe(false);
  });

  it('treats a missed compare-and-set as a conflict only inside a PostgreSQL transaction', async () => {
    expect(() => conditionalWriteMissed(db, 'outside')).not.toThrow();
    const inside = db.transaction().execute(async (trx) => conditionalWriteMissed(trx, 'inside'));
    if (onPostgres) await expect(inside).rejects.toBeInstanceOf(WriteConflict);
    else await expect(inside).resolves.toBeUndefined();
  });

  it('holds a commit-order lock only inside a transaction', async () => {
    if (onPostgres) await expect(lockUntilCommit(db, 'x')).rejects.toThrow(/outside a transaction/);
    else await expect(lockUntilCommit(db, 'x')).resolves.toBeUndefined();
    await expect(db.transaction().execute((trx) => lockUntilCommit(trx, 'x'))).resolves.toBeUndefined();
  });

  it('ends a storage failure only by the probe: a create\'s size of bytes, written into the probe table (two processes at once)', async () => {
    const second = await openStorage<TestDb>(target, MIGRATIONS, { applicationName: 'storage test 2' });
    const first = await openStorage<TestDb>(target, MIGRATIONS, { applicationName: 'storage test 3' });
    try {
      const full = Object.assign(new Error('disk full'), { code: onPostgres ? '53100' : 'SQLITE_FULL' });
      for (const opened of [first, second]) opened.health.noteFailure(full);
      // A commit of a small write asks for a probe; it is the probe that ends the episode.
      await first.db.transaction().execute((trx) => trx.insertInto('things').values({ name: 'probe-commit', at: 1, bytes: null, doc: '{}', flag: 0 }).execute());
      expect((await Promise.all([first.health.check(), second.health.check()])).map((s) => s.writable)).toEqual([true, true]);
      const rows = await sql<{ n: number; size: number }>`SELECT count(*) AS n, max(length(bytes)) AS size FROM storage_probe_writes`.execute(first.db);
      expect(rows.rows.map((r) => ({ n: Number(r.n), size: Number(r.size) }))).toEqual([{ n: 1, size: STORAGE_PROBE_BYTES }]);
      // The one-row table of earlier releases is gone.
      const old = onPostgres
        ? await sql`SELECT 1 FROM information_schema.tables WHERE table_name = 'storage_probe'`.execute(first.db)
        : await sql`SELECT 1 FROM sqlite_master WHERE name = 'storage_probe'`.execute(first.db);
      expect(old.rows).toEqual([]);
    } finally {
      await first.db.destroy();
      await second.db.destroy();
    }
  });

  it('never gives one job to two claimers (two connections claiming at once)', async () => {
    const second = await openStorage<TestDb>(target, MIGRATIONS, { applicationName: 'storage test 2' });
    try {
      const stores = [new KyselyJobStore(db), new KyselyJobStore(second.db)];
      const now = 1_795_000_000_000;
      for (let i = 0; i < 200; i++) await stores[0]!.enqueue({ id: `job-${String(i).padStart(3, '0')}`, kind: 'k', payload: { i }, runAt: now - i, dedupeKey: null }, now);
      const claimed: string[][] = [[], []];
      await Promise.all(
        stores.map(async (store, s) => {
          for (;;) {
            const jobs = await store.claimDue(now, 60_000, 7);
            if (jobs.length === 0) return;
            // The due order: oldest run_at first.
            expect(jobs.map((j) => j.runAt)).toEqual([...jobs.map((j) => j.runAt)].sort((a, b) => a - b));
            claimed[s]!.push(...jobs.map((j) => j.id));
          }
        }),
      );
      const all = [...claimed[0]!, ...claimed[1]!];
      expect(all).toHaveLength(200);
      expect(new Set(all).size).toBe(200);
      expect((await stores[1]!.list('k')).every((j) => j.status === 'running' && j.attempts === 1)).toBe(true);
    } finally {
      await second.db.destroy();
    }
  });
});

describe('settings and failures', () => {
  it('names the engine by one setting, and never shows a password', () => {
    expect(storageTarget(undefined, '/d/inbox.sqlite', 'INBOX_DATABASE_URL')).toEqual({ engine: 'sqlite', file: '/d/inbox.sqlite' });
    expect(storageTarget('  ', '/d/inbox.sqlite', 'INBOX_DATABASE_URL')).toEqual({ engine: 'sqlite', file: '/d/inbox.sqlite' });
    const pg = storageTarget('postgres://inbox:s3cret@db.example:5432/inbox?max=20', '/d/inbox.sqlite', 'INBOX_DATABASE_URL', {});
    expect(pg).toEqual({
      engine: 'postgres',
      url: 'postgres://inbox:s3cret@db.example:5432/inbox?max=20',
      setting: 'INBOX_DATABASE_URL',
      settings: { connectTimeoutMs: 5_000, statementTimeoutMs: 30_000 },
    });
    expect(describeStorage(pg)).toBe('PostgreSQL postgres://inbox@db.example:5432/inbox');
    expect(() => storageTarget('mysql://db.example/inbox', '/d/x', 'INBOX_DATABASE_URL')).toThrow(/INBOX_DATABASE_URL must be a postgres:\/\//);
    expect(() => storageTarget('postgres://[bad', '/d/x', 'INBOX_DATABASE_URL')).toThrow(/INBOX_DATABASE_URL is not a valid URL/);
  });

  it('reads the waits beside the URL, and refuses what is not a number of milliseconds', () => {
    const env = { DIRECTORY_DATABASE_CONNECT_TIMEOUT_MS: '1500', DIRECTORY_DATABASE_STATEMENT_TIMEOUT_MS: '0' };
    const target = storageTarget('postgres://d@db/directory', '/d/x', 'DIRECTORY_DATABASE_URL', env);
    expect(target.engine === 'postgres' && target.settings).toEqual({ connectTimeoutMs: 1_500, statementTimeoutMs: 0 });
    expect(() => storageTarget('postgres://d@db/directory', '/d/x', 'DIRECTORY_DATABASE_URL', { DIRECTORY_DATABASE_CONNECT_TIMEOUT_MS: '5s' })).toThrow(
      /DIRECTORY_DATABASE_CONNECT_TIMEOUT_MS must be a whole number of milliseconds/,
    );
  });

  it('reads a list of hosts as libpq does, one URL per host, and keeps only what a writer can use', () => {
    const url = 'postgresql://svc:p%40ss@db1.example:5433,[::1]:5434,db3.example/inbox?target_session_attrs=read-write&sslmode=verify-full';
    const location = postgresLocation(url);
    expect(location.hostUrls).toEqual([
      'postgresql://svc:p%40ss@db1.example:5433/inbox?target_session_attrs=read-write&sslmode=verify-full',
      'postgresql://svc:p%40ss@[::1]:5434/inbox?target_session_attrs=read-write&sslmode=verify-full',
      'postgresql://svc:p%40ss@db3.example/inbox?target_session_attrs=read-write&sslmode=verify-full',
    ]);
    expect(location.where).toBe('db1.example:5433,[::1]:5434,db3.example:5432/inbox');
    expect(location.targetSessionAttrs).toBe('read-write');
    const target = storageTarget(url, '/d/x', 'INBOX_DATABASE_URL', {});
    expect(describeStorage(target)).toBe('PostgreSQL postgresql://svc@db1.example:5433,[::1]:5434,db3.example/inbox');
    expect(describeStorage(target)).not.toContain('p%40ss');
    expect(() => storageTarget('postgres://a,b/x?target_session_attrs=standby', '/d/x', 'INBOX_DATABASE_URL', {})).toThrow(/INBOX_DATABASE_URL: target_session_attrs=standby .* a service writes/);
    expect(() => storageTarget('postgres://a:1,b:x/db', '/d/x', 'INBOX_DATABASE_URL', {})).toThrow(/INBOX_DATABASE_URL is not a valid URL/);
  });

  it("classes PostgreSQL's disk and server failures as storage failures (503 and /healthz)", () => {
    expect(storageFailureKind({ code: '53100' })).toBe('full');
    expect(storageFailureKind({ code: '58030' })).toBe('io');
    expect(storageFailureKind({ code: '57P01' })).toBe('unreachable');
    expect(storageFailureKind({ code: '08001' })).toBe('unreachable');
    expect(storageFailureKind({ code: '08006' })).toBe('unreachable');
    expect(storageFailureKind({ code: '53300' })).toBe('unreachable');
    expect(storageFailureKind({ code: '08007' })).toBe('unknown_outcome');
    expect(storageFailureKind({ code: '23505' })).toBeNull();
    expect(storageFailureKind({ code: '40P01' })).toBeNull();
  });
});
