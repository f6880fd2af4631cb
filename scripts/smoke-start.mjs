// Proves the README's `npm start` works: starts it on a temporary data folder and a free port,
// waits for the printed URLs, checks health, the manifest and a public read, then stops it.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const freePort = () =>
  new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

const dataDir = mkdtempSync(join(tmpdir(), 'inbox-start-'));
const port = await freePort();
const directoryPort = await freePort();
const child = spawn('npm', ['start'], {
  env: { ...process.env, DATA_DIR: dataDir, INBOX_PORT: String(port), DIRECTORY_PORT: String(directoryPort), LOG_LEVEL: 'warn' },
  stdio: ['ignore', 'pipe', 'inherit'],
  detached: true,
});
let output = '';
child.stdout.on('data', (chunk) => {
  output += chunk;
});

const stop = () => {
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    /* already gone */
  }
  rmSync(dataDir, { recursive: true, force: true });
};

const deadline = Date.now() + 180_000;
let failure = null;
try {
  while (!output.includes('the inbox') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
  if (!output.includes('the inbox')) throw new Error('npm start printed no URLs within 3 minutes');
  const base = `http://127.0.0.1:${port}`;
  const key = /svc_own_[A-Za-z0-9_-]+/.exec(output)?.[0];
  if (!key) throw new Error('npm start did not print an owner key on first start');
  const health = await (await fetch(`${base}/healthz`)).json();
  if (health.ok !== true) throw new Error(`healthz answered ${JSON.stringify(health)}`);
  const manifest = await (await fetch(`${base}/.well-known/agent-inbox.json`)).json();
  if (!manifest.protocols?.openapi) throw new Error('manifest lacks the OpenAPI door');
  const services = await (await fetch(`${base}/v1/services`)).json();
  if (!Array.isArray(services.items) || services.items.length === 0) throw new Error('the demo business has no services');
  const items = await fetch(`${base}/v1/owner/items`, { headers: { authorization: `Bearer ${key}` } });
  if (items.status !== 200) throw new Error(`owner list answered ${items.status} with the printed key`);
  const directory = `http://127.0.0.1:${directoryPort}`;
  const dirHealth = await (await fetch(`${directory}/healthz`)).json();
  if (dirHealth.ok !== true) throw new Error(`directory healthz answered ${JSON.stringify(dirHealth)}`);
  const listing = await fetch(`${directory}/v1/businesses/127.0.0.1:${port}`);
  const member = await listing.json();
  if (listing.status !== 200 || member.source !== 'member') throw new Error(`the inbox is not listed as a member: ${listing.status} ${JSON.stringify(member).slice(0, 300)}`);
  const search = await (await fetch(`${directory}/v1/businesses?q=cafe&limit=5`)).json();
  if (!Array.isArray(search.businesses) || search.businesses.length === 0) throw new Error('the demo directory finds no cafe');
  console.log(`npm start: inbox at ${base} and directory at ${directory} serving; the inbox is listed as a member`);
} catch (error) {
  failure = error;
  console.error(`npm start smoke check failed: ${error.message}\n--- output ---\n${output}`);
} finally {
  stop();
}
process.exit(failure ? 1 : 0);
