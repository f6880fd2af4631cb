/**
 * The directory's OpenAPI document declares what the directory answers (issue 20): 400 (never 422)
 * for bad parameters, 304 with ETag on every read, Retry-After on 429 and 503, X-Robots-Tag where a
 * found business is served; and the live service answers those statuses where the document says.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIRECTORY_OPERATIONS } from '../src/operations/index.js';
import { listing, member } from './support/fixtures.js';
import { startDirectory, type TestDirectory } from './support/harness.js';

let t: TestDirectory;
let doc: any;

beforeAll(async () => {
  t = await startDirectory({
    answerWorkers: 0,
    listings: [member('salon.example', { name: 'Salon Lumière', city: 'Lisboa' }), listing('found.example', { name: 'Found Shop', city: 'Lisboa' })],
  });
  doc = (await t.get('/openapi.json')).body;
});
afterAll(() => t.close());

const operations = () =>
  DIRECTORY_OPERATIONS.map((op) => ({ op, documented: doc.paths[op.http.path][op.http.method.toLowerCase()] as { parameters?: { name: string; in: string }[]; responses: Record<string, any> } }));

describe('the statuses the document declares', () => {
  it('never 422 for a bad parameter or body: that is 400 bad_request, declared wherever there is one', () => {
    for (const { op, documented } of operations()) {
      // 422 is only a receipt or an acknowledgement the network refuses for what it says (issue 13).
      if (op.name === 'publish_receipt') expect(documented.responses['422'].description).toMatch(/bad_receipt, unknown_key, bad_acknowledgement/);
      else expect(documented.responses['422'], op.name).toBeUndefined();
      const takesInput = (documented.parameters ?? []).some((p) => p.in === 'query' || p.in === 'path') || op.http.method !== 'GET';
      if (takesInput) expect(documented.responses['400']?.description, op.name).toMatch(/bad_request/);
    }
  });

  it('304 with its ETag on every read, and the If-None-Match it answers', () => {
    for (const { op, documented } of operations()) {
      if (op.kind !== 'read') continue;
      expect(documented.responses['200'].headers.ETag, op.name).toEqual({ $ref: '#/components/headers/ETag' });
      expect(documented.responses['304'].headers.ETag, op.name).toEqual({ $ref: '#/components/headers/ETag' });
      expect(documented.parameters?.some((p) => p.name === 'If-None-Match' && p.in === 'header'), op.name).toBe(true);
    }
  });

  it('Retry-After on every 429 and 503, and the RateLimit headers on 429', () => {
    let seen503 = 0;
    for (const { op, documented } of operations()) {
      const limited = documented.responses['429'];
      expect(limited, op.name).toBeDefined();
      expect(Object.keys(limited.headers).sort(), op.name).toEqual(['RateLimit', 'RateLimit-Policy', 'Retry-After']);
      const unavailable = documented.responses['503'];
      if (unavailable) {
        seen503++;
        expect(unavailable.headers['Retry-After'], op.name).toEqual({ $ref: '#/components/headers/Retry-After' });
      }
    }
    expect(seen503).toBeGreaterThanOrEqual(3); // the search's time limit, and writes on a full disk
    expect(doc.components.headers['Retry-After'].schema).toEqual({ type: 'integer', minimum: 0 });
  });

  it('X-Robots-Tag on one business, with its 304', () => {
    const detail = doc.paths['/v1/businesses/{domain}'].get.responses;
    expect(detail['200'].headers['X-Robots-Tag']).toEqual({ $ref: '#/components/headers/X-Robots-Tag' });
    expect(detail['304'].headers['X-Robots-Tag']).toEqual({ $ref: '#/components/headers/X-Robots-Tag' });
    expect(doc.components.headers['X-Robots-Tag'].schema).toEqual({ type: 'string', enum: ['noindex'] });
    expect(doc.paths['/v1/businesses'].get.responses['200'].headers['X-Robots-Tag']).toBeUndefined();
  });
});

describe('what the service answers, as declared', () => {
  const badRequests: [string, string][] = [
    ['search_businesses', '/v1/businesses?limit=0x10'],
    ['get_business', `/v1/businesses/${'a'.repeat(254)}`],
    ['list_categories', `/v1/categories?group=${'g'.repeat(61)}`],
    ['get_place_category', `/c/${'c'.repeat(121)}`],
    ['get_ranking_rules', '/v1/ranking?version=1e1'],
    ['get_instance_status', `/v1/instances/${'d'.repeat(254)}/status`],
  ];

  it.each(badRequests)('%s: a bad parameter is 400 bad_request, as declared', async (name, path) => {
    const op = DIRECTORY_OPERATIONS.find((o) => o.name === name)!;
    const r = await t.get(path);
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.code).toBe('bad_request');
    expect(doc.paths[op.http.path].get.responses['400']).toBeDefined();
  });

  it('every read with an ETag answers 304 to it, as declared', async () => {
    for (const path of ['/v1/businesses', '/v1/businesses/salon.example', '/v1/categories', '/c/shop.bakery', '/v1/attributes', '/v1/ranking', '/v1/stats']) {
      const first = await t.get(path);
      expect(first.status, path).toBe(200);
      const again = await t.get(path, { 'if-none-match': first.headers.get('etag')! });
      expect(again.status, path).toBe(304);
      expect(again.headers.get('etag'), path).toBeTruthy();
    }
  });

  it('X-Robots-Tag: noindex on a found business and its 304, never on a member', async () => {
    const found = await t.get('/v1/businesses/found.example');
    expect(found.headers.get('x-robots-tag')).toBe('noindex');
    expect((await t.get('/v1/businesses/found.example', { 'if-none-match': found.headers.get('etag')! })).headers.get('x-robots-tag')).toBe('noindex');
    expect((await t.get('/v1/businesses/salon.example')).headers.get('x-robots-tag')).toBeNull();
  });
});
