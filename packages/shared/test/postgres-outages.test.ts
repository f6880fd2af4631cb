/**
 * A service's connections when its PostgreSQL goes away (docs/storage.md "When the database goes
 * away"), on a server of the test's own (synchronous commits, fsync off for speed: nothing here
 * stops the machine, only the server): stopped fast and crashed (`immediate`) while eight writers
 * commit, a COMMIT whose answer is lost on the way back, a connection dropped in the middle of a
 * transaction, a server that stops answering, and a start on a database that cannot be reached.
 *
 * Held: no process ends (node-postgres used to emit an unhandled `error` for a checked-out
 * connection the server dropped), every call either committed once or failed as a storage failure
 * with nothing saved (a 503, never both), writes succeed again within a second of the server's
 * return, a lost COMMIT is asked about (committed: success; not known in time: 08007, which says it
 * may have been saved), and waits are bounded by the connect and statement timeouts.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  CommitOutcomeUnknown,
  ConnectionLost,
  StorageHealth,
  connectPostgres,
  openStorage,
  storageFailureKind,
  storageProblem,
  storageTarget,
  transactionWithRetry,
  type PostgresSettings,
} from '@svc/shared';
import { sql, type Generated, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownPostgres, ownPostgresUnavailable, urlWith, type PostgresServer } from '../../../test-support/own-postgres.js';
import { startTcpProxy, type TcpProxy } from '../../../test-support/tcp-proxy.js';

const skip = ownPostgresUnavailable('PostgreSQL outages');
if (skip) console.warn(skip);

interface Db {
  writes: { id: Generated<number>; token: string };
}

const SETTINGS: PostgresSettings = { connectTimeoutMs: 1_000, statementTimeoutMs: 1_500 };

describe.skipIf(skip !== null)(skip ?? "a service's connections when PostgreSQL goes away", () => {
  let server: PostgresServer;
  let proxy: TcpProxy;
  let db: Kysely<Db>;
  let health: StorageHealth;
  const logged: string[] = [];

  /** How many rows hold each token (no unique key: a token written twice would show). */
  async function stored(): Promise<Map<string, number>> {
    const { rows } = await sql<{ token: string; n: number }>`SELECT token, count(*)::int AS n FROM writes GROUP BY token`.execute(db);
    return new Map(rows.map((r) => [r.token, r.n]));
  }

  const write = (handle: Kysely<Db>, token: string) =>
    transactionWithRetry(handle, async (trx) => {
      await trx.insertInto('writes').values({ token }).execute();
      // A little time inside the transaction, so a stop finds some in flight.
      await sql`SELECT pg_sleep(0.005)`.execute(trx);
    });

  beforeAll(async () => {
    server = await ownPostgres({ synchronousCommit: true });
    server.psql('CREATE TABLE writes (id bigserial PRIMARY KEY, token text NOT NULL)');
    health = new StorageHealth({ database: `127.0.0.1:${server.port}/postgres`, log: (level, message) => void logged.push(`${level} ${message}`) });
    db = connectPostgres<Db>(server.url, { applicationName: 'outage test', health, settings: SETTINGS, max: 8 });
    proxy = await startTcpProxy(server.port);
  }, 60_000);

  afterAll(async () => {
    await db?.destroy();
    await proxy?.close();
    server?.stop();
  });

  it('rides through a fast stop and a crash with writes in flight: each call committed once or refused with nothing saved, back within a second', { timeout: 60_000 }, async () => {
    const acked: string[] = [];
    const refused: { token: string; error: unknown }[] = [];
    const successes: number[] = [];
    let running = true;
    const writers = Array.from({ length: 8 }, async (_, w) => {
      for (let n = 0; running; n++) {
        const token = `w${w}-${n}`;
        try {
          await write(db, token);
          acked.push(token);
          successes.push(Date.now());
        } catch (error) {
          refused.push({ token, error });
          await sleep(20);
        }
      }
    });
    await sleep(400);
    for (const mode of ['fast', 'immediate'] as const) {
      expect(server.halt(mode)).toBe(true);
      await sleep(400);
      expect(health.writable).toBe(false);
      expect(server.resume()).toBe(true);
      const back = Date.now();
      while (!successes.some((t) => t >= back)) {
        if (Date.now() - back > 5_000) throw new Error(`no write succeeded within 5 s of the ${mode} restart`);
        await sleep(10);
      }
      expect(successes.find((t) => t >= back)! - back, `first write after the ${mode} restart`).toBeLessThan(1_000);
      await sleep(300);
    }
    running = false;
    await Promise.all(writers);

    const rows = await stored();
    for (const token of acked) expect(rows.get(token), token).toBe(1);
    expect(refused.length).toBeGreaterThan(0);
    for (const { token, error } of refused) {
      const kind = storageFailureKind(error);
      expect(kind, String(error)).not.toBeNull();
      // Refused means nothing saved, unless the refusal says it may have been (then once at most).
      if (kind === 'unknown_outcome') expect(rows.get(token) ?? 0).toBeLessThanOrEqual(1);
      else expect(rows.get(token), `${token} was refused (${String(error)}) and stored`).toBeUndefined();
    }
    expect(health.writable).toBe(true);
    const episodes = logged.filter((l) => l.startsWith('error'));
    expect(episodes.length).toBeGreaterThanOrEqual(1);
    for (const line of episodes) {
      expect(line).toMatch(new RegExp(`the database cannot be reached .*127\\.0\\.0\\.1:${server.port}/postgres`));
      expect(line).not.toMatch(/Free space/);
    }
  });

  // One pooled connection: asking about the COMMIT must not wait for the pool its own transaction fills.
  it('asks the database about a COMMIT whose answer was lost: committed is a success, stored once', { timeout: 30_000 }, async () => {
    const viaProxy = connectPostgres<Db>(proxy.urlFor(server.url), { applicationName: 'outage test (proxy)', settings: SETTINGS, max: 1 });
    try {
      const cut = proxy.loseNextCommitAnswer(150);
      await write(viaProxy, 'answer-lost-committed');
      await cut;
      expect((await stored()).get('answer-lost-committed')).toBe(1);
    } finally {
      await viaProxy.destroy();
    }
  });

  it('says a lost COMMIT may have been saved when the database cannot be asked in time (08007), and never saves it twice', { timeout: 30_000 }, async () => {
    const viaProxy = connectPostgres<Db>(proxy.urlFor(server.url), { applicationName: 'outage test (proxy)', settings: SETTINGS, max: 1 });
    try {
      const cut = proxy.loseNextCommitAnswer(150, { thenRefuse: true });
      const started = Date.now();
      const error = await write(viaProxy, 'answer-lost-unknown').then(
        () => null,
        (e: unknown) => e,
      );
      await cut;
      expect(error).toBeInstanceOf(CommitOutcomeUnknown);
      // Asked for twice the connect timeout, then given up.
      expect(Date.now() - started).toBeLessThan(2 * SETTINGS.connectTimeoutMs + 3_000);
      expect(storageFailureKind(error)).toBe('unknown_outcome');
      const problem = storageProblem('unknown_outcome');
      expect(problem.status).toBe(503);
      expect(problem.headers['retry-after']).toMatch(/^\d+$/);
      expect(problem.message).toMatch(/may have been saved.*same idempotency key/);
      expect(problem.extensions).toMatchObject({ saved: 'unknown' });
      // It was saved, once: a retry with the same idempotency key finds it (packages/inbox/test/game-day.test.ts).
      expect((await stored()).get('answer-lost-unknown')).toBe(1);
    } finally {
      proxy.refuse(false);
      await viaProxy.destroy();
    }
  });

  it('runs a transaction again once when its connection is dropped before COMMIT: stored once', { timeout: 30_000 }, async () => {
    let runs = 0;
    await transactionWithRetry(db, async (trx) => {
      runs++;
      await trx.insertInto('writes').values({ token: 'dropped-midway' }).execute();
      if (runs === 1) {
        const { rows } = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(trx);
        server.psql(`SELECT pg_terminate_backend(${rows[0]!.pid})`);
        await sleep(50);
      }
      await sql`SELECT 1`.execute(trx);
    });
    expect(runs).toBe(2);
    expect((await stored()).get('dropped-midway')).toBe(1);
    // Outside a transaction a lost connection is one refusal, and the next statement has a new connection.
    const { rows } = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(db);
    expect(rows).toHaveLength(1);
  });

  it('gives up on a server that stops answering after the statement timeout and a margin, then goes on', { timeout: 30_000 }, async () => {
    const viaProxy = connectPostgres<Db>(proxy.urlFor(server.url), { applicationName: 'outage test (proxy)', settings: SETTINGS, max: 1 });
    try {
      await sql`SELECT 1`.execute(viaProxy);
      proxy.silence(true);
      const started = Date.now();
      const error = await sql`SELECT 1`.execute(viaProxy).then(
        () => null,
        (e: unknown) => e,
      );
      const waited = Date.now() - started;
      expect(error).toBeInstanceOf(ConnectionLost);
      expect(String(error)).toMatch(/no answer within 3000 ms/);
      expect(waited).toBeGreaterThanOrEqual(2_900);
      expect(waited).toBeLessThan(6_000);
      proxy.silence(false);
      proxy.cutAll();
      expect((await sql<{ n: number }>`SELECT 1 AS n`.execute(viaProxy)).rows).toEqual([{ n: 1 }]);
    } finally {
      proxy.silence(false);
      await viaProxy.destroy();
    }
  });

  it('stops a start with words that say where the database is and what to check, within the connect timeout, never the password', { timeout: 30_000 }, async () => {
    const env = { INBOX_DATABASE_CONNECT_TIMEOUT_MS: String(SETTINGS.connectTimeoutMs) };
    const open = (url: string) => openStorage(storageTarget(url, '', 'INBOX_DATABASE_URL', env), {}, { applicationName: 'start test' });

    // Nothing listens there.
    const closed = await startTcpProxy(server.port);
    const closedPort = closed.port;
    await closed.close();
    const refusedAt = urlWith(server.url, { user: 'svc', password: 'hunter2-secret', database: 'inbox' }).replace(`:${server.port}/`, `:${closedPort}/`);
    const refused = await open(refusedAt).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(refused?.name).toBe('StartRefusal');
    expect(refused?.message).toMatch(new RegExp(`^The database cannot be reached at 127\\.0\\.0\\.1:${closedPort}/inbox \\(INBOX_DATABASE_URL\\): .*ECONNREFUSED.*check that PostgreSQL is running`));
    expect(refused?.message).not.toMatch(/hunter2|storage cannot be written|Free space|migration/);

    // Accepts connections and never answers.
    proxy.silence(true);
    const started = Date.now();
    const silent = await open(proxy.urlFor(server.url)).then(
      () => null,
      (e: unknown) => e as Error,
    );
    proxy.silence(false);
    proxy.cutAll();
    expect(Date.now() - started).toBeLessThan(SETTINGS.connectTimeoutMs + 3_000);
    expect(silent?.message).toMatch(/cannot be reached at .*No answer within 1000 ms \(INBOX_DATABASE_CONNECT_TIMEOUT_MS\)/);

    // The server answers; the database is not there.
    const missing = await open(urlWith(server.url, { database: 'no_such_database' })).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(missing?.message).toMatch(/3D000.*does not exist.*create it/);
  });
});
