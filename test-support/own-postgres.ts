/**
 * PostgreSQL servers a test starts, restarts, stops and promotes itself (the game days,
 * docs/storage.md "When the database goes away"), through scripts/postgres.mjs. They run in the
 * PostgreSQL pass (vitest.postgres.config.ts); elsewhere, or where no server can be started, they
 * are skipped with the reason, unless REQUIRE_POSTGRES=1 makes that a failure.
 *
 * Also here: a role that is not a superuser and owns only its schema (as an operator gives each
 * service), and a test CA with a server certificate for TLS (openssl).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureServer, startPostgres, startStandby, type PostgresServer, type StartOptions } from '../scripts/postgres.mjs';
import { onPostgres } from './test-database.js';

export type { PostgresServer } from '../scripts/postgres.mjs';

/** Why these tests cannot run here (skip), or null. Throws when REQUIRE_POSTGRES=1 and a server cannot be started. */
export function ownPostgresUnavailable(what: string): string | null {
  if (!onPostgres) return `${what}: runs in the PostgreSQL pass (vitest.postgres.config.ts, TEST_POSTGRES_URL set)`;
  const server = ensureServer({ quiet: true });
  if (server.bin) return null;
  if (process.env.REQUIRE_POSTGRES === '1') throw new Error(`${what}: REQUIRE_POSTGRES=1 but no PostgreSQL server can be started: ${server.reason}`);
  return `${what}: skipped, no PostgreSQL server can be started here: ${server.reason}`;
}

/** A server of the test's own (stopped and removed by `stop()`). */
export async function ownPostgres(options: StartOptions = {}): Promise<PostgresServer> {
  const server = await startPostgres({ quiet: true, ...options });
  if (!('port' in server)) throw new Error(`PostgreSQL did not start: ${server.reason}`);
  return server;
}

/** A hot standby of `primary`, streaming from it. */
export async function ownStandby(primary: PostgresServer, options: Parameters<typeof startStandby>[1] = {}): Promise<PostgresServer> {
  const server = await startStandby(primary, options);
  if (!('port' in server)) throw new Error(`the standby did not start: ${server.reason}`);
  return server;
}

/** `url` with another user, password and database (and query). */
export function urlWith(url: string, parts: { user?: string; password?: string; database?: string; query?: string }): string {
  const u = new URL(url);
  if (parts.user !== undefined) u.username = encodeURIComponent(parts.user);
  if (parts.password !== undefined) u.password = encodeURIComponent(parts.password);
  if (parts.database !== undefined) u.pathname = `/${parts.database}`;
  if (parts.query !== undefined) u.search = parts.query;
  return u.href;
}

/**
 * A database with a role that is not a superuser and owns only its schema there (its search_path):
 * what docs/storage.md asks an operator to give a service. Returns the role's URL (with password).
 */
export function serviceDatabase(server: PostgresServer, options: { database: string; role: string; password: string; connectionLimit?: number }): string {
  const { database, role, password } = options;
  server.psql(`CREATE ROLE ${role} LOGIN PASSWORD '${password}' NOSUPERUSER NOCREATEDB NOCREATEROLE${options.connectionLimit ? ` CONNECTION LIMIT ${options.connectionLimit}` : ''}`);
  server.psql(`CREATE DATABASE ${database}`);
  server.psql(`REVOKE ALL ON DATABASE ${database} FROM PUBLIC`);
  server.psql(`GRANT CONNECT ON DATABASE ${database} TO ${role}`);
  server.psql(`REVOKE ALL ON SCHEMA public FROM PUBLIC`, database);
  server.psql(`CREATE SCHEMA ${role} AUTHORIZATION ${role}`, database);
  server.psql(`ALTER ROLE ${role} IN DATABASE ${database} SET search_path = ${role}`);
  return urlWith(server.url, { user: role, password, database });
}

export interface TestCa {
  /** The CA's certificate (sslrootcert). */
  caFile: string;
  /** The server's certificate and key, for 127.0.0.1 and localhost. */
  certFile: string;
  keyFile: string;
  /** Another CA's certificate, which did not sign the server's. */
  otherCaFile: string;
}

/** A CA made for the test, and a server certificate it signed for 127.0.0.1 and localhost (openssl). */
export function makeTestCa(): TestCa {
  const dir = mkdtempSync(join(tmpdir(), 'svc-test-ca-'));
  const run = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  const ca = (name: string) => {
    run(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2', '-subj', `/CN=${name}`, '-keyout', `${name}.key`, '-out', `${name}.crt`]);
  };
  ca('test-ca');
  ca('other-ca');
  writeFileSync(join(dir, 'server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  run(['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-subj', '/CN=localhost', '-keyout', 'server.key', '-out', 'server.csr']);
  run(['x509', '-req', '-in', 'server.csr', '-CA', 'test-ca.crt', '-CAkey', 'test-ca.key', '-CAcreateserial', '-days', '2', '-extfile', 'server.ext', '-out', 'server.crt']);
  return { caFile: join(dir, 'test-ca.crt'), certFile: join(dir, 'server.crt'), keyFile: join(dir, 'server.key'), otherCaFile: join(dir, 'other-ca.crt') };
}
