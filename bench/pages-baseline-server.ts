/** Baseline of bench/pages.ts: a bare Fastify route per page serving that page's bytes, as HTML, precomputed (compressed bytes with their Content-Encoding). */
import { readFileSync } from 'node:fs';
import { writeSync } from 'node:fs';
import Fastify from 'fastify';

const pages = JSON.parse(readFileSync(process.env.PAGES_FILE as string, 'utf8')) as Record<string, { body: string; encoding: string | null }>;
const app = Fastify({ logger: false });
for (const [name, { body, encoding }] of Object.entries(pages)) {
  const bytes = Buffer.from(body, 'base64');
  if (encoding) app.get(`/${name}`, async (_request, reply) => reply.type('text/html; charset=utf-8').header('content-encoding', encoding).send(bytes));
  else app.get(`/${name}`, async (_request, reply) => reply.type('text/html; charset=utf-8').send(bytes));
}
const address = await app.listen({ host: '127.0.0.1', port: 0 });
writeSync(3, `${JSON.stringify({ ready: true, address })}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
