/**
 * When the disk fills (issue 19): the inbox's data folder on a small filesystem the test mounts
 * itself (test-support/small-disk.ts), filled but for a little room: enough for a small write (one
 * row, a key's last-use note), not for a create. Creates answer 503 storage_full with Retry-After
 * (not 500), /healthz says the inbox cannot write for as long as creates are refused (issue 35: a
 * small write that fits is no proof), the cause is logged once (not per call, and never as "cannot
 * rollback"), reads go on; once space is freed /healthz recovers by itself, retries with the same
 * idempotency keys make each item once, and nothing acknowledged is lost.
 */
// sqlite only: a full disk under SQLite's own file; PostgreSQL's disk is the server's, out of a test's reach
import { openSqlite, type StorageHealth } from '@svc/shared';
import { sql, type Kysely } from 'kysely';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyWriteAheadLog, mountSmallDisk, smallDiskUnavailable, type SmallDisk } from '../../../test-support/small-disk.js';
import { startInbox, type ApiResponse, type TestInbox } from './support/harness.js';

const skip = smallDiskUnavailable();
if (skip) console.warn(skip);

const RETRY_AFTER = /^[1-9]\d*$/;
/** Fewer than the anonymous create budget per minute (rate-budgets.ts), so the limiter never answers instead. */
const REFUSED = 8;
/**
 * Room left on the full disk: a one-row write takes two or three pages of log (12 KiB), a create
 * about sixteen (66 KB, measured with a log emptied first), so small writes still fit and creates do not.
 */
const ROOM_LEFT_BYTES = 32 * 1024;
/** Longer than StorageHealth's pause between probes (STORAGE_PROBE_EVERY_MS). */
const PROBE_PAUSE_MS = 1_100;

interface Created {
  id: string;
  accessToken: string;
}

describe.skipIf(skip !== null)(skip ?? 'the inbox on a full disk', () => {
  let disk: SmallDisk;
  const lines: string[] = [];
  let t: TestInbox;
  let before: Created;

  const send = (key: string, message: string) =>
    t.request<Created>('POST', '/v1/messages', { body: { message, contact: { name: 'Ana' } }, headers: { 'idempotency-key': key } });
  const logged = (pattern: RegExp) => lines.filter((line) => pattern.test(line));
  const health = () => t.request('GET', '/healthz');

  beforeAll(async () => {
    disk = mountSmallDisk('8m');
    t = await startInbox({ dataDir: join(disk.dir, 'data'), logStream: { write: (line) => void lines.push(line) } });
  });
  afterAll(async () => {
    await t?.close({ removeData: false });
    disk?.unmount();
  });

  it('writes and says so while there is room', async () => {
    const created = await send('before', 'Written before the disk filled');
    expect(created.status).toBe(201);
    before = created.body;
    const ok = await health();
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ ok: true });
  });

  it('answers 503 storage_full with Retry-After to every create once the disk is full, never 500', async () => {
    await emptyWriteAheadLog(join(disk.dir, 'data', 'inbox.sqlite'));
    expect(disk.fill(ROOM_LEFT_BYTES)).toBeGreaterThan(0);
    const answers: ApiResponse[] = [];
    for (let i = 0; i < REFUSED; i++) answers.push(await send(`full-${i}`, `Sent on a full disk, number ${i}`));
    for (const answer of answers) {
      expect(answer.status, JSON.stringify(answer.body)).toBe(503);
      expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(answer.headers.get('retry-after')).toMatch(RETRY_AFTER);
      expect(answer.body).toMatchObject({ status: 503, code: 'storage_full', type: expect.stringMatching(/\/problems\/storage_full$/) });
    }
  });

  it('answers the same problem through the public MCP door', async () => {
    const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'send_message', arguments: { message: 'By MCP on a full disk', idempotency_key: 'mcp-full' } } };
    const r = await t.request('POST', '/mcp', { body: call, headers: { accept: 'application/json, text/event-stream' } });
    expect(r.status).toBe(200);
    expect(r.body.result.isError).toBe(true);
    expect(r.body.result.structuredContent.error).toMatchObject({ status: 503, code: 'storage_full' });
  });

  it('says on /healthz that it cannot write (503), and still serves reads', async () => {
    const down = await health();
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toMatch(RETRY_AFTER);
    expect(down.headers.get('cache-control')).toBe('no-store');
    expect(down.body).toMatchObject({ ok: false, writable: false, storage: { code: 'storage_full', since: expect.any(String) }, version: expect.any(String) });
    // An owner's read whose last-use note cannot be written is still answered.
    t.clock.advance(10 * 60_000);
    const list = await t.owner('GET', '/v1/owner/items?open_only=false&limit=100');
    expect(list.status).toBe(200);
    const status = await t.request('GET', `/v1/items/${before.id}`, { headers: { 'x-access-token': before.accessToken } });
    expect(status.status).toBe(200);
  });

  it('keeps saying so while creates are refused, though small writes still fit: probed again, and after a small write', async () => {
    for (let round = 0; round < 3; round++) {
      await new Promise((resolve) => setTimeout(resolve, PROBE_PAUSE_MS));
      // A small write of the inbox's own (a key's last-use note, one row), then /healthz probes again.
      t.clock.advance(10 * 60_000);
      expect((await t.owner('GET', '/v1/owner/items?limit=1')).status).toBe(200);
      const down = await health();
      expect(down.status, JSON.stringify(down.body)).toBe(503);
      expect(down.body).toMatchObject({ ok: false, writable: false, storage: { code: 'storage_full' } });
      const refused = await send(`full-${round}`, `Sent on a full disk, number ${round}`);
      expect(refused.status, JSON.stringify(refused.body)).toBe(503);
    }
    expect(logged(/storage writable again/)).toEqual([]);
  });

  it('documents storage_full at /problems/storage_full', async () => {
    const page = await t.request('GET', '/problems/storage_full');
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ code: 'storage_full', status: 503 });
  });

  it('logs the cause once for the whole episode, never "cannot rollback"', () => {
    expect(logged(/storage cannot be written/)).toHaveLength(1);
    expect(logged(/storage cannot be written/)[0]).toMatch(/SQLITE_FULL/);
    expect(logged(/cannot rollback/)).toEqual([]);
    // No call was logged as an error of its own.
    expect(lines.filter((line) => JSON.parse(line).level >= 50)).toHaveLength(1);
  });

  it('recovers by itself once space is freed: /healthz first, with no other write', async () => {
    disk.free();
    let up = await health();
    for (let waited = 0; up.status !== 200 && waited < 3_000; waited += 200) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      up = await health();
    }
    expect(up.status).toBe(200);
    expect(up.body).toMatchObject({ ok: true });
    expect(logged(/storage writable again/)).toHaveLength(1);
  });

  it('makes each refused create once when retried with its key, and a second retry replays it', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < REFUSED; i++) {
      const retry = await send(`full-${i}`, `Sent on a full disk, number ${i}`);
      expect(retry.status).toBe(201);
      ids.add(retry.body.id);
      const again = await send(`full-${i}`, `Sent on a full disk, number ${i}`);
      expect(again.status).toBe(200);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body.id).toBe(retry.body.id);
    }
    expect(ids.size).toBe(REFUSED);
  });

  it('lost nothing it acknowledged: the item from before and one item per retried key', async () => {
    const list = await t.owner('GET', '/v1/owner/items?open_only=false&limit=100');
    const ids = (list.body.items as { id: string }[]).map((item) => item.id);
    expect(ids).toContain(before.id);
    expect(ids).toHaveLength(1 + REFUSED);
    expect(logged(/storage cannot be written/)).toHaveLength(1);
  });
});

describe('a transaction SQLite has already rolled back (shared guarded-dialect.ts)', () => {
  interface Db {
    notes: { id: number; text: string };
  }
  const migrations = {
    '0001': { up: async (db: Kysely<any>) => void (await db.schema.createTable('notes').addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('text', 'text').execute()) },
  };
  let db: Kysely<Db>;
  let health: StorageHealth;
  let sqlite: Awaited<ReturnType<typeof openSqlite>>['sqlite'];
  beforeAll(async () => {
    ({ db, health, sqlite } = await openSqlite<Db>(':memory:', migrations));
  });
  afterAll(async () => {
    await db.destroy();
  });

  it('is not rolled back again: the first error is the one thrown', async () => {
    const full = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    const attempt = db.transaction().execute(async (trx) => {
      await trx.insertInto('notes').values({ id: 1, text: 'lost' }).execute();
      // What SQLite does itself on SQLITE_FULL: the whole transaction is gone.
      sqlite.exec('ROLLBACK');
      throw full;
    });
    await expect(attempt).rejects.toBe(full);
    expect(sqlite.inTransaction).toBe(false);
    expect(await db.selectFrom('notes').selectAll().execute()).toEqual([]);
  });

  it('rolls back one still open, and a committed write asks for the probe, which ends the episode', async () => {
    health.noteFailure(Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }));
    expect(health.writable).toBe(false);
    const refused = new Error('no');
    await expect(
      db.transaction().execute(async (trx) => {
        await trx.insertInto('notes').values({ id: 2, text: 'undone' }).execute();
        throw refused;
      }),
    ).rejects.toBe(refused);
    expect(sqlite.inTransaction).toBe(false);
    expect(await db.selectFrom('notes').selectAll().execute()).toEqual([]);
    expect(health.writable).toBe(false);
    await db.transaction().execute((trx) => trx.insertInto('notes').values({ id: 3, text: 'kept' }).execute());
    // The commit alone proves nothing about the next create; the probe it asked for does.
    expect(health.writable).toBe(false);
    expect(await health.check()).toEqual({ writable: true });
    expect(await sql<{ n: number }>`select count(*) as n from notes`.execute(db)).toMatchObject({ rows: [{ n: 1 }] });
  });
});
