// A throwaway PostgreSQL for the tests: Debian's server (installed with apt-get when missing and this
// runs as root), a fresh data folder under the system's temporary folder, listening on 127.0.0.1 on a
// free port with trust authentication, made for speed rather than durability (fsync off). Stopped and
// removed when the command it runs ends.
//
//   node scripts/postgres.mjs run -- <command> [args...]   runs the command with TEST_POSTGRES_URL set
//   node scripts/postgres.mjs check                        says whether a server can be started here
//
// scripts/run-tests.mjs imports startPostgres() from here. Plain Node, no dependencies.
import { spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PG_ROOT = '/usr/lib/postgresql';
/** Server settings for tests: no durability, room for every test file's connections. */
const SERVER_SETTINGS = [
  'fsync=off',
  'synchronous_commit=off',
  'full_page_writes=off',
  'max_connections=400',
  'shared_buffers=128MB',
  'log_min_messages=warning',
  'deadlock_timeout=200ms',
];

/** The newest installed server's bin folder, or null. */
function serverBin() {
  if (!existsSync(PG_ROOT)) return null;
  const versions = readdirSync(PG_ROOT)
    .filter((v) => existsSync(join(PG_ROOT, v, 'bin', 'postgres')))
    .sort((a, b) => Number(a) - Number(b));
  const newest = versions.at(-1);
  return newest ? join(PG_ROOT, newest, 'bin') : null;
}

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

/** Installs Debian's server (and contrib) with apt-get when missing; returns the bin folder or a reason. */
export function ensureServer({ quiet = false } = {}) {
  const found = serverBin();
  if (found) return { bin: found };
  const hasApt = existsSync('/etc/debian_version') && spawnSync('sh', ['-c', 'command -v apt-get'], { stdio: 'ignore' }).status === 0;
  if (!hasApt) return { reason: 'no PostgreSQL server is installed and this is not Debian with apt-get' };
  if (!isRoot()) return { reason: 'no PostgreSQL server is installed and installing it needs root' };
  if (!quiet) console.log("postgres: no server found; installing Debian's postgresql and postgresql-contrib with apt-get (as root)");
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = () => spawnSync('apt-get', ['install', '-y', '-q', 'postgresql', 'postgresql-contrib'], { stdio: ['ignore', 'ignore', 'inherit'], env }).status === 0;
  if (!install()) {
    // The package lists may be missing or stale (a fresh container): refresh them once, then retry.
    spawnSync('apt-get', ['update', '-q'], { stdio: ['ignore', 'ignore', 'inherit'], env });
    install();
  }
  const bin = serverBin();
  return bin ? { bin } : { reason: 'apt-get could not install postgresql' };
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Runs a server binary: as root through the `postgres` user (the server refuses to run as root), as
 * anyone else directly.
 */
function runAs(bin, args, options = {}) {
  if (!isRoot()) return spawnSync(bin, args, { encoding: 'utf8', ...options });
  const quoted = [bin, ...args].map((a) => `'${String(a).replace(/'/g, `'\\''`)}'`).join(' ');
  return spawnSync('su', ['postgres', '-s', '/bin/sh', '-c', quoted], { encoding: 'utf8', ...options });
}

/**
 * Starts a throwaway server. Resolves `{ url, stop }` (the URL of its `postgres` database as the
 * `postgres` superuser, no password), or `{ reason }` when none can be started here.
 */
export async function startPostgres({ quiet = false } = {}) {
  const server = ensureServer({ quiet });
  if (!server.bin) return { reason: server.reason };
  if (isRoot() && spawnSync('id', ['postgres'], { stdio: 'ignore' }).status !== 0) return { reason: 'the postgres user does not exist' };
  const folder = mkdtempSync(join(tmpdir(), 'svc-postgres-'));
  const data = join(folder, 'data');
  const log = join(folder, 'server.log');
  if (isRoot()) {
    const { uid, gid } = userIds('postgres');
    chownSync(folder, uid, gid);
  }
  const removeFolder = () => rmSync(folder, { recursive: true, force: true });
  const init = runAs(join(server.bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']);
  if (init.status !== 0) {
    removeFolder();
    return { reason: `initdb failed: ${(init.stderr || init.stdout || '').trim().split('\n').at(-1)}` };
  }
  const port = await freePort();
  const options = ['-c listen_addresses=127.0.0.1', `-p ${port}`, `-k ${folder}`, ...SERVER_SETTINGS.map((s) => `-c ${s}`)].join(' ');
  const started = runAs(join(server.bin, 'pg_ctl'), ['-D', data, '-l', log, '-w', '-t', '60', '-o', options, 'start']);
  if (started.status !== 0) {
    const tail = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').slice(-3).join(' / ') : (started.stderr || '').trim();
    removeFolder();
    return { reason: `the server did not start: ${tail}` };
  }
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    runAs(join(server.bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop'], { stdio: 'ignore' });
    removeFolder();
  };
  const version = runAs(join(server.bin, 'postgres'), ['--version']).stdout?.trim() ?? 'postgres';
  return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, version, stop };
}

function userIds(name) {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${name}:`));
  const [, , uid, gid] = (line ?? '').split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

async function main() {
  const [mode, ...rest] = process.argv.slice(2);
  if (mode === 'check') {
    const server = ensureServer();
    console.log(server.bin ? `postgres: server found in ${server.bin}` : `postgres: ${server.reason}`);
    process.exit(server.bin ? 0 : 1);
  }
  if (mode !== 'run' || rest[0] !== '--' || rest.length < 2) {
    console.error('usage: node scripts/postgres.mjs run -- <command> [args...] | node scripts/postgres.mjs check');
    process.exit(2);
  }
  const pg = await startPostgres();
  if (!pg.url) {
    console.error(`postgres: cannot start a server here: ${pg.reason}`);
    process.exit(1);
  }
  console.log(`postgres: ${pg.version} on ${pg.url} (throwaway)`);
  const child = spawn(rest[1], rest.slice(2), { stdio: 'inherit', env: { ...process.env, TEST_POSTGRES_URL: pg.url } });
  const forward = (signal) => child.kill(signal);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  child.on('exit', (code, signal) => {
    pg.stop();
    process.exit(code ?? (signal ? 1 : 0));
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
