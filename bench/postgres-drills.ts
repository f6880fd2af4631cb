/**
 * Game-day drills on the PostgreSQL mode (issue 36; figures in docs/storage.md "When the database
 * goes away"): two inbox processes (packages/inbox/dist/cli/start.js, as an operator starts them) on
 * one database, as a role that is not a superuser, through a two-host URL with
 * target_session_attrs=read-write to a primary and its synchronous hot standby (PostgreSQL 15, fsync
 * on by default). Eight clients create messages through both processes with idempotency keys,
 * sending a refused one again with the same key every 100 ms (a client told Retry-After would wait
 * longer; this measures when the service can write again); and every 100 ms one more create arrives
 * on its own key, sent once whatever happens to it (new callers arriving during an outage, while the
 * eight may be held by it). Drills, in turn, with a calm between:
 *
 *   restart-fast       pg_ctl restart -m fast
 *   restart-immediate  pg_ctl restart -m immediate (a crash, then recovery)
 *   stop-start         pg_ctl stop -m fast, 5 s away, pg_ctl start
 *   starved            another role takes every connection slot and the services' connections are
 *                      ended; 3 s later it lets go
 *   failover           the primary crashes (stop -m immediate); 1 s later the standby is promoted
 *
 * For each: how long the database was away, the time from its return (the restart or start done,
 * the slots let go, the promotion done) to the first create that succeeded, and how many creates
 * were answered 503 from the start of the drill to that success; any other failure (a 500, a closed
 * socket) is counted apart. At the end every acknowledged create is looked up on the last primary:
 * found once, or counted lost or twice; and every arriving create refused with nothing saved must
 * not be there.
 *
 *   npm run build && npx tsx bench/postgres-drills.ts [--fsync on|off] [--pg-ports 15433,15434] [--inbox-ports 18714,18014]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { startPostgres, startStandby, type PostgresServer } from '../scripts/postgres.mjs';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(String(process.argv[i]).replace(/^--/, ''), String(process.argv[i + 1]));
const FSYNC = (args.get('fsync') ?? 'on') === 'on';
const PG_PORTS = (args.get('pg-ports') ?? '').split(',').filter(Boolean).map(Number);
const INBOX_PORTS = (args.get('inbox-ports') ?? '').split(',').filter(Boolean).map(Number);
const CLIENTS = 8;
const root = new URL('..', import.meta.url).pathname;
const CLI = join(root, 'packages/inbox/dist/cli/start.js');
if (!existsSync(CLI)) throw new Error('build first: npm run build (the drills start packages/inbox/dist/cli/start.js)');

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function server(start: Promise<PostgresServer | { reason: string }>): Promise<PostgresServer> {
  const made = await start;
  if (!('url' in made) || !made.url) throw new Error(`PostgreSQL did not start: ${(made as { reason: string }).reason}`);
  return made as PostgresServer;
}

// The primary and its synchronous standby, durable as an operator runs them.
const settings = ['max_connections=60', 'superuser_reserved_connections=3'];
const primary = await server(startPostgres({ quiet: true, fsync: FSYNC, synchronousCommit: true, settings, ...(PG_PORTS[0] ? { port: PG_PORTS[0] } : {}) }));
const standby = await server(startStandby(primary, { fsync: FSYNC, synchronousCommit: true, settings: [...settings, 'wal_retrieve_retry_interval=200ms'], ...(PG_PORTS[1] ? { port: PG_PORTS[1] } : {}) }));
const folders: string[] = [];
const children: ChildProcess[] = [];
const cleanup = () => {
  for (const child of children) child.kill('SIGKILL');
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
  standby.stop();
  primary.stop();
};
process.on('exit', cleanup);
process.on('SIGINT', () => process.exit(130));

primary.psql("ALTER SYSTEM SET synchronous_standby_names = '*'");
primary.psql('SELECT pg_reload_conf()');
while (primary.psql("SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync'") !== '1') await sleep(100);
primary.psql("CREATE ROLE svc_inbox LOGIN PASSWORD 'drills' NOSUPERUSER");
primary.psql('CREATE DATABASE inbox');
primary.psql('CREATE SCHEMA svc_inbox AUTHORIZATION svc_inbox', 'inbox');
primary.psql("ALTER ROLE svc_inbox IN DATABASE inbox SET search_path = svc_inbox");
primary.psql("CREATE ROLE filler LOGIN PASSWORD 'drills' NOSUPERUSER");
const url = `postgres://svc_inbox:drills@127.0.0.1:${primary.port},127.0.0.1:${standby.port}/inbox?target_session_attrs=read-write`;
console.log(`${primary.version}, fsync ${FSYNC ? 'on' : 'off'}, synchronous_commit on, a synchronous standby; ${url.replace(':drills@', '@')}`);

// Two inbox processes, started as an operator starts them.
const secretKey = randomBytes(32).toString('base64');
const bases = await Promise.all(
  [0, 1].map(async (i) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'inbox-drills-'));
    folders.push(dataDir);
    const port = INBOX_PORTS[i] ?? (await freePort());
    const child = spawn(process.execPath, [CLI], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, DATA_DIR: dataDir, INBOX_PORT: String(port), INBOX_DATABASE_URL: url, INBOX_SECRET_KEY: secretKey, LOG_LEVEL: 'warn', INBOX_RATE_LIMIT: '0' },
    });
    children.push(child);
    await new Promise<void>((resolve, reject) => {
      createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => line.startsWith('Business inbox running at') && resolve());
      child.once('exit', (code) => reject(new Error(`an inbox process exited with ${code}`)));
    });
    return `http://127.0.0.1:${port}`;
  }),
);

interface Outcome {
  at: number;
  status: number | 'socket';
}
const outcomes: Outcome[] = [];
const acknowledged = new Map<string, string>();
let next = 0;
let running = true;
const clients = Array.from({ length: CLIENTS }, async () => {
  while (running) {
    const key = `drill-${next++}`;
    for (let attempt = 0; running || attempt > 0; attempt++) {
      const base = bases[(next + attempt) % bases.length] as string;
      let status: number | 'socket';
      let id = '';
      try {
        const response = await fetch(`${base}/v1/messages`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': key },
          body: JSON.stringify({ message: `Drill message ${key}|`, contact: { name: 'Drill' } }),
        });
        status = response.status;
        const body = (await response.json()) as { id?: string };
        id = body.id ?? '';
      } catch {
        status = 'socket';
      }
      outcomes.push({ at: Date.now(), status });
      if (status === 200 || status === 201) {
        acknowledged.set(key, id);
        break;
      }
      if (attempt > 600) break;
      await sleep(100);
    }
  }
});

// New callers: one create every 100 ms on a key of its own, sent once.
const refusedNothingSaved = new Set<string>();
let probes = 0;
const arrivals = setInterval(() => {
  const key = `arrival-${probes++}`;
  const base = bases[probes % bases.length] as string;
  void fetch(`${base}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify({ message: `Drill message ${key}|`, contact: { name: 'Arrival' } }),
  }).then(
    async (response) => {
      const body = (await response.json()) as { id?: string; saved?: string };
      outcomes.push({ at: Date.now(), status: response.status });
      if (response.status === 200 || response.status === 201) acknowledged.set(key, body.id ?? '');
      else if (response.status === 503 && body.saved !== 'unknown') refusedNothingSaved.add(key);
    },
    () => outcomes.push({ at: Date.now(), status: 'socket' }),
  );
}, 100);

interface Drill {
  name: string;
  /** Ends the database's availability; resolves when it is back (its return). */
  run(): Promise<void>;
}

let outageStart = 0;
let returned = 0;
const away = () => void (outageStart = Date.now());
const back = () => void (returned = Date.now());

async function starve(holdMs: number): Promise<void> {
  const held: pg.Client[] = [];
  let filling = true;
  let refusedOnce = false;
  const fillers = Array.from({ length: 8 }, async () => {
    while (filling) {
      const client = new pg.Client({ connectionString: `postgres://filler:drills@127.0.0.1:${primary.port}/postgres` });
      client.on('error', () => undefined);
      try {
        await client.connect();
        held.push(client);
      } catch {
        refusedOnce = true;
        await sleep(2);
      }
    }
  });
  while (!refusedOnce) await sleep(5);
  away();
  // The services' connections end; the fillers take the slots they leave.
  primary.psql("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE usename = 'svc_inbox'");
  await sleep(holdMs);
  filling = false;
  await Promise.all(fillers);
  await Promise.all(held.map((c) => c.end().catch(() => undefined)));
  back();
}

const drills: Drill[] = [
  {
    name: 'restart-fast',
    run: async () => {
      away();
      if (!primary.restart('fast')) throw new Error('restart failed');
      back();
    },
  },
  {
    name: 'restart-immediate',
    run: async () => {
      away();
      if (!primary.restart('immediate')) throw new Error('restart failed');
      back();
    },
  },
  {
    name: 'stop-start',
    run: async () => {
      away();
      if (!primary.halt('fast')) throw new Error('stop failed');
      await sleep(5_000);
      if (!primary.resume()) throw new Error('start failed');
      back();
    },
  },
  { name: 'starved', run: () => starve(3_000) },
  {
    name: 'failover',
    run: async () => {
      away();
      if (!primary.halt('immediate')) throw new Error('crash failed');
      await sleep(1_000);
      if (!standby.promote()) throw new Error('promote failed');
      back();
    },
  },
];

interface Result {
  drill: string;
  awayMs: number;
  firstWriteMs: number | null;
  answered503: number;
  otherFailures: number;
}
const results: Result[] = [];
await sleep(3_000);
for (const drill of drills) {
  const from = outcomes.length;
  await drill.run();
  let first: Outcome | undefined;
  for (let waited = 0; !first && waited < 30_000; waited += 10) {
    first = outcomes.slice(from).find((o) => o.at >= returned && (o.status === 200 || o.status === 201));
    if (!first) await sleep(10);
  }
  const window = outcomes.slice(from).filter((o) => o.at >= outageStart && (!first || o.at <= first.at));
  results.push({
    drill: drill.name,
    awayMs: returned - outageStart,
    firstWriteMs: first ? first.at - returned : null,
    answered503: window.filter((o) => o.status === 503).length,
    otherFailures: outcomes.slice(from).filter((o) => o.status !== 503 && o.status !== 200 && o.status !== 201).length,
  });
  console.log(JSON.stringify(results.at(-1)));
  await sleep(3_000);
}
running = false;
clearInterval(arrivals);
await Promise.all(clients);
await sleep(2_000);

// Every acknowledged create, on the last primary: once.
const rows = standby
  .psql("SELECT substring(m.body from '(?:drill|arrival)-[0-9]+') || ' ' || i.id FROM svc_inbox.items i JOIN svc_inbox.messages m ON m.item_id = i.id WHERE m.body LIKE 'Drill message %'", 'inbox')
  .split('\n')
  .filter(Boolean)
  .map((line) => line.split(' ') as [string, string]);
const found = new Map<string, string[]>();
for (const [key, id] of rows) found.set(key, [...(found.get(key) ?? []), id]);
let lost = 0;
let twice = 0;
for (const [key, id] of acknowledged) {
  const ids = found.get(key) ?? [];
  if (ids.length === 0 || !ids.includes(id)) lost++;
  if (ids.length > 1) twice++;
}
const refusedButStored = [...refusedNothingSaved].filter((key) => found.has(key)).length;
const alive = children.every((c) => c.exitCode === null);
const summary = { acknowledged: acknowledged.size, lost, storedTwice: twice, refused: refusedNothingSaved.size, refusedButStored, processesAlive: alive, requests: outcomes.length };
console.log(JSON.stringify(summary));
console.log('\n| drill | database away | return → first successful create | creates answered 503 | other failures |\n|---|---|---|---|---|');
for (const r of results) console.log(`| ${r.drill} | ${(r.awayMs / 1000).toFixed(2)} s | ${r.firstWriteMs === null ? 'none in 30 s' : `${(r.firstWriteMs / 1000).toFixed(2)} s`} | ${r.answered503} | ${r.otherFailures} |`);
const resultsDir = join(root, 'bench/results');
mkdirSync(resultsDir, { recursive: true });
const file = join(resultsDir, `postgres-drills-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
writeFileSync(file, JSON.stringify({ at: new Date().toISOString(), fsync: FSYNC, version: primary.version, results, summary }, null, 2));
console.log(`\n${file}`);
process.exit(lost === 0 && twice === 0 && refusedButStored === 0 && alive ? 0 : 1);
