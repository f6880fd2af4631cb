/**
 * Support for the feed tests: an inbox that may fetch feeds on 127.0.0.1 (allowLocalFeeds, the
 * development setting), and a tiny HTTP server on 127.0.0.1 that serves fixture feeds, changes
 * them on demand, and misbehaves (404, redirect, oversized) on the paths that ask for it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jsonClient } from '../../../test-support/http-client.js';
import { dropTestDatabase, testDatabaseUrl } from '../../../test-support/test-database.js';
import { buildInbox } from '../src/app.js';
import { seedDemoBusiness } from '../src/demo/seed-demo.js';
import { createOwnerKey } from '../src/domain/access/api-keys.js';
import { TestClock, type TestInbox } from './support/harness.js';

export function fixture(name: string): string {
  return readFileSync(new URL(`./fixtures/feeds/${name}`, import.meta.url), 'utf8');
}

export async function startFeedInbox(options: { allowLocalFeeds?: boolean } = {}): Promise<TestInbox> {
  const clock = new TestClock();
  const dataDir = mkdtempSync(join(tmpdir(), 'inbox-feeds-'));
  const inbox = await buildInbox({
    dataDir,
    databaseUrl: await testDatabaseUrl('inbox', dataDir),
    publicBaseUrl: 'http://127.0.0.1',
    clock,
    logLevel: 'silent',
    runJobs: false,
    allowLocalFeeds: options.allowLocalFeeds ?? true,
  });
  await seedDemoBusiness({ store: inbox.store, clock });
  const ownerKey = (await createOwnerKey(inbox.store, 'test owner', clock.now())).value;
  const address = await inbox.http.listen({ host: '127.0.0.1', port: 0 });
  const request = jsonClient(address);
  return {
    inbox,
    baseUrl: address,
    dataDir,
    ownerKey,
    clock,
    request,
    owner: (method, path, opts = {}) => request(method, path, { ...opts, headers: { authorization: `Bearer ${ownerKey}`, ...(opts.headers ?? {}) } }),
    async close() {
      await inbox.close();
      rmSync(dataDir, { recursive: true, force: true });
      await dropTestDatabase('inbox', dataDir);
    },
  };
}

export interface FeedServer {
  origin: string;
  /** Serves `body` at `path` from now on. */
  serve(path: string, body: string, contentType?: string): void;
  /** How many times a path was fetched. */
  hits(path: string): number;
  close(): Promise<void>;
}

/** Paths with fixed misbehaviour: /missing → 404, /moved → 302, /huge → 21 MiB of XML-looking bytes. */
export async function startFeedServer(): Promise<FeedServer> {
  const files = new Map<string, { body: string; contentType: string }>();
  const counts = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    counts.set(path, (counts.get(path) ?? 0) + 1);
    if (path === '/moved') {
      res.writeHead(302, { location: '/feed.xml' }).end();
      return;
    }
    if (path === '/huge') {
      res.writeHead(200, { 'content-type': 'application/xml' });
      const chunk = Buffer.alloc(1024 * 1024, 'x');
      res.write('<rss><channel><title>');
      let sent = 0;
      const pump = () => {
        while (sent < 21) {
          sent += 1;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end('</title></channel></rss>');
      };
      res.on('error', () => undefined);
      pump();
      return;
    }
    const file = files.get(path);
    if (!file) {
      res.writeHead(404, { 'content-type': 'text/html' }).end('<html><body>Not found</body></html>');
      return;
    }
    res.writeHead(200, { 'content-type': file.contentType }).end(file.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    serve: (path, body, contentType = 'application/rss+xml; charset=utf-8') => void files.set(path, { body, contentType }),
    hits: (path) => counts.get(path) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
