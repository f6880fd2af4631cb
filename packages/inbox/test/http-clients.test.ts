/**
 * What a client developer meets first over HTTP (docs/http.md): CORS for pages on other origins
 * (public paths open, owner paths only for CORS_OWNER_ORIGINS), the item token in every form the
 * challenge names, ETag and 304 on public reads, compressed answers, and no secret in any log line.
 */
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildInbox } from '../src/app.js';
import { createOwnerKey } from '../src/domain/access/api-keys.js';
import { seedDemoBusiness } from '../src/demo/seed-demo.js';
import { TestClock, startInbox, type TestInbox } from './support/harness.js';
import { createBooking } from './support/customer-calls.js';
import { makeKey, withKey } from './support/integration-keys.js';
import { dropTestDatabase, testDatabaseUrl } from '../../../test-support/test-database.js';

const PAGE = 'https://agent-app.example';
const OWNER_PAGE = 'https://owner-console.example';

let t: TestInbox;
beforeAll(async () => {
  process.env.CORS_OWNER_ORIGINS = `${OWNER_PAGE}, not an origin`;
  try {
    t = await startInbox();
  } finally {
    delete process.env.CORS_OWNER_ORIGINS;
  }
});
afterAll(() => t.close());

/** A raw answer: headers and the body bytes exactly as sent (fetch would decode them). */
function raw(path: string, headers: Record<string, string>, method = 'GET'): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${t.baseUrl}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

function preflight(path: string, origin: string, method: string, headers: string) {
  return t.request('OPTIONS', path, { headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers } });
}

describe('CORS on public paths', () => {
  it('answers a preflight for a create with Idempotency-Key from any page, with 204 and the headers it may send', async () => {
    const r = await preflight('/v1/bookings', PAGE, 'POST', 'content-type, idempotency-key');
    expect(r.status).toBe(204);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    expect(r.headers.get('access-control-allow-methods')).toContain('POST');
    const allowed = (r.headers.get('access-control-allow-headers') ?? '').toLowerCase();
    for (const name of ['content-type', 'idempotency-key', 'x-access-token', 'authorization', 'mcp-protocol-version']) expect(allowed).toContain(name);
    expect(Number(r.headers.get('access-control-max-age'))).toBeGreaterThan(0);
    expect(r.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('answers preflights on a path with a parameter and on the public MCP', async () => {
    const item = await preflight('/v1/items/bk_anything', PAGE, 'GET', 'x-access-token');
    expect(item.status).toBe(204);
    expect(item.headers.get('access-control-allow-methods')).toContain('GET');
    const mcp = await preflight('/mcp', PAGE, 'POST', 'content-type, mcp-protocol-version');
    expect(mcp.status).toBe(204);
    expect(mcp.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('keeps 404 for an OPTIONS on a path nothing serves', async () => {
    const r = await preflight('/v1/nothing-here', PAGE, 'GET', '');
    expect(r.status).toBe(404);
    expect(r.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('lets a page read a public answer and the headers clients need', async () => {
    const r = await t.request('GET', '/v1/services', { headers: { origin: PAGE } });
    expect(r.status).toBe(200);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    const exposed = (r.headers.get('access-control-expose-headers') ?? '').toLowerCase();
    for (const name of ['etag', 'location', 'retry-after', 'idempotent-replayed', 'ratelimit', 'www-authenticate']) expect(exposed).toContain(name);
  });
});

describe('CORS on owner paths', () => {
  it('refuses a preflight from a page that is not listed, and sends no CORS headers on its calls', async () => {
    const r = await preflight('/v1/owner/items', PAGE, 'GET', 'authorization');
    expect(r.status).toBe(403);
    expect(r.body.code).toBe('not_allowed');
    expect(r.body.detail).toContain('CORS_OWNER_ORIGINS');
    expect(r.headers.get('access-control-allow-origin')).toBeNull();
    const call = await t.owner('GET', '/v1/owner/items', { headers: { origin: PAGE } });
    expect(call.headers.get('access-control-allow-origin')).toBeNull();
    expect(call.headers.get('vary')).toContain('Origin');
  });

  it('lets a page CORS_OWNER_ORIGINS names call the owner routes and the owner MCP, echoing its origin', async () => {
    const pre = await preflight('/v1/owner/items', OWNER_PAGE, 'GET', 'authorization');
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe(OWNER_PAGE);
    const call = await t.owner('GET', '/v1/owner/items', { headers: { origin: OWNER_PAGE } });
    expect(call.status).toBe(200);
    expect(call.headers.get('access-control-allow-origin')).toBe(OWNER_PAGE);
    const mcp = await preflight('/mcp/owner', OWNER_PAGE, 'POST', 'authorization, content-type');
    expect(mcp.status).toBe(204);
  });

  it('never lets a page of another origin drive the consent page', async () => {
    const r = await preflight('/oauth/authorize', PAGE, 'POST', 'content-type');
    expect(r.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('the item token', () => {
  it('is taken as Authorization: Bearer, as x-access-token and in the query, and its challenge names the scheme', async () => {
    const created = await createBooking(t, 'haircut', '2026-11-24T10:00:00Z');
    const path = `/v1/items/${created.id}`;
    const bearer = await t.request('GET', path, { headers: { authorization: `Bearer ${created.accessToken}` } });
    expect(bearer.status).toBe(200);
    expect(bearer.body.id).toBe(created.id);
    expect((await t.request('GET', path, { headers: { 'x-access-token': created.accessToken } })).status).toBe(200);
    expect((await t.request('GET', `${path}?access_token=${encodeURIComponent(created.accessToken)}`)).status).toBe(200);

    const wrong = await t.request('GET', path, { headers: { authorization: 'Bearer svc_tok_wrong' } });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toMatch(/^Bearer /);
    const none = await t.request('GET', path);
    expect(none.status).toBe(401);
  });

  it('ignores a bearer credential that is not an item token (an owner key opens no customer item)', async () => {
    const created = await createBooking(t, 'haircut', '2026-11-24T11:00:00Z');
    const r = await t.request('GET', `/v1/items/${created.id}`, { headers: { authorization: `Bearer ${t.ownerKey}` } });
    expect(r.status).toBe(401);
  });
});

describe('ETag on public reads', () => {
  it('tags a public read with its bytes and answers 304 while they hold', async () => {
    const first = await t.request('GET', '/v1/services', { headers: { 'accept-encoding': 'identity' } });
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const again = await t.request('GET', '/v1/services', { headers: { 'if-none-match': etag as string } });
    expect(again.status).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    const other = await t.request('GET', '/v1/services', { headers: { 'if-none-match': '"something-else"' } });
    expect(other.status).toBe(200);
  });

  it('changes the tag of an item when the item moves', async () => {
    const created = await createBooking(t, 'haircut', '2026-11-24T12:00:00Z');
    const path = `/v1/items/${created.id}`;
    const headers = { 'x-access-token': created.accessToken };
    const before = await t.request('GET', path, { headers });
    const etag = before.headers.get('etag') as string;
    expect((await t.request('GET', path, { headers: { ...headers, 'if-none-match': etag } })).status).toBe(304);
    const moved = await t.owner('POST', `/v1/owner/items/${created.id}/transitions`, { body: { event: 'confirm' } });
    expect(moved.status).toBe(200);
    const after = await t.request('GET', path, { headers: { ...headers, 'if-none-match': etag } });
    expect(after.status).toBe(200);
    expect(after.headers.get('etag')).not.toBe(etag);
  });

  it('tags the manifest and the OpenAPI document', async () => {
    for (const path of ['/.well-known/agent-inbox.json', '/openapi.json']) {
      const first = await t.request('GET', path);
      const etag = first.headers.get('etag');
      expect(etag, path).toBeTruthy();
      expect((await t.request('GET', path, { headers: { 'if-none-match': etag as string } })).status, path).toBe(304);
    }
  });
});

describe('compression', () => {
  it('sends large JSON in brotli or gzip as asked, the same content, with its own tag and Vary', async () => {
    const plain = await raw('/openapi.json', { 'accept-encoding': 'identity' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    for (const [coding, decode] of [
      ['br', brotliDecompressSync],
      ['gzip', gunzipSync],
    ] as const) {
      const r = await raw('/openapi.json', { 'accept-encoding': coding });
      expect(r.headers['content-encoding'], coding).toBe(coding);
      expect(r.headers.vary).toContain('Accept-Encoding');
      expect(r.bytes.length).toBeLessThan(plain.bytes.length / 3);
      expect(decode(r.bytes).equals(plain.bytes)).toBe(true);
      expect(r.headers.etag).toBe(String(plain.headers.etag).replace(/"$/, `-${coding}"`));
      // The compressed tag revalidates too.
      expect((await raw('/openapi.json', { 'accept-encoding': coding, 'if-none-match': String(r.headers.etag) })).status).toBe(304);
    }
  });

  it('sends small answers as they are', async () => {
    const r = await raw('/healthz', { 'accept-encoding': 'br, gzip' });
    expect(r.headers['content-encoding']).toBeUndefined();
  });
});

describe('RateLimit headers', () => {
  it('tells an integration key where it stands on every answer', async () => {
    const key = await makeKey(t, 'automation', 'headers key');
    const r = await withKey(t, key.key)('GET', '/v1/owner/items');
    expect(r.status).toBe(200);
    expect(r.headers.get('ratelimit-policy')).toMatch(/^"key";q=\d+;w=\d+$/);
    expect(r.headers.get('ratelimit')).toMatch(/^"key";r=\d+;t=\d+$/);
  });
});

describe('no secret in a log line', () => {
  it('masks tokens and keys in URLs and never logs credential headers, at the most talkative level', async () => {
    const lines: string[] = [];
    const dataDir = mkdtempSync(join(tmpdir(), 'inbox-log-'));
    const clock = new TestClock();
    const inbox = await buildInbox({ dataDir, databaseUrl: await testDatabaseUrl('inbox', dataDir), publicBaseUrl: 'http://127.0.0.1', clock, logLevel: 'trace', logStream: { write: (line) => void lines.push(line) }, runJobs: false });
    try {
      await seedDemoBusiness({ store: inbox.store, clock });
      const ownerKey = (await createOwnerKey(inbox.store, 'log test', clock.now())).value;
      const base = await inbox.http.listen({ host: '127.0.0.1', port: 0 });
      const created = await fetch(`${base}/v1/bookings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': 'log-test-1' },
        body: JSON.stringify({ payload: { serviceId: 'haircut', startTime: '2026-11-24T15:00:00Z' }, contact: { name: 'Ana', email: 'ana@example.com' } }),
      });
      const { id, accessToken } = (await created.json()) as { id: string; accessToken: string };
      expect(accessToken).toMatch(/^svc_tok_/);
      await fetch(`${base}/v1/items/${id}?access_token=${accessToken}`);
      await fetch(`${base}/v1/items/${id}?x=1&access_token=${encodeURIComponent(accessToken)}`);
      await fetch(`${base}/v1/items/${id}`, { headers: { authorization: `Bearer ${accessToken}`, 'x-access-token': accessToken } });
      await fetch(`${base}/v1/owner/items?key=${ownerKey}`, { headers: { authorization: `Bearer ${ownerKey}`, cookie: `s=${ownerKey}` } });
      // A failure logged with its input still has the credential masked.
      await fetch(`${base}/v1/items/${accessToken}`);

      const log = lines.join('');
      expect(lines.length).toBeGreaterThan(5);
      expect(log).toContain(`/v1/items/${id}?access_token=[redacted]`);
      expect(log).not.toContain(accessToken);
      expect(log).not.toContain(ownerKey);
      expect(log).not.toContain(accessToken.slice('svc_tok_'.length));
    } finally {
      await inbox.close();
      rmSync(dataDir, { recursive: true, force: true });
      await dropTestDatabase('inbox', dataDir);
    }
  });
});

describe('security headers on every answer', () => {
  it('sends nosniff and the API policy on answers, problems, preflights and MCP alike', async () => {
    const answers = [
      await t.request('GET', '/v1/services'),
      await t.request('GET', '/v1/nothing-here'),
      await t.request('POST', '/v1/bookings', { body: { payload: {} } }),
      await t.request('GET', '/v1/owner/items'),
      await t.request('POST', '/mcp', { body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }, headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' } }),
    ];
    expect(answers.map((r) => r.status)).toEqual([200, 404, 422, 401, 200]);
    for (const r of answers) {
      expect(r.headers.get('x-content-type-options'), String(r.status)).toBe('nosniff');
      expect(r.headers.get('content-security-policy')).toBe("default-src 'none';frame-ancestors 'none'");
      expect(r.headers.get('x-frame-options')).toBe('DENY');
      expect(r.headers.get('referrer-policy')).toBe('no-referrer');
      expect(r.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
      expect(r.headers.get('strict-transport-security')).toBe('max-age=31536000');
    }
  });
});
