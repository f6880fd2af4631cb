// A throwaway PostgreSQL for the tests: Debian's server (installed with apt-get when missing and this
// runs as root), a fresh data folder under the system's temporary folder, listening on 127.0.0.1 on a
// free port with trust authentication, made for speed rather than durability (fsync off). Stopped and
// removed when the command it runs ends. The game-day tests and bench/postgres-drills.ts start their
// own (startPostgres with synchronous commits, TLS, pg_hba lines; startStandby for a failover pair)
// and restart, stop, crash and promote them (the handle's halt, resume, restart, promote).
//
//   node scripts/postgres.mjs run -- <command> [args...]   runs the command with TEST_POSTGRES_URL set
//   node scripts/postgres.mjs check                        says whether a server can be started here
//
// scripts/run-tests.mjs imports startPostgres() from here. Plain Node, no dependencies.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PG_ROOT = '/usr/lib/postgresql';
/** Server settings for tests: room for every test file's connections (durability: durability() below). */
const SERVER_SETTINGS = [
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

/** Settings that make a server keep what it acknowledged (game days, drills): fsync stays as asked. */
function durability({ fsync, synchronousCommit }) {
  return [`fsync=${fsync ? 'on' : 'off'}`, `full_page_writes=${fsync ? 'on' : 'off'}`, `synchronous_commit=${synchronousCommit ? 'on' : 'off'}`];
}

/** Copies a file into the server's folder, owned by the server's user, readable by it alone (a TLS key must be). */
function ownCopy(from, to) {
  copyFileSync(from, to);
  chmodSync(to, 0o600);
  if (isRoot()) {
    const { uid, gid } = userIds('postgres');
    chownSync(to, uid, gid);
  }
}

/**
 * A running server and what a drill does to it. `url` is its `postgres` database as the `postgres`
 * superuser (trust authentication on 127.0.0.1 unless `hba` says otherwise).
 */
function serverHandle({ bin, folder, data, log, port, options, version }) {
  const pgCtl = (args, extra = {}) => runAs(join(bin, 'pg_ctl'), ['-D', data, ...args], extra);
  let removed = false;
  const handle = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    host: '127.0.0.1',
    port,
    folder,
    data,
    bin,
    version,
    /** Stops the server (mode: smart, fast or immediate); true when it stopped. */
    halt(mode = 'fast') {
      return pgCtl(['-m', mode, '-w', '-t', '60', 'stop']).status === 0;
    },
    /** Starts it again with the same settings; true when it answers. */
    resume() {
      return pgCtl(['-l', log, '-w', '-t', '60', '-o', options, 'start']).status === 0;
    },
    /** pg_ctl restart (fast or immediate). */
    restart(mode = 'fast') {
      return pgCtl(['-m', mode, '-l', log, '-w', '-t', '60', '-o', options, 'restart']).status === 0;
    },
    /** Promotes a standby to primary; true once it takes writes. */
    promote() {
      return pgCtl(['-w', '-t', '60', 'promote']).status === 0;
    },
    /** Runs SQL with psql as the superuser; its output, or throws with psql's message. */
    psql(text, database = 'postgres') {
      const run = runAs(join(bin, 'psql'), ['-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', database, '-c', text]);
      if (run.status !== 0) throw new Error(`psql: ${(run.stderr || run.stdout || '').trim()}`);
      return (run.stdout ?? '').trim();
    },
    /** The last lines of the server's log. */
    logTail(lines = 20) {
      return existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').slice(-lines).join('\n') : '';
    },
    stop() {
      if (removed) return;
      removed = true;
      pgCtl(['-m', 'immediate', '-w', 'stop'], { stdio: 'ignore' });
      rmSync(folder, { recursive: true, force: true });
    },
  };
  return handle;
}

/** Starts a made data folder; the handle, or `{ reason }`. */
async function startFolder({ bin, folder, data, port, settings, tls }) {
  const log = join(folder, 'server.log');
  const chosen = port ?? (await freePort());
  const tlsSettings = tls ? ['ssl=on', `ssl_cert_file=${join(folder, 'server.crt')}`, `ssl_key_file=${join(folder, 'server.key')}`] : [];
  if (tls) {
    ownCopy(tls.cert, join(folder, 'server.crt'));
    ownCopy(tls.key, join(folder, 'server.key'));
  }
  const options = ['-c listen_addresses=127.0.0.1', `-p ${chosen}`, `-k ${folder}`, ...[...settings, ...tlsSettings].map((s) => `-c ${s}`)].join(' ');
  const started = runAs(join(bin, 'pg_ctl'), ['-D', data, '-l', log, '-w', '-t', '60', '-o', options, 'start']);
  if (started.status !== 0) {
    const tail = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').slice(-3).join(' / ') : (started.stderr || '').trim();
    rmSync(folder, { recursive: true, force: true });
    return { reason: `the server did not start: ${tail}` };
  }
  const version = runAs(join(bin, 'postgres'), ['--version']).stdout?.trim() ?? 'postgres';
  return serverHandle({ bin, folder, data, log, port: chosen, options, version });
}

function newFolder() {
  const folder = mkdtempSync(join(tmpdir(), 'svc-postgres-'));
  if (isRoot()) {
    const { uid, gid } = userIds('postgres');
    chownSync(folder, uid, gid);
  }
  return folder;
}

/**
 * Starts a throwaway server. Resolves a handle (`url`: its `postgres` database as the `postgres`
 * superuser, no password; `stop()` removes it; `halt`, `resume`, `restart`, `promote`, `psql` for
 * drills), or `{ reason }` when none can be started here.
 *
 * Options: `port` (else a free one); `settings` (more `name=value` server settings, after the test
 * ones); `fsync` and `synchronousCommit` (both off by default, for speed: a drill that crashes the
 * server needs `synchronousCommit`, or commits acknowledged in its last moment are lost; `fsync`
 * only matters if the machine itself stops); `tls` ({ cert, key } files: ssl=on with them); `hba`
 * (pg_hba.conf lines put before the trust lines, so they decide first).
 */
export async function startPostgres({ quiet = false, port, settings = [], fsync = false, synchronousCommit = false, tls = null, hba = [] } = {}) {
  const server = ensureServer({ quiet });
  if (!server.bin) return { reason: server.reason };
  if (isRoot() && spawnSync('id', ['postgres'], { stdio: 'ignore' }).status !== 0) return { reason: 'the postgres user does not exist' };
  const folder = newFolder();
  const data = join(folder, 'data');
  const init = runAs(join(server.bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']);
  if (init.status !== 0) {
    rmSync(folder, { recursive: true, force: true });
    return { reason: `initdb failed: ${(init.stderr || init.stdout || '').trim().split('\n').at(-1)}` };
  }
  if (hba.length > 0) {
    const file = join(data, 'pg_hba.conf');
    writeFileSync(file, `${hba.join('\n')}\n${readFileSync(file, 'utf8')}`);
  }
  return startFolder({ bin: server.bin, folder, data, port, settings: [...SERVER_SETTINGS, ...durability({ fsync, synchronousCommit }), ...settings], tls });
}

/**
 * A hot standby of `primary` (a handle from startPostgres), copied with pg_basebackup and streaming
 * from it; `promote()` makes it the primary. Same options as startPostgres (its own port, settings).
 */
export async function startStandby(primary, { port, settings = [], fsync = false, synchronousCommit = false } = {}) {
  const folder = newFolder();
  const data = join(folder, 'data');
  const copy = runAs(join(primary.bin, 'pg_basebackup'), ['-h', primary.host, '-p', String(primary.port), '-U', 'postgres', '-D', data, '-R', '-X', 'stream', '--no-sync', '-c', 'fast']);
  if (copy.status !== 0) {
    rmSync(folder, { recursive: true, force: true });
    return { reason: `pg_basebackup failed: ${(copy.stderr || copy.stdout || '').trim().split('\n').at(-1)}` };
  }
  return startFolder({ bin: primary.bin, folder, data, port, settings: [...SERVER_SETTINGS, ...durability({ fsync, synchronousCommit }), 'hot_standby=on', ...settings], tls: null });
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
