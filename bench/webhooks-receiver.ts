/**
 * Receivers for bench/webhooks.ts, in their own process so they do not share the sender's event
 * loop: `count` HTTP servers on 127.0.0.1 answering 204, each arrival's latency measured as arrival
 * time minus the body's `timestamp` (the event's commit time). A control server answers
 * GET /stats (with every latency), GET /wait?count=N (answers, without latencies, once N deliveries
 * have arrived or `timeoutMs` passed: one waiting request, so the sender being measured is not also
 * busy polling) and POST /reset. With a second argument, that many dead receivers as well: they
 * accept the connection, read the request and never answer (bench/webhooks-dead-endpoint.ts). Prints
 * one JSON line {urls, dead, control} once listening.
 */
import { createServer } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';

const count = Number(process.argv[2] ?? 10);
const deadCount = Number(process.argv[3] ?? 0);
let latencies: number[] = [];
let firstAt = 0;
let lastAt = 0;
const ids = new Set<string>();
/** Long-polls of GET /wait: answered as soon as their count is reached. */
let waiters: { count: number; answer: () => void }[] = [];
const summary = () => JSON.stringify({ received: latencies.length, distinct: ids.size, firstAt, lastAt });
function answerWaiters(): void {
  if (waiters.length === 0) return;
  const due = waiters.filter((w) => latencies.length >= w.count);
  if (due.length === 0) return;
  waiters = waiters.filter((w) => latencies.length < w.count);
  for (const w of due) w.answer();
}

const urls: string[] = [];
for (let n = 0; n < count; n += 1) {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const now = Date.now();
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { timestamp: string };
      latencies.push(now - Date.parse(body.timestamp));
      ids.add(`${n}|${String(request.headers['webhook-id'])}`);
      if (firstAt === 0) firstAt = now;
      lastAt = now;
      response.statusCode = 204;
      response.end();
      answerWaiters();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  urls.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`);
}

const dead: string[] = [];
const deadSockets = new Set<Socket>();
for (let n = 0; n < deadCount; n += 1) {
  // Takes every byte and answers none: the sender waits for its timeout.
  const server = createTcpServer((socket) => {
    deadSockets.add(socket);
    socket.on('data', () => undefined);
    socket.on('error', () => undefined);
    socket.on('close', () => deadSockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  dead.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`);
}

const control = createServer((request, response) => {
  if (request.method === 'POST') {
    latencies = [];
    ids.clear();
    firstAt = 0;
    lastAt = 0;
    response.end('{}');
    return;
  }
  response.setHeader('content-type', 'application/json');
  const url = new URL(request.url ?? '/', 'http://control');
  if (url.pathname === '/wait') {
    const count = Number(url.searchParams.get('count'));
    const answer = () => {
      clearTimeout(timer);
      response.end(summary());
    };
    const timer = setTimeout(() => {
      waiters = waiters.filter((w) => w.answer !== answer);
      answer();
    }, Number(url.searchParams.get('timeoutMs') ?? 120_000));
    waiters.push({ count, answer });
    answerWaiters();
    return;
  }
  response.end(JSON.stringify({ received: latencies.length, distinct: ids.size, firstAt, lastAt, latencies }));
});
await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve));
process.stdout.write(`${JSON.stringify({ urls, dead, control: `http://127.0.0.1:${(control.address() as AddressInfo).port}` })}\n`);
