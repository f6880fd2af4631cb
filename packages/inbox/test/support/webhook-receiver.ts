/**
 * A real webhook receiver on 127.0.0.1 for tests: records every request (raw body and headers),
 * verifies Standard Webhooks signatures with the `standardwebhooks` package, and answers with what
 * the test asks for (a status per call, a delay, a redirect). And a dead one: it accepts the
 * connection, reads the request and never answers.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedDelivery {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: any;
  receivedAt: number;
}

export interface Receiver {
  url: string;
  origin: string;
  received: ReceivedDelivery[];
  /** Status (or a function of the delivery) for the next answers; 204 by default. */
  answer: number | ((delivery: ReceivedDelivery) => number);
  /** Milliseconds to wait before answering. */
  delayMs: number;
  /** Verifies a delivery's signature against a secret with standardwebhooks; throws when it does not verify. */
  verify(delivery: ReceivedDelivery, secret: string): unknown;
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedDelivery[]>;
  close(): Promise<void>;
}

export async function startReceiver(path = '/hooks'): Promise<Receiver> {
  const received: ReceivedDelivery[] = [];
  const state: { answer: Receiver['answer']; delayMs: number } = { answer: 204, delayMs: 0 };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown = null;
      try {
        json = JSON.parse(body);
      } catch {
        json = null;
      }
      const delivery: ReceivedDelivery = { path: request.url ?? '', headers: request.headers, body, json, receivedAt: Date.now() };
      received.push(delivery);
      const status = typeof state.answer === 'function' ? state.answer(delivery) : state.answer;
      const reply = () => {
        if (response.destroyed) return;
        if (status >= 300 && status < 400) response.setHeader('location', 'http://127.0.0.1:1/elsewhere');
        response.statusCode = status;
        response.end(status === 204 ? undefined : `status ${status}`);
      };
      if (state.delayMs === 0) reply();
      else setTimeout(reply, state.delayMs).unref();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}${path}`,
    origin,
    received,
    get answer() {
      return state.answer;
    },
    set answer(value) {
      state.answer = value;
    },
    get delayMs() {
      return state.delayMs;
    },
    set delayMs(value) {
      state.delayMs = value;
    },
    verify(delivery, secret) {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(delivery.headers)) if (typeof value === 'string') headers[name] = value;
      return new Webhook(secret).verify(delivery.body, headers);
    },
    async waitFor(count, timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} deliveries, received ${received.length}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return received;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface DeadReceiver {
  url: string;
  /** Each request seen (its webhook-id and svc-delivery-attempt headers), in arrival order. */
  requests: { webhookId: string; attempt: string }[];
  /** The most requests it held at once (each waits until the sender gives up and closes). */
  mostAtOnce(): number;
  close(): Promise<void>;
}

/** A receiver that takes the connection and every byte, and never answers: the sender waits for its timeout. */
export async function startDeadReceiver(path = '/hooks'): Promise<DeadReceiver> {
  const requests: DeadReceiver['requests'] = [];
  const sockets = new Set<Socket>();
  let waiting = 0;
  let most = 0;
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    let head = '';
    let seen = false;
    socket.on('data', (chunk: Buffer) => {
      if (seen) return;
      head += chunk.toString('latin1');
      // One request per connection (never answered, so never reused): its headers, once complete.
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      seen = true;
      const header = (name: string) => new RegExp(`^${name}: *(.*)$`, 'im').exec(head.slice(0, end))?.[1]?.trim() ?? '';
      requests.push({ webhookId: header('webhook-id'), attempt: header('svc-delivery-attempt') });
      waiting += 1;
      most = Math.max(most, waiting);
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      sockets.delete(socket);
      if (seen) waiting -= 1;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`,
    requests,
    mostAtOnce: () => most,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
