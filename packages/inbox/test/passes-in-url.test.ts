/**
 * A pass or key is never put in a URL (inbox spec §4: "a GET reads only the header. A pass or key is
 * never put in a URL"). Every route, whatever its method, refuses a URL that carries one with 422
 * invalid_input saying to send Svc-Pass, before anything reads it; /openapi.json declares no such
 * query parameter; the header still works. The end-to-end case with a real network (a pass that
 * would open an item without its token) is in directory/test/persons-end-to-end.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { servedRoutes } from '../src/doors/rest/served-routes.js';
import { startInbox, type ApiResponse, type TestInbox } from './support/harness.js';
import { booking, createBooking } from './support/customer-calls.js';

const PASS = 'svcpass1_network.example_abcdefghijklmnop_abcdefghijklmnopqrstuvwxyz234567';
const KEY = 'svckey1_network.example_abcdefghijklmnop_abcdefghijklmnopqrstuvwxyz234567';

let t: TestInbox;
beforeAll(async () => {
  t = await startInbox();
});
afterAll(() => t.close());

function expectRefusedPass(r: ApiResponse, parameter: string, label: string): void {
  expect(r.status, `${label}: ${JSON.stringify(r.body)}`).toBe(422);
  expect(r.headers.get('content-type'), label).toMatch(/^application\/problem\+json/);
  expect(r.body.code).toBe('invalid_input');
  expect(r.body.detail).toMatch(/Svc-Pass/);
  expect(r.body.fields).toEqual([expect.objectContaining({ path: parameter, problem: 'invalid', message: expect.stringMatching(/Svc-Pass/) })]);
  expect(r.headers.get('cache-control')).toBe('no-store');
}

describe('a pass or key in a URL', () => {
  it('does not open an item: GET /v1/items/{id}?pass=… and ?key=… are refused, with or without the token', async () => {
    const b = await createBooking(t, 'haircut', '2026-11-24T10:00:00Z');
    for (const query of [`pass=${PASS}`, `key=${PASS}`, `key=${KEY}`, `pass=${encodeURIComponent(`${PASS} ${PASS}`)}`]) {
      const parameter = query.slice(0, query.indexOf('='));
      expectRefusedPass(await t.request('GET', `/v1/items/${b.id}?${query}`), parameter, query);
      expectRefusedPass(await t.request('GET', `/v1/items/${b.id}?${query}`, { headers: { 'x-access-token': b.accessToken } }), parameter, `${query} with token`);
      expectRefusedPass(await t.request('GET', `/v1/items/${b.id}?access_token=${b.accessToken}&${query}`), parameter, `${query} with query token`);
    }
    // Spelled otherwise: another name, another case, percent-escaped, in the path.
    expectRefusedPass(await t.request('GET', `/v1/items/${b.id}?PASS=x`), 'PASS', 'upper case');
    expectRefusedPass(await t.request('GET', `/v1/items/${b.id}?person=${PASS}`), 'person', 'a pass under another name');
    expectRefusedPass(await t.request('GET', `/v1/items/${b.id}?p=${encodeURIComponent(KEY)}`), 'p', 'a key under another name');
    expectRefusedPass(await t.request('GET', `/v1/items/${PASS}`), '(path)', 'a pass in the path');
    // The token alone, and a pass in the Svc-Pass header, are served as before.
    expect((await t.request('GET', `/v1/items/${b.id}`, { headers: { 'x-access-token': b.accessToken } })).status).toBe(200);
    const viaHeader = await t.request('GET', `/v1/items/${b.id}`, { headers: { 'x-access-token': b.accessToken, 'svc-pass': `"${PASS}"` } });
    expect(viaHeader.status).toBe(200);
    expect(viaHeader.body.identity.networks).toEqual({ 'https://network.example': 'not_enabled' });
  });

  it('is refused on every route the server serves, whatever the method, and creates nothing', async () => {
    const before = (await t.owner('GET', '/v1/owner/items?open_only=false&limit=100')).body.items.length as number;
    const routes = servedRoutes(t.inbox.http).filter((route) => route.method !== 'HEAD' && route.method !== 'OPTIONS');
    expect(routes.length).toBeGreaterThan(60);
    for (const route of routes) {
      const path = route.url.replace(/:[A-Za-z_]+/g, '01JZZZZZZZZZZZZZZZZZZZZZZZ').replace(/\*$/, 'x');
      const body = route.method === 'GET' || route.method === 'DELETE' ? undefined : booking('haircut', '2026-11-24T11:00:00Z');
      for (const parameter of ['pass', 'key']) {
        const r = await t.request(route.method, `${path}?${parameter}=${PASS}`, { ...(body ? { body } : {}), headers: { authorization: `Bearer ${t.ownerKey}` } });
        const label = `${route.method} ${route.url}`;
        if (/^\/(oauth|\.well-known\/oauth)/.test(route.url)) {
          // OAuth endpoints answer in OAuth's own error form (docs/oauth.md), the consent page as a page: refused all the same.
          expect(r.status, label).toBe(422);
          expect(typeof r.body === 'string' ? r.body : r.body.error_description, label).toMatch(/Svc-Pass/);
        } else {
          expectRefusedPass(r, parameter, label);
        }
      }
    }
    expect((await t.owner('GET', '/v1/owner/items?open_only=false&limit=100')).body.items.length).toBe(before);
  });

  it('on a write the body still carries pass and key; the query never does', async () => {
    const inBody = await t.request('POST', '/v1/bookings', { body: { ...booking('haircut', '2026-11-24T12:00:00Z'), pass: PASS } });
    expect(inBody.status, JSON.stringify(inBody.body)).toBe(201);
    expect(inBody.body.identity.networks).toEqual({ 'https://network.example': 'not_enabled' });
    expectRefusedPass(await t.request('POST', `/v1/bookings?pass=${PASS}`, { body: booking('haircut', '2026-11-24T12:15:00Z') }), 'pass', 'create');
    expectRefusedPass(
      await t.request('POST', `/mcp?key=${KEY}`, { body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }, headers: { accept: 'application/json, text/event-stream' } }),
      'key',
      'public MCP',
    );
  });

  it('/openapi.json declares pass and key as query parameters nowhere, and Svc-Pass as the way to send passes', async () => {
    const doc = (await t.request('GET', '/openapi.json')).body;
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, { parameters?: { name: string; in: string }[] }>>)) {
      for (const [method, operation] of Object.entries(item)) {
        const query = (operation.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
        expect(query, `${method} ${path}`).not.toContain('pass');
        expect(query, `${method} ${path}`).not.toContain('key');
      }
    }
    expect(doc.paths['/v1/items/{id}'].get.parameters.map((p: { name: string }) => p.name)).toEqual(['id', 'access_token']);
    expect(doc.components.securitySchemes.personPass).toMatchObject({ type: 'apiKey', in: 'header', name: 'Svc-Pass' });
  });

  it('the MCP tool get_item_status takes no pass argument either (the same schema as REST)', async () => {
    const listed = await t.request('POST', '/mcp', {
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
      headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
    });
    const tool = listed.body.result.tools.find((x: { name: string }) => x.name === 'get_item_status');
    expect(Object.keys(tool.inputSchema.properties)).toEqual(['id', 'access_token']);
  });
});
