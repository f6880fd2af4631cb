/**
 * Checkpoints off the server's thread (wal-checkpointer.ts): the worker starts once the log grows,
 * copies it back while the server's connection goes on writing, keeps the log from growing without
 * end, loses nothing (not even to a SIGKILL in the middle), and closes after the server's connection.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { WalCheckpointer, openSqlite, openSqliteFile, type SqliteDatabase } from '@svc/shared';
import type { Kysely, Migration } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const PAGE = 4096;
const until = async (condition: () => boolean, ms = 10_000): Promise<void> => {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe('WalCheckpointer', () => {
  let dir: string;
  let file: string;
  let sqlite: SqliteDatabase;
  let checkpointer: WalCheckpointer | undefined;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'wal-checkpointer-'));
    file = join(dir, 'db.sqlite');
    sqlite = openSqliteFile(file);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.exec('create table rows (id integer primary key, body blob not null)');
  });

  afterEach(async () => {
    await checkpointer?.stop();
    checkpointer = undefined;
    if (sqlite.open) sqlite.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const insert = (count: number): void => {
    const statement = sqlite.prepare('insert into rows (body) values (?)');
    sqlite.transaction(() => {
      for (let i = 0; i < count; i++) statement.run(Buffer.alloc(PAGE, i % 251));
    })();
  };
  const walBytes = (): number => statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0;

  it('starts no thread while the log stays small', async () => {
    checkpointer = new WalCheckpointer(file, { startAtWalBytes: 64 * PAGE, lookEveryMs: 5 });
    insert(10);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(checkpointer.running).toBe(false);
    expect(checkpointer.counts.checkpoints).toBe(0);
  });

  it('copies the log back on its own thread while this connection writes and checkpoints nothing itself', async () => {
    // This connection never checkpoints: without the worker the log would hold every page written.
    sqlite.pragma('wal_autocheckpoint = 0');
    checkpointer = new WalCheckpointer(file, { startAtWalBytes: 64 * PAGE, lookEveryMs: 5, busyPauseMs: 1 });
    insert(100);
    await until(() => checkpointer!.running);
    const written = 100;
    await until(() => checkpointer!.counts.framesCopied >= written);
    // What the worker copied is in the database file itself, read without the log by a fresh connection after both close.
    expect(checkpointer.counts.failures).toBe(0);
    expect(Math.floor(statSync(file).size / PAGE)).toBeGreaterThanOrEqual(written);
  });

  it('keeps the log bounded under steady writes: this connection only finishes what the worker copied', async () => {
    sqlite.pragma('wal_autocheckpoint = 1000');
    checkpointer = new WalCheckpointer(file, { startAtWalBytes: 64 * PAGE, lookEveryMs: 5, busyPauseMs: 1 });
    insert(100);
    await until(() => checkpointer!.counts.checkpoints > 0);
    for (let round = 0; round < 395; round++) {
      insert(20);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    // 8,000 pages written, most of them copied by the worker; the log restarted from its beginning
    // along the way instead of holding them all.
    expect(checkpointer.running).toBe(true);
    expect(checkpointer.counts.framesCopied).toBeGreaterThan(3_000);
    expect(walBytes()).toBeLessThan(4_000 * PAGE);
    expect((sqlite.prepare('select count(*) as n from rows').get() as { n: number }).n).toBe(8_000);
  });

  it('closes after the server connection, and the last connection to close leaves no log behind', async () => {
    checkpointer = new WalCheckpointer(file, { startAtWalBytes: 16 * PAGE, lookEveryMs: 5 });
    sqlite.pragma('wal_autocheckpoint = 0');
    insert(50);
    await until(() => checkpointer!.running && checkpointer!.counts.checkpoints > 0);
    sqlite.close();
    await checkpointer.stop();
    expect(checkpointer.running).toBe(false);
    expect(existsSync(`${file}-wal`)).toBe(false);
    const reopened = openSqliteFile(file);
    try {
      expect((reopened.prepare('select count(*) as n from rows').get() as { n: number }).n).toBe(50);
      expect(reopened.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      reopened.close();
    }
  });

  it('leaves the work to the server connection when the worker cannot open the file', async () => {
    checkpointer = new WalCheckpointer(join(dir, 'missing.sqlite'), { startAtWalBytes: 0, lookEveryMs: 5 });
    writeFileSync(join(dir, 'missing.sqlite-wal'), '');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(checkpointer.running).toBe(false);
    expect(checkpointer.counts.checkpoints).toBe(0);
  });
});

describe('a service database with its log copied on a worker thread', () => {
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'wal-checkpointer-kill-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is at rest once its handle is destroyed: the worker has closed and the log is gone, so the folder can go', async () => {
    const file = join(dir, 'service.sqlite');
    const { db, checkpointer } = await openSqlite<{ notes: { id?: number; body: string } }>(file, CHILD_MIGRATIONS);
    for (let i = 0; i < 40; i++) await db.insertInto('notes').values(Array.from({ length: 10 }, () => ({ body: 'n'.repeat(4_000) }))).execute();
    await until(() => checkpointer!.running && checkpointer!.counts.checkpoints > 0);
    await db.destroy();
    expect(checkpointer!.running).toBe(false);
    expect(existsSync(`${file}-wal`)).toBe(false);
    rmSync(dir, { recursive: true });
    expect(existsSync(dir)).toBe(false);
  });

  it("settles the handle's destroy in a process nothing else keeps alive, the worker closed and the log gone", async () => {
    // A service stopping on a signal awaits its store's close and then goes on (removes files, says it stopped).
    const file = join(dir, 'service.sqlite');
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./wal-checkpointer-child.ts', import.meta.url)), file, 'close'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const lines: string[] = [];
    createInterface({ input: child.stdout! }).on('line', (line) => lines.push(line));
    const code = await new Promise((resolve) => child.once('close', resolve));
    expect(code).toBe(0);
    expect(lines.at(-1)).toBe('closed');
    expect(existsSync(`${file}-wal`)).toBe(false);
  }, 60_000);

  it('keeps every acknowledged commit through a SIGKILL while the worker checkpoints', async () => {
    const file = join(dir, 'service.sqlite');
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./wal-checkpointer-child.ts', import.meta.url)), file], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let acknowledged = 0;
    let checkpointing = false;
    const lines = createInterface({ input: child.stdout! });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    lines.on('line', (line) => {
      const report = JSON.parse(line) as { committed: number; framesCopied: number };
      acknowledged = report.committed;
      checkpointing ||= report.framesCopied > 0;
      // Killed once the worker has copied pages and while writes go on.
      if (checkpointing && acknowledged >= 400) child.kill('SIGKILL');
    });
    await exited;
    expect(checkpointing).toBe(true);

    const { db } = await openSqlite<{ notes: { id: number; body: string } }>(file, CHILD_MIGRATIONS);
    try {
      const rows = await db.selectFrom('notes').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      expect(Number(rows.n)).toBeGreaterThanOrEqual(acknowledged);
      const ids = await db.selectFrom('notes').select('id').orderBy('id').execute();
      expect(ids.map((row) => row.id)).toEqual(Array.from({ length: ids.length }, (_, i) => i + 1));
    } finally {
      await db.destroy();
    }
  }, 60_000);
});

/** The schema the child writes (wal-checkpointer-child.ts has the same). */
const CHILD_MIGRATIONS: Record<string, Migration> = {
  '0001': {
    async up(db: Kysely<unknown>) {
      await db.schema.createTable('notes').addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('body', 'text', (c) => c.notNull()).execute();
    },
  },
};
