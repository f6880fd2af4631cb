/**
 * The directory as a page on another origin and an HTTP client meet it (docs/http.md): every path is
 * public, so any origin may read it (preflights answered, the headers clients need exposed), search
 * answers are compressed as asked and keep an ETag per coding, and If-None-Match revalidates.
 */
import { request as httpRequest } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateListings } from '../src/demo/listing-generator.js';
import { taxonomyCategoryPicker } from '../src/demo/seed-directory.js';
import { TestClock, startDirectory, type TestDirectory } from './support/harness.js';

const MONDAY = Date.parse('2026-11-23T10:00:00Z');
const PAGE = 'https://agent-app.example';

let t: TestDirectory;
beforeAll(async () => {
  t = await startDirectory({
    clock: new TestClock(MONDAY),
    listings: generateListings({ count: 300, seed: 4242, nowMs: MONDAY, placeCategoryOf: taxonomyCategoryPicker() }),
    answerWorkers: 0,
  });
});
afterAll(() => t.close());

function raw(path: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${t.baseUrl}${path}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('CORS', () => {
  it('answers a preflight for search and for MCP from any page', async () => {
    for (const [path, method, headers] of [
      ['/v1/businesses', 'GET', 'if-none-match'],
      ['/mcp', 'POST', 'content-type, mcp-protocol-version, accept'],
    ] as const) {
      const r = await t.request('OPTIONS', path, { headers: { origin: PAGE, 'access-control-request-method': method, 'access-control-request-headers': headers } });
      expect(r.status, path).toBe(204);
      expect(r.headers.get('access-control-allow-origin'), path).toBe('*');
      expect(r.headers.get('access-control-allow-methods'), path).toContain(method);
      expect((r.headers.get('access-control-allow-headers') ?? '').toLowerCase(), path).toContain('mcp-protocol-version');
    }
  });

  it('lets any page read a search answer and its ETag', async () => {
    const r = await t.get('/v1/businesses?limit=5', { origin: PAGE });
    expect(r.status).toBe(200);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    expect((r.headers.get('access-control-expose-headers') ?? '').toLowerCase()).toContain('etag');
  });

  it('serves the public MCP to a page of any origin', async () => {
    const r = await t.request('POST', '/mcp', {
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
      headers: { origin: PAGE, accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
  });
});

describe('compression and revalidation of search answers', () => {
  it('sends a search page in br or gzip, the same bytes decoded, each coding with its own tag', async () => {
    const path = '/v1/businesses?limit=50';
    const plain = await raw(path, { 'accept-encoding': 'identity' });
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    const plainTag = String(plain.headers.etag);
    for (const [coding, decode] of [
      ['br', brotliDecompressSync],
      ['gzip', gunzipSync],
    ] as const) {
      const r = await raw(path, { 'accept-encoding': `${coding}, deflate` });
      expect(r.headers['content-encoding']).toBe(coding);
      expect(r.headers.vary).toContain('Accept-Encoding');
      expect(decode(r.bytes).equals(plain.bytes)).toBe(true);
      expect(r.bytes.length).toBeLessThan(plain.bytes.length / 2);
      expect(r.headers.etag).toBe(plainTag.replace(/"$/, `-${coding}"`));
      // A tag of any coding revalidates the content: 304 names the tag the client holds.
      const again = await raw(path, { 'accept-encoding': coding, 'if-none-match': plainTag });
      expect(again.status).toBe(304);
      expect(again.bytes.length).toBe(0);
    }
  });

  it('prefers the coding with the higher q, and sends identity when nothing acceptable is offered', async () => {
    const path = '/v1/businesses?limit=50';
    expect((await raw(path, { 'accept-encoding': 'br;q=0.5, gzip;q=0.9' })).headers['content-encoding']).toBe('gzip');
    expect((await raw(path, { 'accept-encoding': 'br;q=0, gzip;q=0' })).headers['content-encoding']).toBeUndefined();
    expect((await raw(path, { 'accept-encoding': 'deflate' })).headers['content-encoding']).toBeUndefined();
  });
});

describe('security headers on every answer', () => {
  it('sends nosniff and the API policy on answers and problems', async () => {
    for (const [path, status] of [
      ['/v1/businesses?limit=2', 200],
      ['/v1/businesses?limit=0', 400],
      ['/nothing-here', 404],
    ] as const) {
      const r = await t.get(path);
      expect(r.status, path).toBe(status);
      expect(r.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(r.headers.get('content-security-policy'), path).toBe("default-src 'none';frame-ancestors 'none'");
      expect(r.headers.get('cross-origin-resource-policy'), path).toBe('cross-origin');
    }
  });
});
