/**
 * The HTTP surface (inbox spec §4 "Other paths", §7 Errors, §8 Limits/caching, §9 Versioning):
 * the OpenAPI 3.1 document, the manifest, health, cache headers, and problem documents for every
 * refusal the server itself makes.
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import { validate as readmeValidate, compileErrors } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SOFTWARE_VERSION } from '../src/app.js';
import { OPERATIONS } from '../src/operations/index.js';
import { startInbox, type ApiResponse, type TestInbox } from './support/harness.js';

let t: TestInbox;
beforeAll(async () => {
  t = await startInbox();
});
afterAll(() => t.close());

function expectProblem(r: ApiResponse, status: number, code: string): void {
  expect(r.status).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(r.body).toEqual(
    expect.objectContaining({ type: expect.any(String), title: expect.any(String), status, detail: expect.any(String), code }),
  );
  expect(r.body.type.endsWith(`/${code}`)).toBe(true);
  expect(r.body.title.length).toBeGreaterThan(0);
  expect(r.body.detail.length).toBeGreaterThan(0);
}

describe('GET /openapi.json', () => {
  let doc: any;
  beforeAll(async () => {
    const r = await t.request('GET', '/openapi.json');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    doc = r.body;
  });

  it('is OpenAPI 3.1 and validates with @apidevtools/swagger-parser', async () => {
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.info.version).toBe(SOFTWARE_VERSION);
    await expect(SwaggerParser.validate(structuredClone(doc))).resolves.toBeTruthy();
  });

  it('validates with @readme/openapi-parser, without errors', async () => {
    const result = await readmeValidate(structuredClone(doc));
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
    expect(result.specification).toBe('OpenAPI');
  });

  it('has every operation of the table under its method and path, named by its operationId', () => {
    const found = new Map<string, string>();
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) found.set(operation.operationId, `${method.toUpperCase()} ${path}`);
    }
    expect(OPERATIONS.length).toBeGreaterThan(20);
    for (const op of OPERATIONS) expect(found.get(op.name), op.name).toBe(`${op.http.method} ${op.http.path}`);
    expect(found.size).toBe(OPERATIONS.length);
  });

  it('marks owner operations with the Bearer scheme and documents problem answers', () => {
    expect(doc.components.securitySchemes.ownerKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    const listItems = doc.paths['/v1/owner/items'].get;
    expect(listItems.security).toEqual([{ ownerKey: [] }, { aiApp: ['inbox:read'] }]);
    expect(doc.components.securitySchemes.aiApp).toMatchObject({ type: 'oauth2' });
    expect(Object.keys(doc.components.securitySchemes.aiApp.flows.authorizationCode.scopes)).toContain('keys:write');
    expect(listItems.parameters.map((p: any) => p.name)).toEqual(expect.arrayContaining(['type', 'state', 'needs_human', 'open_only', 'sandbox', 'q', 'cursor', 'limit']));
    expect(listItems.responses['401'].content['application/problem+json'].schema).toEqual({ $ref: '#/components/schemas/Problem' });
    const business = doc.paths['/v1/business'].get;
    expect(business.security).toEqual([]);
    const reply = doc.paths['/v1/owner/items/{id}/replies'].post;
    expect(reply.responses['201']).toBeDefined();
    expect(reply.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'id', in: 'path', required: true })]));
    expect(reply.requestBody.content['application/json'].schema.properties).toHaveProperty('message');
    expect(reply.requestBody.content['application/json'].schema.properties).not.toHaveProperty('id');
  });
});

describe('the manifest and health', () => {
  it('serves /.well-known/agent-inbox.json with the doors, the profile and the item types, cacheable for five minutes', async () => {
    const r = await t.request('GET', '/.well-known/agent-inbox.json');
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toMatch(/max-age=300\b/);
    expect(r.body.protocols).toEqual({
      rest: 'http://127.0.0.1/v1',
      openapi: 'http://127.0.0.1/openapi.json',
      mcp: 'http://127.0.0.1/mcp',
      mcp_owner: 'http://127.0.0.1/mcp/owner',
    });
    expect(r.body.protocols).not.toHaveProperty('email');
    expect(r.body.profile).toMatchObject({ name: 'Salão Aurora', time_zone: 'Europe/Lisbon', currency: 'EUR', languages: ['pt-PT', 'en'] });
    expect(r.body.item_types).toEqual(['message', 'quote_request', 'booking', 'order']);
  });

  it('follows the profile: item types and name', async () => {
    const changed = await t.owner('PATCH', '/v1/owner/profile', { body: { profile: { itemTypes: ['message', 'booking'] } } });
    expect(changed.status).toBe(200);
    const r = await t.request('GET', '/.well-known/agent-inbox.json');
    expect(r.body.item_types).toEqual(['message', 'booking']);
    await t.owner('PATCH', '/v1/owner/profile', { body: { profile: { itemTypes: ['message', 'quote_request', 'booking', 'order'] } } });
  });

  it('answers /healthz with ok and the software version, never cached', async () => {
    const r = await t.request('GET', '/healthz');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ok: true, version: SOFTWARE_VERSION });
    expect(r.headers.get('cache-control')).toBe('no-store');
  });
});

describe('cache headers (spec §8)', () => {
  const cases: [string, string, RegExp][] = [
    ['profile', '/v1/business', /^public, max-age=300$/],
    ['services', '/v1/services', /^public, max-age=60$/],
    ['products', '/v1/products', /^public, max-age=60$/],
    // Everything else is uncacheable, the documents included (every route: cache-control.test.ts).
    ['OpenAPI document', '/openapi.json', /^no-store$/],
  ];
  it.each(cases)('%s is cached as the spec says', async (_label, path, expected) => {
    const r = await t.request('GET', path);
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toMatch(expected);
  });

  it('item status, availability, owner reads and every write are not cached', async () => {
    const created = await t.request('POST', '/v1/messages', { body: { message: 'Cache me not' } });
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    const status = await t.request('GET', `/v1/items/${created.body.id}`, { headers: { 'x-access-token': created.body.accessToken } });
    expect(status.headers.get('cache-control')).toBe('no-store');
    const availability = await t.request('GET', '/v1/availability?service=haircut&from=2026-11-24&to=2026-11-24');
    expect(availability.status).toBe(200);
    expect(availability.headers.get('cache-control')).toBe('no-store');
    for (const path of ['/v1/owner/items', `/v1/owner/items/${created.body.id}`, '/v1/owner/settings', '/v1/owner/profile', '/v1/owner/services']) {
      const r = await t.owner('GET', path);
      expect(r.status, path).toBe(200);
      expect(r.headers.get('cache-control'), path).toBe('no-store');
    }
    // A refusal is never cached either, even on a cacheable path.
    const bad = await t.request('GET', '/v1/services?limit=0');
    expect(bad.status).toBe(422);
    expect(bad.headers.get('cache-control')).toBe('no-store');
  });
});

describe('problem documents', () => {
  it('answers an unknown route with 404', async () => {
    expectProblem(await t.request('GET', '/v1/nothing-here'), 404, 'not_found');
    expectProblem(await t.request('POST', '/v2/bookings', { body: {} }), 404, 'not_found');
    expectProblem(await t.owner('GET', '/v1/owner/nothing'), 404, 'not_found');
    // A trailing slash is another path, not a wrong method on the path without it.
    expectProblem(await t.request('GET', '/v1/business/'), 404, 'not_found');
  });

  it('answers a malformed URL with a 400 problem document', async () => {
    expectProblem(await t.request('GET', '/v1/items/%E0%A4%A'), 400, 'bad_request');
  });

  it('answers a known path with the wrong method with 405 and an Allow header', async () => {
    const r = await t.request('DELETE', '/v1/business');
    expectProblem(r, 405, 'method_not_allowed');
    // GET routes answer HEAD as well, so Allow names both.
    expect(r.headers.get('allow')).toBe('GET, HEAD');
    expect((await t.request('HEAD', '/v1/business')).status).toBe(200);

    const post = await t.request('GET', '/v1/bookings');
    expectProblem(post, 405, 'method_not_allowed');
    expect(post.headers.get('allow')).toBe('POST');

    const items = await t.request('PUT', '/v1/owner/items/01JZZZZZZZZZZZZZZZZZZZZZZZ');
    expectProblem(items, 405, 'method_not_allowed');
    expect(items.headers.get('allow')).toMatch(/\bGET\b/);

    const settings = await t.request('POST', '/v1/owner/settings', { body: {} });
    expectProblem(settings, 405, 'method_not_allowed');
    expect(settings.headers.get('allow')!.split(/,\s*/).sort()).toEqual(expect.arrayContaining(['GET', 'PUT']));
  });

  it('answers a body that is not JSON with 400', async () => {
    const r = await t.request('POST', '/v1/messages', { rawBody: '{"message": "hi",', headers: { 'content-type': 'application/json' } });
    expectProblem(r, 400, 'bad_request');
  });

  it('refuses a JSON body with a __proto__ key with 400', async () => {
    const r = await t.request('POST', '/v1/messages', { rawBody: '{"message":"hi","__proto__":{"sandbox":true}}', headers: { 'content-type': 'application/json' } });
    expectProblem(r, 400, 'bad_request');
  });

  it('refuses a __proto__ key however it is escaped and however deep, and takes the word as a value', async () => {
    for (const rawBody of [
      '{"message":"hi","\\u005f\\u005Fproto__":{"sandbox":true}}',
      '{"message":"hi","__pr\\u006Fto\\u005f_":{"sandbox":true}}',
      '{"message":"hi","payload":{"list":[{"__proto__":{"x":1}}]}}',
    ]) {
      const r = await t.request('POST', '/v1/messages', { rawBody, headers: { 'content-type': 'application/json' } });
      expectProblem(r, 400, 'bad_request');
      expect(r.body.detail).toContain('__proto__');
    }
    const word = await t.request('POST', '/v1/messages', { rawBody: '{"message":"what does \\"__proto__\\" mean?","payload":{"subject":"__proto__"}}', headers: { 'content-type': 'application/json' } });
    expect(word.status).toBe(201);
    expect(word.body.conversation[0].text).toBe('what does "__proto__" mean?');
  });

  it('answers a body over 1 MiB with 413', async () => {
    const big = JSON.stringify({ message: 'x'.repeat(1024 * 1024 + 10) });
    const r = await t.request('POST', '/v1/messages', { rawBody: big, headers: { 'content-type': 'application/json' } });
    expectProblem(r, 413, 'payload_too_large');
  });

  it('accepts a body just under the limit (then judges its fields)', async () => {
    const text = 'x'.repeat(20_001);
    const r = await t.request('POST', '/v1/messages', { body: { message: text, padding: 'y'.repeat(900_000) } });
    expectProblem(r, 422, 'invalid_input');
  });

  it('answers a body that is not JSON by content type with 415', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      const r = await t.request('POST', '/v1/messages', { rawBody: 'message=hello', headers: { 'content-type': type } });
      expectProblem(r, 415, 'unsupported_media_type');
    }
    // Nothing was created by those.
    expect((await t.owner('GET', '/v1/owner/items?q=hello')).body.items).toEqual([]);
  });

  it('answers a JSON body that is not an object with 422', async () => {
    for (const raw of ['[{"message":"hi"}]', '"hi"', '42']) {
      const r = await t.request('POST', '/v1/messages', { rawBody: raw, headers: { 'content-type': 'application/json' } });
      expectProblem(r, 422, 'invalid_input');
      expect(r.body.fields).toEqual([expect.objectContaining({ path: '(body)', problem: 'invalid' })]);
    }
  });

  it('names missing and invalid fields in an input problem', async () => {
    const r = await t.request('POST', '/v1/bookings', { body: { payload: { serviceId: 'haircut', startTime: 'tomorrow' } } });
    expectProblem(r, 422, 'invalid_input');
    expect(r.body.fields).toEqual([{ path: 'payload.startTime', problem: 'invalid', message: expect.any(String) }]);
    const missing = await t.request('POST', '/v1/bookings', { body: { payload: { startTime: '2026-11-24T10:00:00Z' } } });
    expect(missing.body.fields).toEqual([{ path: 'payload.serviceId', problem: 'missing', message: expect.any(String) }]);
  });

  it('describes each problem code at GET /problems/{code}', async () => {
    const r = await t.request('GET', '/problems/version_conflict');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ code: 'version_conflict', status: 409, title: 'Version conflict' });
    expect(r.body.type).toMatch(/\/problems\/version_conflict$/);

    // The type URL of a real refusal resolves to its description.
    const refusal = await t.request('GET', '/v1/nothing-here');
    const path = new URL(refusal.body.type).pathname;
    const described = await t.request('GET', path);
    expect(described.status).toBe(200);
    expect(described.body).toMatchObject({ code: 'not_found', status: 404, title: refusal.body.title });

    expectProblem(await t.request('GET', '/problems/no_such_code'), 404, 'not_found');
  });
});

describe('the agent guide', () => {
  it('is served where create answers point (identity.guide)', async () => {
    const t = await startInbox();
    try {
      const created = await t.request('POST', '/v1/quotes', { body: { payload: { description: 'A quote for a wedding.' } } });
      expect(created.status).toBe(201);
      const guide = new URL(created.body.identity.guide);
      expect(guide.pathname).toBe('/docs/agents');
      const page = await t.request('GET', guide.pathname);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/markdown/);
      expect(page.body).toContain('/v1/availability');
    } finally {
      await t.close();
    }
  });
});

describe('over-long path parameters', () => {
  it('answer a problem document, never a 500', async () => {
    const t = await startInbox();
    try {
      const long = await t.request('GET', `/v1/items/${'A'.repeat(600)}`);
      expect(long.status).toBe(400);
      expect(long.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(long.body.code).toBe('bad_request');
      const tooLongForSchema = await t.request('GET', `/v1/items/${'A'.repeat(200)}?access_token=x`);
      expect(tooLongForSchema.status).toBe(422);
      expect(tooLongForSchema.body.fields.map((f: { path: string }) => f.path)).toContain('id');
    } finally {
      await t.close();
    }
  });
});
