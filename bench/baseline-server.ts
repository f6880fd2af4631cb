/** Baseline: a bare Fastify route serving a precomputed page of the same size as a real search page. */
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const body = readFileSync(process.env.PAGE_FILE as string, 'utf8');
const app = Fastify({ logger: false });
app.get('/page', async (_request, reply) => reply.type('application/json; charset=utf-8').send(body));
const address = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`${JSON.stringify({ ready: true, address })}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
