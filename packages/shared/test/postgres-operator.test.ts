/**
 * PostgreSQL as an operator runs it (docs/storage.md "An operator's PostgreSQL"), on servers of the
 * test's own: TLS with `sslmode=verify-full` against a CA made here, a role that is not a superuser
 * and owns only its schema (password by SCRAM, TLS required by pg_hba.conf), connection slots
 * starved by another role while the slots reserved for administrators stay free, and a hot standby
 * promoted while writes run, followed through a two-host URL with `target_session_attrs=read-write`.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { StorageHealth, connectPostgres, openStorage, storageFailureKind, storageTarget, transactionWithRetry, type OpenedStorage } from '@svc/shared';
import type { Generated, Kysely } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestCa, ownPostgres, ownPostgresUnavailable, ownStandby, serviceDatabase, urlWith, type PostgresServer, type TestCa } from '../../../test-support/own-postgres.js';

const skip = ownPostgresUnavailable("an operator's PostgreSQL");
if (skip) console.warn(skip);

interface Db {
  orders: { id: Generated<number>; token: string };
}

const MIGRATIONS = {
  '0001-orders': {
    up: async (db: Kysely<unknown>) => {
      await db.schema
        .createTable('orders')
        .addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
        .addColumn('token', 'text', (c) => c.notNull())
        .execute();
    },
  },
};

const PASSWORD = 'a long and private pass phrase';
const ENV = { SHOP_DATABASE_CONNECT_TIMEOUT_MS: '2000', SHOP_DATABASE_STATEMENT_TIMEOUT_MS: '5000' };
const open = (url: string) => openStorage<Db>(storageTarget(url, '', 'SHOP_DATABASE_URL', ENV), MIGRATIONS, { applicationName: 'operator test' });
const refusalOf = (url: string) =>
  open(url).then(
    async (opened) => {
      await opened.db.destroy();
      return null;
    },
    (e: unknown) => e as Error,
  );

describe.skipIf(skip !== null)(skip ?? "an operator's PostgreSQL", () => {
  describe('TLS, a role of its own, connection slots', () => {
    let server: PostgresServer;
    let ca: TestCa;
    let roleUrl: string;

    beforeAll(async () => {
      ca = makeTestCa();
      server = await ownPostgres({
        tls: { cert: ca.certFile, key: ca.keyFile },
        // The service's role signs in with its password over TLS only; everyone else as the tests' servers do.
        hba: ['hostssl all svc_shop 127.0.0.1/32 scram-sha-256', 'host all svc_shop 127.0.0.1/32 reject', 'hostssl all filler 127.0.0.1/32 scram-sha-256'],
        settings: ['max_connections=20', 'superuser_reserved_connections=3', 'password_encryption=scram-sha-256'],
      });
      roleUrl = serviceDatabase(server, { database: 'shop', role: 'svc_shop', password: PASSWORD });
      server.psql(`CREATE ROLE filler LOGIN PASSWORD '${PASSWORD}'`);
    }, 60_000);

    afterAll(() => server?.stop());

    const tls = (url: string, caFile: string, extra = '') => `${url}?sslmode=verify-full&sslrootcert=${encodeURIComponent(caFile)}${extra}`;

    it('migrates and writes over verify-full TLS as a role that is not a superuser, its tables in its own schema', async () => {
      const opened = await open(tls(roleUrl, ca.caFile, '&max=3'));
      try {
        await opened.db.insertInto('orders').values({ token: 'first' }).execute();
        expect(server.psql("SELECT schemaname || '.' || tablename FROM pg_tables WHERE tablename IN ('orders', 'storage_probe_writes', 'kysely_migration') ORDER BY 1", 'shop').split('\n')).toEqual([
          'svc_shop.kysely_migration',
          'svc_shop.orders',
          'svc_shop.storage_probe_writes',
        ]);
        expect(server.psql("SELECT bool_and(s.ssl) FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) WHERE a.usename = 'svc_shop'")).toBe('t');
        expect(server.psql("SELECT rolsuper FROM pg_roles WHERE rolname = 'svc_shop'")).toBe('f');
        // Nothing to advise: not a superuser, a pool within the slots other roles get.
        expect(opened.health.pendingAdvice).toEqual([]);
      } finally {
        await opened.db.destroy();
      }
    });

    it('refuses to start, in words, on a certificate another CA signed, without TLS, and with a wrong password', async () => {
      const otherCa = await refusalOf(tls(roleUrl, ca.otherCaFile));
      expect(otherCa?.name).toBe('StartRefusal');
      expect(otherCa?.message).toMatch(/cannot be reached at 127\.0\.0\.1:\d+\/shop \(SHOP_DATABASE_URL\).*The TLS connection failed: check sslmode and sslrootcert/);
      const plain = await refusalOf(roleUrl);
      expect(plain?.message).toMatch(/28000.*pg_hba\.conf.*The server refused the user/);
      const wrong = await refusalOf(tls(urlWith(roleUrl, { password: 'not it' }), ca.caFile));
      expect(wrong?.message).toMatch(/28P01.*The server refused the user/);
      for (const error of [otherCa, plain, wrong]) expect(error?.message).not.toContain(PASSWORD);
    });

    it('advises against a superuser role and a pool larger than the slots other roles get', async () => {
      const opened = await open(`${server.url}?max=30`);
      try {
        expect(opened.health.pendingAdvice).toEqual([
          expect.stringMatching(/as the superuser postgres: it may take the 3 connection slots the server keeps for administrators; give it a role of its own/),
          expect.stringMatching(/may open 30 connections, more than the 17 slots PostgreSQL gives roles that are not superusers/),
        ]);
      } finally {
        await opened.db.destroy();
      }
    });

    it('answers 503 while another role holds every slot, leaves the reserved slots to administrators, and writes again within a second of a free slot', { timeout: 60_000 }, async () => {
      const fillers: pg.Client[] = [];
      const health = new StorageHealth({ database: 'shop', log: () => undefined });
      let service: Kysely<Db> | null = null;
      try {
        // Another role takes every slot a role that is not a superuser may have.
        for (;;) {
          const client = new pg.Client({ connectionString: tls(urlWith(roleUrl, { user: 'filler', database: 'postgres' }), ca.caFile) });
          const joined = await client.connect().then(
            () => true,
            (e: { code?: string }) => {
              expect(e.code).toBe('53300');
              return false;
            },
          );
          if (!joined) break;
          client.on('error', () => undefined);
          fillers.push(client);
        }
        expect(fillers.length).toBeGreaterThanOrEqual(15);
        service = connectPostgres<Db>(tls(roleUrl, ca.caFile), { applicationName: 'starved', health, settings: { connectTimeoutMs: 2_000, statementTimeoutMs: 5_000 } });
        const refused = await service
          .insertInto('orders')
          .values({ token: 'starved' })
          .execute()
          .then(
            () => null,
            (e: unknown) => e,
          );
        expect(storageFailureKind(refused)).toBe('unreachable');
        expect(String(refused)).toMatch(/53300/);
        expect(health.writable).toBe(false);
        // An administrator still gets in: the reserved slots were left alone.
        expect(server.psql('SELECT 1')).toBe('1');
        // A slot frees: the next write goes through.
        await fillers.pop()!.end();
        const freed = Date.now();
        await service.insertInto('orders').values({ token: 'after' }).execute();
        expect(Date.now() - freed).toBeLessThan(1_000);
        expect(health.writable).toBe(true);
      } finally {
        await service?.destroy();
        await Promise.all(fillers.map((c) => c.end().catch(() => undefined)));
      }
    });
  });

  describe('a hot standby promoted while writes run', () => {
    let primary: PostgresServer;
    let standby: PostgresServer;

    beforeAll(async () => {
      primary = await ownPostgres({ synchronousCommit: true });
      standby = await ownStandby(primary, { synchronousCommit: true });
      // A commit is acknowledged once the standby has it (synchronous replication): no acknowledged write is lost in a failover.
      primary.psql("ALTER SYSTEM SET synchronous_standby_names = '*'");
      primary.psql('SELECT pg_reload_conf()');
      for (let waited = 0; primary.psql("SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync'") !== '1'; waited += 100) {
        if (waited > 20_000) throw new Error('the standby never became synchronous');
        await sleep(100);
      }
    }, 90_000);

    afterAll(() => {
      standby?.stop();
      primary?.stop();
    });

    it('follows the new primary through a two-host URL: nothing acknowledged lost, nothing refused stored, writes again within a second of the promotion', { timeout: 60_000 }, async () => {
      const url = `postgres://postgres@127.0.0.1:${primary.port},127.0.0.1:${standby.port}/postgres?target_session_attrs=read-write`;
      let opened: OpenedStorage<Db> | null = await open(url);
      const { db } = opened;
      const logged: string[] = [];
      opened.health.logTo((level, message) => void logged.push(`${level} ${message}`));
      const acked: string[] = [];
      const refused: { token: string; error: unknown }[] = [];
      const successes: number[] = [];
      let running = true;
      const writers = Array.from({ length: 4 }, async (_, w) => {
        for (let n = 0; running; n++) {
          const token = `w${w}-${n}`;
          try {
            await transactionWithRetry(db, async (trx) => void (await trx.insertInto('orders').values({ token }).execute()));
            acked.push(token);
            successes.push(Date.now());
          } catch (error) {
            refused.push({ token, error });
            await sleep(20);
          }
        }
      });
      try {
        await sleep(500);
        expect(primary.halt('immediate')).toBe(true);
        await sleep(300);
        expect(standby.promote()).toBe(true);
        const promoted = Date.now();
        while (!successes.some((t) => t >= promoted)) {
          if (Date.now() - promoted > 10_000) throw new Error('no write succeeded within 10 s of the promotion');
          await sleep(10);
        }
        expect(successes.find((t) => t >= promoted)! - promoted).toBeLessThan(1_000);
        await sleep(300);
      } finally {
        running = false;
        await Promise.all(writers);
      }
      expect(acked.length).toBeGreaterThan(10);
      const rows = new Map(
        standby
          .psql('SELECT token, count(*) FROM orders GROUP BY token')
          .split('\n')
          .filter(Boolean)
          .map((line) => line.split('|') as [string, string]),
      );
      for (const token of acked) expect(rows.get(token), `${token} was acknowledged`).toBe('1');
      expect(refused.length).toBeGreaterThan(0);
      for (const { token, error } of refused) {
        const kind = storageFailureKind(error);
        expect(kind, String(error)).not.toBeNull();
        if (kind !== 'unknown_outcome') expect(rows.get(token), `${token} was refused and stored`).toBeUndefined();
      }
      // The outage was logged once, naming both hosts, and its end.
      expect(logged.filter((l) => l.startsWith('error'))).toEqual([expect.stringMatching(new RegExp(`the database cannot be reached .*127\\.0\\.0\\.1:${primary.port},127\\.0\\.0\\.1:${standby.port}/postgres`))]);
      expect(logged.at(-1)).toMatch(/^info storage writable again/);
      await opened.db.destroy();
      opened = null;
    });
  });
});
