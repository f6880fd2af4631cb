/**
 * Benchmark server for bench/receipt-intake.ts: a directory (compiled code, as `npm start` serves it)
 * on a fresh data folder with its burst budgets off (DIRECTORY_RATE_LIMIT=0, docs/security.md), its
 * public URL its own listen address, and beside it the inbox whose receipts are published: a tiny
 * server on 127.0.0.1 serving that inbox's manifest with its key (BENCH_INBOX_KEY, a private JWK from
 * the driver), registered with a signed call and verified before the run. Prints one JSON line when ready.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ed25519PublicJwk, signInstanceRequest, type Ed25519PrivateJwk } from '../packages/shared/dist/index.js';
import { buildDirectory } from '../packages/directory/dist/app.js';

const key = JSON.parse(process.env.BENCH_INBOX_KEY as string) as Ed25519PrivateJwk;

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createNetServer();
    probe.listen(0, '127.0.0.1', () => {
      const port = (probe.address() as { port: number }).port;
      probe.close(() => resolve(port));
    });
  });
}

// The inbox's manifest, with its signing key.
let inboxOrigin = '';
const inbox: Server = createServer((req, res) => {
  if (req.url !== '/.well-known/agent-inbox.json') return void res.writeHead(404).end();
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(
    JSON.stringify({
      spec: 'svc-inbox/0',
      instance: inboxOrigin,
      item_types: ['booking', 'order'],
      protocols: { rest: `${inboxOrigin}/v1` },
      profile: { name: 'Bench Salon', categories: ['hair-beauty'], services: [{ name: 'Cut', type: 'booking' }] },
      receipt_keys: { keys: [ed25519PublicJwk(key)] },
    }),
  );
});
await new Promise<void>((resolve) => inbox.listen(0, '127.0.0.1', resolve));
inboxOrigin = `http://127.0.0.1:${(inbox.address() as { port: number }).port}`;

const port = await freePort();
const baseUrl = `http://127.0.0.1:${port}`;
const dataDir = mkdtempSync(join(tmpdir(), 'bench-receipt-intake-'));
const directory = await buildDirectory({
  dataDir,
  baseUrl,
  allowLocalInboxes: true,
  logLevel: 'silent',
  rateLimit: 0,
  answerWorkers: 0,
  hourlyTimer: false,
});
await directory.http.listen({ host: '127.0.0.1', port });

// Registered and verified, as a real inbox would be.
const body = JSON.stringify({ domain: new URL(inboxOrigin).host });
const headers = signInstanceRequest({ method: 'POST', url: `${baseUrl}/v1/instances`, body, instance: inboxOrigin, privateJwk: key, allowHttpInstance: true });
const registered = await fetch(`${baseUrl}/v1/instances`, { method: 'POST', body, headers: { ...headers, 'content-type': 'application/json' } });
if (registered.status !== 202) throw new Error(`registration answered ${registered.status}: ${await registered.text()}`);
for (let i = 0; i < 50; i++) {
  await directory.jobs.runDue();
  const status = (await (await fetch(`${baseUrl}/v1/instances/${encodeURIComponent(new URL(inboxOrigin).host)}/status`)).json()) as { status: string };
  if (status.status === 'verified') break;
  await new Promise((resolve) => setTimeout(resolve, 100));
}
process.stdout.write(`${JSON.stringify({ ready: true, address: baseUrl, inboxOrigin })}\n`);
process.on('SIGTERM', () =>
  void directory.close().then(() =>
    inbox.close(() => {
      rmSync(dataDir, { recursive: true, force: true });
      process.exit(0);
    }),
  ),
);
