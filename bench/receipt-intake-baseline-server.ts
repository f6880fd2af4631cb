/**
 * Baseline for bench/receipt-intake.ts: a bare Fastify route that verifies one Ed25519 signature and
 * inserts one row through Kysely into SQLite (the same driver and settings the directory opens its
 * file with), nothing else. Prints one JSON line when ready.
 */
import { verify, createPublicKey } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { sql } from 'kysely';
import { openSqlite } from '../packages/shared/dist/index.js';

const publicKey = createPublicKey({ key: JSON.parse(process.env.BENCH_BASELINE_KEY as string), format: 'jwk' });
const migrations = {
  '0001': {
    up: async (db: never) => {
      await sql`CREATE TABLE messages (id TEXT PRIMARY KEY, body TEXT NOT NULL, at INTEGER NOT NULL)`.execute(db);
    },
  },
};
const dir = mkdtempSync(join(tmpdir(), 'bench-baseline-'));
const { db } = await openSqlite<{ messages: { id: string; body: string; at: number } }>(join(dir, 'bare.sqlite'), migrations);

const app = Fastify({ logger: false, bodyLimit: 16 * 1024 });
app.post<{ Body: { id: string; message: string; signature: string } }>('/bare', async (request, reply) => {
  const { id, message, signature } = request.body;
  if (!verify(null, Buffer.from(message, 'utf8'), publicKey, Buffer.from(signature, 'base64url'))) return reply.code(401).send({ ok: false });
  await db.insertInto('messages').values({ id, body: message, at: Date.now() }).execute();
  return reply.code(201).send({ ok: true, id });
});
const address = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`${JSON.stringify({ ready: true, address })}\n`);
process.on('SIGTERM', () =>
  void app
    .close()
    .then(() => db.destroy())
    .then(() => {
      rmSync(dir, { recursive: true, force: true });
      process.exit(0);
    }),
);
