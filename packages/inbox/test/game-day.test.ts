/**
 * A game day in CI (docs/storage.md "When the database goes away"): two inbox processes, each started
 * as an operator starts one (src/cli/start.ts), on one PostgreSQL database of the test's own, as a role
 * that is not a superuser; eight clients create messages through both with idempotency keys, retrying
 * a 503 with the same key; the server is stopped (fast) and started, then crashed (`immediate`) and
 * started. Held: both processes keep running and answer; a create refused meanwhile is a 503
 * `storage_unavailable` with Retry-After that names the database, never a 500 or a closed socket;
 * /healthz says so and recovers by itself; writes succeed again within a second of the server's
 * return; every acknowledged create is stored once.
 *
 * The server keeps commits synchronous (a crash loses nothing acknowledged) with fsync off for speed:
 * only the server stops here, never the machine.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownPostgres, ownPostgresUnavailable, serviceDatabase, type PostgresServer } from '../../../test-support/own-postgres.js';

const skip = ownPostgresUnavailable('the inbox game day');
if (skip) console.warn(skip);

const CLI = fileURLToPath(new URL('../src/cli/start.ts', import.meta.url));
const CLIENTS = 8;

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

interface InboxProcess {
  child: ChildProcess;
  base: string;
  output: string[];
}

interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

async function call(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

describe.skipIf(skip !== null)(skip ?? 'the inbox game day: two processes through a stopped and a crashed PostgreSQL', () => {
  let server: PostgresServer;
  const processes: InboxProcess[] = [];
  const folders: string[] = [];

  async function startInboxProcess(url: string, secretKey: string): Promise<InboxProcess> {
    const dataDir = mkdtempSync(join(tmpdir(), 'inbox-game-day-'));
    folders.push(dataDir);
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', CLI], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        DATA_DIR: dataDir,
        INBOX_PORT: String(port),
        INBOX_DATABASE_URL: url,
        INBOX_SECRET_KEY: secretKey,
        INBOX_DATABASE_CONNECT_TIMEOUT_MS: '2000',
        LOG_LEVEL: 'warn',
      },
    });
    const output: string[] = [];
    child.stderr?.on('data', (chunk: Buffer) => void output.push(chunk.toString('utf8')));
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    lines.on('line', (line) => void output.push(line));
    await new Promise<void>((resolve, reject) => {
      lines.on('line', (line) => {
        if (line.startsWith('Business inbox running at')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`an inbox process exited with ${code} before it listened:\n${output.join('\n')}`)));
    });
    const made = { child, base: `http://127.0.0.1:${port}`, output };
    processes.push(made);
    return made;
  }

  beforeAll(async () => {
    server = await ownPostgres({ synchronousCommit: true });
    const url = serviceDatabase(server, { database: 'inbox', role: 'svc_inbox', password: 'game day pass phrase' });
    const secretKey = randomBytes(32).toString('base64');
    await Promise.all([startInboxProcess(url, secretKey), startInboxProcess(url, secretKey)]);
  }, 120_000);

  afterAll(() => {
    for (const { child } of processes) child.kill('SIGKILL');
    for (const dir of folders) rmSync(dir, { recursive: true, force: true });
    server?.stop();
  });

  it('keeps both processes answering through a fast stop and a crash; every acknowledged create is stored once', { timeout: 90_000 }, async () => {
    const acknowledged = new Map<string, string>();
    const refusals: Answer[] = [];
    const failures: string[] = [];
    const successes: number[] = [];
    let next = 0;
    let running = true;

    // Each client sends creates in turn, each with its own idempotency key, and sends a refused one again with the same key.
    const clients = Array.from({ length: CLIENTS }, async (_, c) => {
      while (running) {
        const n = next++;
        const key = `game-day-${n}`;
        for (let attempt = 0; ; attempt++) {
          const base = processes[(n + attempt) % processes.length]!.base;
          let answer: Answer;
          try {
            answer = await call(base, 'POST', '/v1/messages', { message: `Game day message ${key}|`, contact: { name: `Client ${c}` } }, { 'idempotency-key': key });
          } catch (error) {
            failures.push(`${key}: ${String(error)}`);
            break;
          }
          if (answer.status === 201 || answer.status === 200) {
            acknowledged.set(key, String(answer.body.id));
            successes.push(Date.now());
            break;
          }
          if (answer.status !== 503) {
            failures.push(`${key}: ${answer.status} ${JSON.stringify(answer.body)}`);
            break;
          }
          refusals.push(answer);
          if (attempt > 200) {
            failures.push(`${key}: still refused after ${attempt} attempts`);
            break;
          }
          // A client told Retry-After would wait that long; the game day keeps time by trying every 100 ms.
          await sleep(100);
        }
      }
    });

    const healthDuringOutage: Answer[] = [];
    const comebacks: number[] = [];
    try {
      await sleep(1_000);
      for (const mode of ['fast', 'immediate'] as const) {
        expect(server.halt(mode)).toBe(true);
        await sleep(700);
        for (const { base } of processes) healthDuringOutage.push(await call(base, 'GET', '/healthz'));
        expect(server.resume()).toBe(true);
        const back = Date.now();
        while (!successes.some((t) => t >= back)) {
          if (Date.now() - back > 10_000) throw new Error(`no create succeeded within 10 s of the ${mode} restart`);
          await sleep(10);
        }
        comebacks.push(successes.find((t) => t >= back)! - back);
        await sleep(1_000);
      }
    } finally {
      running = false;
      await Promise.all(clients);
    }

    expect(failures).toEqual([]);
    for (const comeback of comebacks) expect(comeback, `first create after the server came back (${comebacks.join(', ')} ms)`).toBeLessThan(1_000);
    // Both processes are the ones started at first, and answer.
    for (const { child, base, output } of processes) {
      expect(child.exitCode, output.join('\n')).toBeNull();
      const health = await call(base, 'GET', '/healthz');
      expect(health.status).toBe(200);
      expect(output.join('\n')).not.toMatch(/Unhandled|terminating connection due to administrator command\n\s+at/);
    }
    // While the server was away: 503 storage_unavailable, Retry-After, words about the database; /healthz said so.
    expect(refusals.length).toBeGreaterThan(0);
    for (const refusal of refusals) {
      expect(refusal.body).toMatchObject({ code: 'storage_unavailable', status: 503 });
      expect(refusal.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
      expect(String(refusal.body.detail)).toMatch(/database/);
    }
    for (const health of healthDuringOutage) {
      expect(health.status).toBe(503);
      expect(health.body).toMatchObject({ ok: false, writable: false, storage: { code: 'storage_unavailable' } });
      expect(health.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    }
    // Every acknowledged create is stored once, with the item id it was answered with.
    const stored = server
      .psql("SELECT substring(m.body from 'game-day-[0-9]+') || ' ' || i.id FROM svc_inbox.items i JOIN svc_inbox.messages m ON m.item_id = i.id WHERE i.type = 'message' AND m.body LIKE 'Game day message %'", 'inbox')
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split(' ') as [string, string]);
    const byKey = new Map<string, string[]>();
    for (const [key, id] of stored) byKey.set(key, [...(byKey.get(key) ?? []), id]);
    expect(acknowledged.size).toBeGreaterThan(20);
    for (const [key, id] of acknowledged) expect(byKey.get(key), key).toEqual([id]);
    expect(stored.length).toBe(acknowledged.size);
  });
});
