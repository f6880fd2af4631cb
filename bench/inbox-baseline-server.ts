/**
 * Baselines of bench/inbox.ts, in their own process like the inbox:
 *
 * - POST /insert: a bare Fastify route that parses the same JSON body (Fastify's own parser) and
 *   inserts one row with a unique key into SQLite (better-sqlite3 as the services load it, WAL, synchronous NORMAL) inside
 *   a transaction, answering a small JSON 201.
 * - GET /bytes/<name>: a bare Fastify route serving the bytes of a public read, as captured from the
 *   inbox (files <name>.json in BYTES_DIR, read at start), with the same content type.
 * - POST /verify-insert (bench/receipt-ack.ts): takes {ack}, a compact JWS carrying its Ed25519 public
 *   key in its header, verifies its one signature with node:crypto and inserts one row as /insert does.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPublicKey, randomBytes, verify } from 'node:crypto';
import Fastify from 'fastify';
import { sqliteDriver } from '../packages/shared/dist/index.js';

const report = (value: Record<string, unknown>): void => void writeSync(3, `${JSON.stringify(value)}\n`);
const dir = mkdtempSync(join(tmpdir(), 'bench-inbox-baseline-'));
// The driver the services use on this Node (better-sqlite3 12 on Node 20, 13 on Node 22+).
const SQLite = sqliteDriver();
const db = new SQLite(join(dir, 'baseline.sqlite'));
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.exec('CREATE TABLE rows (id TEXT PRIMARY KEY, body TEXT NOT NULL, created_at INTEGER NOT NULL)');
const insert = db.prepare('INSERT INTO rows (id, body, created_at) VALUES (?, ?, ?)');
const insertOne = db.transaction((id: string, body: string, at: number) => insert.run(id, body, at));

const bodies = new Map<string, string>();
const bytesDir = process.env.BYTES_DIR;
if (bytesDir) for (const file of readdirSync(bytesDir)) if (file.endsWith('.json')) bodies.set(file.slice(0, -5), readFileSync(join(bytesDir, file), 'utf8'));

const app = Fastify({ logger: false });
app.post('/insert', async (request, reply) => {
  const id = randomBytes(12).toString('base64url');
  insertOne(id, JSON.stringify(request.body), Date.now());
  return reply.code(201).send({ id, state: 'created' });
});
app.post<{ Body: { ack: string } }>('/verify-insert', async (request, reply) => {
  const [header, payload, signature] = String(request.body.ack).split('.') as [string, string, string];
  const { jwk } = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as { jwk: { kty: string; crv: string; x: string } };
  const key = createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x }, format: 'jwk' });
  if (!verify(null, Buffer.from(`${header}.${payload}`, 'ascii'), key, Buffer.from(signature, 'base64url'))) return reply.code(422).send({ error: 'bad signature' });
  const id = randomBytes(12).toString('base64url');
  insertOne(id, request.body.ack, Date.now());
  return reply.code(200).send({ id, acknowledged: true });
});
app.get<{ Params: { name: string } }>('/bytes/:name', async (request, reply) => {
  const body = bodies.get(request.params.name);
  if (body === undefined) return reply.code(404).send({ error: 'unknown' });
  return reply.type('application/json; charset=utf-8').send(body);
});
const address = await app.listen({ host: '127.0.0.1', port: 0 });
report({ ready: true, address });
// SIGHUP: report the process's CPU time so far (µs), so the bench can tell the CPU a request costs whatever else runs on the machine.
process.on('SIGHUP', () => {
  const { user, system } = process.cpuUsage();
  report({ cpuMicros: user + system });
});
process.on('SIGTERM', () => {
  report({ stopped: true });
  void app.close().then(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  });
});
