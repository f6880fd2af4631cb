/**
 * Cross-origin calls from a real browser (docs/http.md): a page of another origin, in Chromium, reads
 * the directory's search and its ETag; books at the inbox with an Idempotency-Key (a preflight), reads
 * the Location and the item with its token in either header (or the query), sees a replay's Idempotent-Replayed; lists
 * the public MCP's tools; and is refused the owner's REST (the preflight is refused, the fetch rejects).
 *
 * The page is served from http://localhost:<its port>, the services from http://127.0.0.1:<theirs>,
 * so the origins differ in host as well as port. What the page can read is what Chromium lets it:
 * headers not exposed by Access-Control-Expose-Headers are simply absent from what it sees.
 *
 * Chromium: /usr/lib/chromium/chromium, /usr/bin/chromium or CHROMIUM_PATH (scripts/ensure-chromium.mjs
 * installs Debian's when it can). Without one the suite is skipped with a warning, or fails when
 * REQUIRE_BROWSER=1.
 */
// sqlite only: what a browser allows across origins; the routes behind it run on PostgreSQL in owner-app-http.test.ts and oauth-flow.test.ts
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listing, member } from '../../directory/test/support/fixtures.js';
import { startDirectory, type TestDirectory } from '../../directory/test/support/harness.js';
import { startInbox, type TestInbox } from './support/harness.js';

const CHROMIUM = ['/usr/lib/chromium/chromium', '/usr/bin/chromium', process.env.CHROMIUM_PATH].find(
  (path): path is string => typeof path === 'string' && path !== '' && existsSync(path),
);
const REQUIRE_BROWSER = process.env.REQUIRE_BROWSER === '1';
const MISSING = `no Chromium at /usr/lib/chromium/chromium, /usr/bin/chromium or CHROMIUM_PATH (${process.env.CHROMIUM_PATH ?? 'unset'}); run scripts/ensure-chromium.mjs or set CHROMIUM_PATH`;

/** What a page's fetch gave it: the answer as the page sees it (only readable headers), or the error it rejected with. */
type Seen = { ok: true; status: number; headers: Record<string, string>; text: string } | { ok: false; error: string };

/** What the page's window holds, as seen from the evaluated functions (the tests compile without the DOM's types). */
interface PageGlobals {
  call: (url: string, init: unknown) => Promise<Seen>;
  location: { origin: string };
}

/** The foreign page: a helper every step calls, so the evaluated functions stay one call long. */
const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>a page of another origin</title></head><body>
<script>
  window.call = async (url, init) => {
    try {
      const response = await fetch(url, init);
      const headers = {};
      response.headers.forEach((value, name) => { headers[name] = value; });
      return { ok: true, status: response.status, headers, text: await response.text() };
    } catch (error) {
      return { ok: false, error: String(error && error.name) + ': ' + String(error && error.message) };
    }
  };
</script>
</body></html>`;

if (!CHROMIUM && !REQUIRE_BROWSER) console.warn(`browser-cross-origin.test.ts skipped: ${MISSING}`);

if (!CHROMIUM && REQUIRE_BROWSER) {
  describe('cross-origin calls from a browser page', () => {
    it('needs a Chromium (REQUIRE_BROWSER=1)', () => {
      throw new Error(`REQUIRE_BROWSER=1 but ${MISSING}`);
    });
  });
}

(CHROMIUM ? describe : describe.skip)('cross-origin calls from a browser page (Chromium)', () => {
  let inbox: TestInbox;
  let directory: TestDirectory;
  let pageServer: Server;
  let launching: Promise<Browser> | undefined;
  let browser: Browser | undefined;
  let page: Page;
  let pageOrigin: string;
  const consoleLines: string[] = [];

  /** A fetch made by the foreign page. */
  const call = (url: string, init: Record<string, unknown> = {}): Promise<Seen> =>
    page.evaluate(([u, i]) => (globalThis as unknown as PageGlobals).call(u as string, i), [url, init] as const);
  const answered = (seen: Seen): Extract<Seen, { ok: true }> => {
    if (!seen.ok) throw new Error(`the page's fetch rejected: ${seen.error}\nbrowser console:\n${consoleLines.join('\n')}`);
    return seen;
  };

  beforeAll(async () => {
    launching = chromium.launch({
      executablePath: CHROMIUM as string,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    [inbox, directory] = await Promise.all([
      startInbox(),
      startDirectory({
        answerWorkers: 0,
        listings: [member('padaria-um.example', { name: 'Padaria Um' }), listing('padaria-dois.example', { name: 'Padaria Dois' }), listing('cafe-tres.example', { name: 'Cafe Tres' })],
      }),
    ]);
    await directory.directory.search.hour();
    pageServer = createServer((request, response) => {
      if (request.url === '/') {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
        response.end(PAGE);
      } else {
        response.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => pageServer.listen(0, '127.0.0.1', resolve));
    pageOrigin = `http://localhost:${(pageServer.address() as AddressInfo).port}`;
    browser = await launching;
    page = await browser.newPage();
    page.on('console', (message) => consoleLines.push(`${message.type()}: ${message.text()}`));
    await page.goto(`${pageOrigin}/`);
    expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).location.origin)).toBe(pageOrigin);
    expect(new URL(inbox.baseUrl).origin).not.toBe(pageOrigin);
    expect(new URL(directory.baseUrl).origin).not.toBe(pageOrigin);
  }, 20_000);

  afterAll(async () => {
    // Launched even when a service failed to start: closed all the same.
    await (browser ?? (await launching?.catch(() => undefined)))?.close();
    await new Promise((resolve) => (pageServer ? pageServer.close(resolve) : resolve(undefined)));
    await Promise.allSettled([inbox?.close(), directory?.close()]);
  });

  it('reads a directory search and its ETag, and revalidates it with If-None-Match', async () => {
    const seen = answered(await call(`${directory.baseUrl}/v1/businesses?q=padaria`));
    expect(seen.status).toBe(200);
    // Only CORS-safelisted and exposed headers reach the page: what follows is read through the filter.
    expect(seen.headers['access-control-allow-origin']).toBeUndefined();
    const body = JSON.parse(seen.text) as { businesses: { domain: string }[] };
    expect(body.businesses.map((b) => b.domain).sort()).toEqual(['padaria-dois.example', 'padaria-um.example']);
    const etag = seen.headers.etag;
    expect(etag, JSON.stringify(seen.headers)).toMatch(/^(W\/)?"[^"]+"$/);

    // If-None-Match set by the page itself: a preflighted request, and the 304 reaches the page as it is.
    const again = answered(await call(`${directory.baseUrl}/v1/businesses?q=padaria`, { headers: { 'if-none-match': etag }, cache: 'no-store' }));
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
  });

  it('books with an Idempotency-Key, reads Location and the item with its token in either header, and sees a replay', async () => {
    const create = {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': `browser-${Date.now()}` },
      body: JSON.stringify({ payload: { serviceId: 'haircut', startTime: '2026-11-24T10:00:00Z' }, contact: { name: 'Ana Silva', email: 'ana@example.com' } }),
    };
    const created = answered(await call(`${inbox.baseUrl}/v1/bookings`, create));
    expect(created.status, created.text).toBe(201);
    const booking = JSON.parse(created.text) as { id: string; accessToken: string };
    expect(booking.accessToken).toMatch(/^svc_tok_/);
    expect(created.headers.location).toBe(`/v1/items/${booking.id}`);
    expect(created.headers['idempotent-replayed']).toBeUndefined();

    const itemUrl = new URL(created.headers.location!, inbox.baseUrl).href;
    const byBearer = answered(await call(itemUrl, { headers: { authorization: `Bearer ${booking.accessToken}` }, cache: 'no-store' }));
    expect(byBearer.status, byBearer.text).toBe(200);
    expect(JSON.parse(byBearer.text)).toMatchObject({ id: booking.id });
    expect(byBearer.headers.etag).toMatch(/^(W\/)?"[^"]+"$/);

    const byHeader = answered(await call(itemUrl, { headers: { 'x-access-token': booking.accessToken }, cache: 'no-store' }));
    expect(byHeader.status, byHeader.text).toBe(200);
    expect(JSON.parse(byHeader.text)).toMatchObject({ id: booking.id });
    expect(byHeader.headers.etag).toBe(byBearer.headers.etag);

    // The query form needs no header, so no preflight: a simple request.
    const byQuery = answered(await call(`${itemUrl}?access_token=${encodeURIComponent(booking.accessToken)}`, { cache: 'no-store' }));
    expect(byQuery.status, byQuery.text).toBe(200);
    expect(JSON.parse(byQuery.text)).toMatchObject({ id: booking.id });

    // Without the token the refusal is readable too (a problem the page can show).
    const without = answered(await call(itemUrl, { cache: 'no-store' }));
    expect(without.status, without.text).toBe(401);

    const replayed = answered(await call(`${inbox.baseUrl}/v1/bookings`, create));
    expect(replayed.status, replayed.text).toBe(200);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.headers.location).toBe(created.headers.location);
    expect(JSON.parse(replayed.text)).toMatchObject({ id: booking.id });
  });

  it('lists the public MCP\'s tools (JSON or an event stream)', async () => {
    const seen = answered(
      await call(`${inbox.baseUrl}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      }),
    );
    expect(seen.status, seen.text).toBe(200);
    const type = seen.headers['content-type'] ?? '';
    const message = type.includes('text/event-stream')
      ? JSON.parse(
          seen.text
            .split('\n')
            .filter((line) => line.startsWith('data:'))
            .map((line) => line.slice(5).trim())
            .find((data) => data.includes('"id":1'))!,
        )
      : JSON.parse(seen.text);
    const tools = (message as { result: { tools: { name: string }[] } }).result.tools;
    expect(tools.length).toBeGreaterThan(5);
    expect(tools.map((tool) => tool.name)).toContain('create_booking');
  });

  it('cannot call the owner\'s REST: the preflight is refused and the fetch rejects with a TypeError', async () => {
    // The same call from outside a browser works: the refusal is the browser's, on the service's CORS answer.
    const direct = await inbox.owner('GET', '/v1/owner/items');
    expect(direct.status).toBe(200);

    const seen = await call(`${inbox.baseUrl}/v1/owner/items`, { headers: { authorization: `Bearer ${inbox.ownerKey}` }, cache: 'no-store' });
    expect(seen.ok, JSON.stringify(seen)).toBe(false);
    expect((seen as { error: string }).error).toMatch(/^TypeError: /);
    // Chromium says why on the page's console: the preflight's answer allowed no origin.
    await expect.poll(() => consoleLines.find((line) => line.includes('/v1/owner/items') && line.includes('CORS policy')), { timeout: 2_000 }).toMatch(/preflight/i);
  });
});
