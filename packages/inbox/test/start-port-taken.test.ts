/**
 * `npm start`'s entry point (scripts/start.mjs, on the built packages) when a port is taken on the
 * first start (issue 19): it stops with a message naming the port and the setting to change, and
 * makes no owner key it would never show; the next start that listens makes the key and shows it,
 * and the key works.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteFile } from '@svc/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = new URL('../../../', import.meta.url).pathname;
const START = join(ROOT, 'scripts/start.mjs');
const BUILT = [join(ROOT, 'packages/inbox/dist/main.js'), join(ROOT, 'packages/directory/dist/main.js')];

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Holds a port on 127.0.0.1 the way another program would. */
async function occupy(port = 0): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return { port: (server.address() as { port: number }).port, server };
}

async function release(server: Server): Promise<void> {
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** A port free right now. */
async function freePort(): Promise<number> {
  const { port, server } = await occupy();
  await release(server);
  return port;
}

function environment(dataDir: string, inboxPort: number, directoryPort: number): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DATA_DIR: dataDir,
    INBOX_PORT: String(inboxPort),
    DIRECTORY_PORT: String(directoryPort),
    INBOX_HOST: '127.0.0.1',
    DIRECTORY_HOST: '127.0.0.1',
    DIRECTORY_SEED_DEMO: 'false',
    DIRECTORY_ANSWER_WORKERS: '0',
    // The local web of sample sites and their checks are not what this test is about.
    DIRECTORY_LOCAL_WEB: 'off',
    LOG_LEVEL: 'warn',
  };
}

/**
 * Runs the entry point until it exits, or until `until` matches its output: then `meanwhile` runs
 * against the live service and the service is stopped with SIGTERM.
 */
function runStart(env: NodeJS.ProcessEnv, until?: RegExp, meanwhile?: (stdout: string) => Promise<void>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [START], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const run: Run = { code: null, stdout: '', stderr: '' };
    // A bound for a start that hangs; a busy machine can take many seconds for a good one.
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    let matched = false;
    child.stdout.on('data', (chunk: Buffer) => {
      run.stdout += chunk.toString();
      if (matched || !until?.test(run.stdout)) return;
      matched = true;
      void (meanwhile?.(run.stdout) ?? Promise.resolve()).catch(reject).finally(() => child.kill('SIGTERM'));
    });
    child.stderr.on('data', (chunk: Buffer) => void (run.stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      run.code = code;
      resolve(run);
    });
  });
}

function ownerKeysIn(dataDir: string): number {
  const file = join(dataDir, 'inbox.sqlite');
  if (!existsSync(file)) return 0;
  const db = openSqliteFile(file, { readonly: true });
  try {
    return (db.prepare("select count(*) as n from api_keys where kind = 'owner'").get() as { n: number }).n;
  } finally {
    db.close();
  }
}

const KEY_BLOCK = /YOUR OWNER KEY[^\n]*\n\s*\n\s*(\S+)\s*\n/;

describe('npm start when a port is taken on the first start', { timeout: 90_000 }, () => {
  let dataDir: string;
  beforeAll(() => {
    const missing = BUILT.filter((file) => !existsSync(file));
    if (missing.length > 0) throw new Error(`build first (npm run build): ${missing.join(', ')} is missing`);
    dataDir = mkdtempSync(join(tmpdir(), 'start-port-taken-'));
  });
  afterAll(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("stops naming the inbox's port and INBOX_PORT, and makes no owner key", async () => {
    const taken = await occupy();
    try {
      const run = await runStart(environment(dataDir, taken.port, await freePort()));
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr).toContain(`The inbox cannot listen on 127.0.0.1:${taken.port}: port ${taken.port} is already in use by another program.`);
      expect(run.stderr).toMatch(/choose another port with INBOX_PORT \(for example INBOX_PORT=\d+\)/);
      expect(run.stderr).toContain('No owner key was made yet: it is made and shown at the first start that listens.');
      // The plain sentence, not a stack trace.
      expect(run.stderr).not.toMatch(/\n\s+at /);
      expect(run.stdout).not.toContain('YOUR OWNER KEY');
      expect(ownerKeysIn(dataDir)).toBe(0);
    } finally {
      await release(taken.server);
    }
  });

  it("stops naming the directory's port and DIRECTORY_PORT when that one is taken", async () => {
    const taken = await occupy();
    try {
      const run = await runStart(environment(dataDir, await freePort(), taken.port));
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr).toContain(`The directory cannot listen on 127.0.0.1:${taken.port}: port ${taken.port} is already in use by another program.`);
      expect(run.stderr).toContain('DIRECTORY_PORT');
      expect(ownerKeysIn(dataDir)).toBe(0);
    } finally {
      await release(taken.server);
    }
  });

  it('makes the key at the next start that listens, shows it, and the key works', async () => {
    const inboxPort = await freePort();
    let works: number | null = null;
    const run = await runStart(environment(dataDir, inboxPort, await freePort()), KEY_BLOCK, async (stdout) => {
      const key = KEY_BLOCK.exec(stdout)?.[1] as string;
      works = (await fetch(`http://127.0.0.1:${inboxPort}/v1/owner/items`, { headers: { authorization: `Bearer ${key}` } })).status;
    });
    expect(run.stdout, run.stderr).toMatch(KEY_BLOCK);
    expect(run.stdout).toContain(`Business inbox running at http://127.0.0.1:${inboxPort}`);
    // The start says plainly whether scopes are enforced (logged-first by default).
    expect(run.stdout).toContain('scopes           recorded, NOT enforced');
    expect(works).toBe(200);
    expect(ownerKeysIn(dataDir)).toBe(1);
  });
});

describe('npm start with a setting it cannot take', { timeout: 90_000 }, () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'start-bad-setting-'));
  });
  afterAll(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  for (const [setting, value, said] of [
    ['DIRECTORY_ANSWER_WORKER_YOUNG_MB', 'big', 'DIRECTORY_ANSWER_WORKER_YOUNG_MB must be a whole number from 0 to 1024, not big'],
    ['INBOX_PORT', 'eighty', 'INBOX_PORT must be a port number, not eighty'],
    ['TRUST_PROXY', 'maybe-not', "TRUST_PROXY must be true, a number of hops, or the proxies' addresses or CIDRs separated by commas, not maybe-not"],
    ['INBOX_SECRET_KEY', 'abc', 'INBOX_SECRET_KEY must be base64 of 32 bytes (such as `openssl rand -base64 32`); it holds 2'],
    ['DIRECTORY_PERSONS_KEY', 'xyz', 'DIRECTORY_PERSONS_KEY must be base64 of 32 bytes (such as `openssl rand -base64 32`); it holds 2'],
  ] as const) {
    it(`stops on ${setting}=${value}, saying which setting and what it takes, without a stack`, async () => {
      const run = await runStart({ ...environment(dataDir, await freePort(), await freePort()), [setting]: value });
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr).toContain(`npm start stopped: ${said}`);
      expect(run.stderr).not.toMatch(/\n\s+at /);
      expect(ownerKeysIn(dataDir)).toBe(0);
    });
  }
});
