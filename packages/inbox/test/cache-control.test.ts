/**
 * Caching as inbox spec §8 says, on every route the server serves (served-routes.ts lists them as
 * registered, so a route added later is checked too): the profile and the manifest cacheable for five
 * minutes, services and products for one, everything else uncacheable (`no-store`), refusals, 304s,
 * HEAD and replayed answers included. The owner app's hashed static files are not part of the API and
 * are kept a year (docs/http.md "Caching").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { servedRoutes } from '../src/doors/rest/served-routes.js';
import { startInbox, type TestInbox } from './support/harness.js';
import { createBooking } from './support/customer-calls.js';
import { signInToApp, type OwnerAppSession } from './support/owner-app.js';

/** The only cacheable answers (inbox spec §8). */
const CACHEABLE: Record<string, string> = {
  '/v1/business': 'public, max-age=300',
  '/.well-known/agent-inbox.json': 'public, max-age=300',
  '/v1/services': 'public, max-age=60',
  '/v1/products': 'public, max-age=60',
};
const HASHED_ASSET = /^\/(app\/assets|i-assets)\/[a-z-]+\.[A-Za-z0-9_-]{12}\.(css|js)$/;
const ASSET_CACHE_CONTROL = 'public, max-age=31536000, immutable';
const UNKNOWN_ID = '01JZZZZZZZZZZZZZZZZZZZZZZZ';

let t: TestInbox;
let app: OwnerAppSession;
let item: { id: string; accessToken: string };
beforeAll(async () => {
  t = await startInbox();
  app = await signInToApp(t.baseUrl, t.ownerKey);
  item = await createBooking(t, 'haircut', '2026-11-24T10:00:00Z');
});
afterAll(() => t.close());

/** A request a route answers in full (a real id, the credential its path needs), headers only. */
async function fetchHeaders(method: string, route: string, extraHeaders: Record<string, string> = {}): Promise<{ status: number; headers: Headers }> {
  const path = route
    .replace('/v1/items/:id', `/v1/items/${item.id}`)
    .replace('/v1/owner/items/:id', `/v1/owner/items/${item.id}`)
    .replace('/app/items/:id', `/app/items/${item.id}`)
    .replace('/problems/:code', '/problems/not_found')
    .replace(/:[A-Za-z_]+/g, UNKNOWN_ID);
  const query = path === '/v1/availability' ? '?service=haircut&from=2026-11-24&to=2026-11-24' : '';
  const headers: Record<string, string> = { ...extraHeaders };
  if (path.startsWith('/v1/owner') || path === '/mcp/owner') headers.authorization = `Bearer ${t.ownerKey}`;
  if (path.startsWith('/app')) headers.cookie = app.cookie;
  if (path.startsWith('/v1/items/')) headers['x-access-token'] = item.accessToken;
  const controller = new AbortController();
  const response = await fetch(`${t.baseUrl}${path}${query}`, { method, headers, redirect: 'manual', signal: controller.signal });
  // Headers are all that is read (the live event stream never ends).
  controller.abort();
  return { status: response.status, headers: response.headers };
}

function expectedCacheControl(path: string): string | RegExp {
  if (CACHEABLE[path]) return CACHEABLE[path];
  if (HASHED_ASSET.test(path)) return ASSET_CACHE_CONTROL;
  return /(^|, )no-store$/;
}

describe('Cache-Control on every route (inbox spec §8)', () => {
  it('GET and HEAD of every route: cacheable only the profile, manifest, services and products', async () => {
    // (HEAD of the live event stream is left out: an answer without a body that never ends.)
    const routes = servedRoutes(t.inbox.http).filter((route) => route.method === 'GET' || (route.method === 'HEAD' && route.url !== '/app/live'));
    expect(routes.length).toBeGreaterThan(40);
    const seen: string[] = [];
    for (const route of routes) {
      const answer = await fetchHeaders(route.method, route.url);
      const label = `${route.method} ${route.url} (${answer.status})`;
      const expected = expectedCacheControl(route.url);
      const sent = answer.headers.get('cache-control');
      if (typeof expected === 'string') {
        expect(answer.status, label).toBe(200);
        expect(sent, label).toBe(expected);
      } else {
        expect(sent, label).toMatch(expected);
      }
      seen.push(route.url);
    }
    // The documents an agent reads are uncacheable too (the contract names no lifetime for them).
    for (const path of ['/openapi.json', '/.well-known/jwks.json', '/docs/agents', '/problems/{code}', '/.well-known/oauth-authorization-server', '/.well-known/oauth-protected-resource/mcp/owner', '/v1/availability', '/v1/items/{id}', '/healthz']) {
      expect(seen, path).toContain(path.replace('{code}', ':code').replace('{id}', ':id'));
    }
    expect(seen.some((path) => HASHED_ASSET.test(path))).toBe(true);
  });

  it('answers to every other method, refusals and preflights are uncacheable', async () => {
    const routes = servedRoutes(t.inbox.http).filter((route) => route.method !== 'GET' && route.method !== 'HEAD');
    for (const route of routes) {
      const answer = await fetchHeaders(route.method, route.url, route.method === 'OPTIONS' ? { origin: 'https://elsewhere.example', 'access-control-request-method': 'POST' } : {});
      expect(answer.headers.get('cache-control'), `${route.method} ${route.url} (${answer.status})`).toMatch(/(^|, )no-store$/);
    }
    for (const path of ['/v1/nothing-here', '/v1/services?limit=0', '/v1/business?x=svcpass1_a', `/v1/items/${UNKNOWN_ID}`]) {
      const r = await fetch(`${t.baseUrl}${path}`);
      expect(r.status, path).toBeGreaterThanOrEqual(400);
      expect(r.headers.get('cache-control'), path).toBe('no-store');
    }
  });

  it('a 304 and a replayed answer say what the 200 said', async () => {
    for (const path of Object.keys(CACHEABLE)) {
      const first = await fetch(`${t.baseUrl}${path}`);
      const again = await fetch(`${t.baseUrl}${path}`);
      expect(again.headers.get('cache-control'), path).toBe(CACHEABLE[path]);
      const etag = first.headers.get('etag') as string;
      const notModified = await fetch(`${t.baseUrl}${path}`, { headers: { 'if-none-match': etag } });
      expect(notModified.status, path).toBe(304);
      expect(notModified.headers.get('cache-control'), path).toBe(CACHEABLE[path]);
    }
    for (const path of ['/openapi.json', '/.well-known/jwks.json']) {
      const etag = (await fetch(`${t.baseUrl}${path}`)).headers.get('etag') as string;
      const notModified = await fetch(`${t.baseUrl}${path}`, { headers: { 'if-none-match': etag } });
      expect(notModified.status, path).toBe(304);
      expect(notModified.headers.get('cache-control'), path).toBe('no-store');
    }
  });
});
