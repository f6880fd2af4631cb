/**
 * A directory node under uncached searches while its PostgreSQL is stopped (fast) and crashed
 * (`immediate`), on a server of the test's own (docs/storage.md "When the database goes away"). The
 * node, its answer worker and its search index used to end with the server's connection
 * (node-postgres's unhandled `error` on a checked-out connection). Held: the process keeps running;
 * a search meanwhile answers (from the index and pages it can read) or is a 503 `storage_unavailable`
 * with Retry-After, never a 500 or a closed socket; searches answer 200 again within a second of the
 * server's return.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownPostgres, ownPostgresUnavailable, serviceDatabase, type PostgresServer } from '../../../test-support/own-postgres.js';

const skip = ownPostgresUnavailable('a directory node through database restarts');
if (skip) console.warn(skip);

const NODE = fileURLToPath(new URL('./support/directory-process.ts', import.meta.url));
const QUERIES = ['q=cafe', 'q=bakery&open_now=true', 'near=38.72,-9.14&radius_km=50', 'q=hair', 'category=food', 'q=book&limit=5'];

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

describe.skipIf(skip !== null)(skip ?? 'a directory node under uncached searches through a stopped and a crashed PostgreSQL', () => {
  let server: PostgresServer;
  let child: ChildProcess;
  let base = '';
  let dataDir = '';
  const output: string[] = [];

  beforeAll(async () => {
    server = await ownPostgres({ synchronousCommit: true });
    const url = serviceDatabase(server, { database: 'directory', role: 'svc_directory', password: 'directory pass phrase' });
    dataDir = mkdtempSync(join(tmpdir(), 'directory-restart-'));
    const port = await freePort();
    child = spawn(process.execPath, ['--import', 'tsx', NODE], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        DATA_DIR: dataDir,
        DIRECTORY_PORT: String(port),
        DIRECTORY_DATABASE_URL: url,
        DIRECTORY_PUBLIC_URL: `http://127.0.0.1:${port}`,
        DIRECTORY_DATABASE_CONNECT_TIMEOUT_MS: '2000',
        DIRECTORY_ANSWER_CACHE: 'off',
        DIRECTORY_ANSWER_WORKERS: '1',
        DIRECTORY_DEMO_LISTINGS: '120',
        DIRECTORY_CHECKS: 'off',
        LOG_LEVEL: 'warn',
      },
    });
    child.stderr?.on('data', (chunk: Buffer) => void output.push(chunk.toString('utf8')));
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout as NodeJS.ReadableStream }).once('line', resolve);
      child.once('exit', (code) => reject(new Error(`the directory exited with ${code}:\n${output.join('')}`)));
    });
    base = (JSON.parse(line) as { baseUrl: string }).baseUrl;
  }, 120_000);

  afterAll(() => {
    child?.kill('SIGKILL');
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    server?.stop();
  });

  it('keeps answering: 200, or 503 storage_unavailable with Retry-After while the server is away; back within a second', { timeout: 90_000 }, async () => {
    const failures: string[] = [];
    const refusals: { status: number; retryAfter: string | null; body: Record<string, unknown> }[] = [];
    const successes: number[] = [];
    let running = true;
    let n = 0;
    const searchers = Array.from({ length: 4 }, async () => {
      while (running) {
        const query = QUERIES[n++ % QUERIES.length];
        try {
          const response = await fetch(`${base}/v1/businesses?${query}`);
          const body = (await response.json()) as Record<string, unknown>;
          if (response.status === 200) successes.push(Date.now());
          else if (response.status === 503) refusals.push({ status: 503, retryAfter: response.headers.get('retry-after'), body });
          else failures.push(`${query}: ${response.status} ${JSON.stringify(body)}`);
        } catch (error) {
          failures.push(`${query}: ${String(error)}`);
          await sleep(50);
        }
      }
    });
    const comebacks: number[] = [];
    try {
      // The first searches prepare the hour and start the answer worker.
      for (let waited = 0; successes.length < 20; waited += 50) {
        if (waited > 30_000) throw new Error(`no searches answered in 30 s: ${failures.join('; ')}`);
        await sleep(50);
      }
      for (const mode of ['fast', 'immediate'] as const) {
        expect(server.halt(mode)).toBe(true);
        await sleep(700);
        expect(server.resume()).toBe(true);
        const back = Date.now();
        while (!successes.some((t) => t >= back)) {
          if (Date.now() - back > 10_000) throw new Error(`no search succeeded within 10 s of the ${mode} restart`);
          await sleep(10);
        }
        comebacks.push(successes.find((t) => t >= back)! - back);
        await sleep(800);
      }
    } finally {
      running = false;
      await Promise.all(searchers);
    }
    expect(failures).toEqual([]);
    expect(child.exitCode, output.join('')).toBeNull();
    for (const refusal of refusals) {
      expect(refusal.body).toMatchObject({ code: 'storage_unavailable' });
      expect(refusal.retryAfter).toMatch(/^[1-9]\d*$/);
    }
    for (const comeback of comebacks) expect(comeback, `first search after the server came back (${comebacks.join(', ')} ms)`).toBeLessThan(1_000);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
  });
});
