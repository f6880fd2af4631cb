/**
 * Numbers in query strings are decimal and nothing else, and a comma-separated parameter names each
 * value once (issue 20): over REST, and the same refusals through the MCP tool.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listing, member } from './support/fixtures.js';
import { startDirectory, type ApiResponse, type TestDirectory } from './support/harness.js';

let t: TestDirectory;
let client: Client;

beforeAll(async () => {
  t = await startDirectory({
    answerWorkers: 0,
    listings: [
      member('salon.example', { name: 'Salon Lumière', city: 'Lisboa', country: 'PT', geo: { lat: 38.7223, lng: -9.1393 } }),
      listing('bakery.example', { name: 'Padaria Central', city: 'Lisboa', country: 'PT', geo: { lat: 38.73, lng: -9.14 } }),
      listing('shop.example', { source: 'registered', name: 'Registered Shop', city: 'Porto', country: 'PT' }),
    ],
  });
  client = new Client({ name: 'strict-parameters-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`)));
});

afterAll(async () => {
  await client?.close();
  await t?.close();
});

function expectBadParameter(r: ApiResponse, name: string, message?: RegExp): void {
  expect(r.status, JSON.stringify(r.body)).toBe(400);
  expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(r.body.code).toBe('bad_request');
  expect(r.body.fields).toContainEqual(expect.objectContaining({ path: name, problem: 'invalid' }));
  if (message) expect(r.body.fields.find((f: { path: string }) => f.path === name).message).toMatch(message);
}

describe('numbers in the query string', () => {
  it.each([['0x10'], ['1e2'], ['1E1'], ['+5'], [' 5'], ['5 '], ['5.0'], ['0b11'], ['0o7'], ['Infinity'], ['1_0'], ['١٠']])(
    'refuses limit=%j naming limit',
    async (limit) => {
      expectBadParameter(await t.get(`/v1/businesses?limit=${encodeURIComponent(limit)}`), 'limit', /decimal digits/);
    },
  );

  it.each([['0x10'], ['1e2'], ['Infinity'], ['.5'], ['5.'], ['1,5'], [' 5']])('refuses radius_km=%j naming radius_km', async (radius) => {
    expectBadParameter(await t.get(`/v1/businesses?near=38.72,-9.14&radius_km=${encodeURIComponent(radius)}`), 'radius_km', /decimal/);
  });

  it('takes decimal numbers: limit=2, limit=002, radius_km=5, 2.5 and +5', async () => {
    for (const limit of ['2', '002']) {
      const r = await t.get(`/v1/businesses?limit=${limit}`);
      expect(r.status, limit).toBe(200);
      expect(r.body.businesses).toHaveLength(2);
    }
    for (const radius of ['5', '2.5', '+5', '1000']) {
      const r = await t.get(`/v1/businesses?near=38.72,-9.14&radius_km=${encodeURIComponent(radius)}`);
      expect(r.status, radius).toBe(200);
      expect(r.body.businesses.map((b: { domain: string }) => b.domain).sort()).toEqual(['bakery.example', 'salon.example']);
    }
    // Decimal but out of bounds: refused for its bounds.
    expectBadParameter(await t.get('/v1/businesses?limit=0'), 'limit');
    expectBadParameter(await t.get('/v1/businesses?near=38.72,-9.14&radius_km=-5'), 'radius_km');
  });

  it('the ranking rules version too: ?version=0x7 is refused, ?version=7 read', async () => {
    expectBadParameter(await t.get('/v1/ranking?version=0x7'), 'version', /decimal digits/);
    expectBadParameter(await t.get('/v1/ranking?version=6.0'), 'version');
    expect((await t.get('/v1/ranking?version=6')).status).toBe(200);
  });

  it('MCP arguments are JSON numbers: a string is refused, a number taken', async () => {
    const refused = await client.callTool({ name: 'search_businesses', arguments: { limit: '0x10' } });
    expect(refused.isError).toBe(true);
    const taken = await client.callTool({ name: 'search_businesses', arguments: { limit: 1 } });
    expect(taken.isError).toBeFalsy();
    expect((taken.structuredContent as { businesses: unknown[] }).businesses).toHaveLength(1);
  });
});

describe('a value named twice in a comma-separated parameter', () => {
  it('source=member,registered,found,member,found (35 characters) is refused naming the repeated value, not "at most 3 entries"', async () => {
    const r = await t.get('/v1/businesses?source=member,registered,found,member,found');
    expectBadParameter(r, 'source', /names member more than once; name each value once/);
    expect(JSON.stringify(r.body)).not.toMatch(/at most 3/);
  });

  it.each([
    ['source', 'found,found'],
    ['source', 'found, registered ,found'],
    ['accepts', 'card,book,CARD'],
    ['door_type', 'mcp,inbox,mcp'],
    ['attributes', 'wifi,wifi'],
  ])('refuses %s=%s naming the value', async (name, value) => {
    const r = await t.get(`/v1/businesses?${name}=${encodeURIComponent(value)}`);
    expectBadParameter(r, name, /more than once/);
  });

  it('names no value that is not plain printable text', async () => {
    const r = await t.get(`/v1/businesses?source=${encodeURIComponent('x\u202ey,x\u202ey')}`);
    expectBadParameter(r, 'source', /names a value more than once/);
    expect(JSON.stringify(r.body)).not.toContain('\u202e');
  });

  it('every value once is read as any of them, in any order', async () => {
    const all = await t.get('/v1/businesses?source=found,member,registered');
    expect(all.status).toBe(200);
    expect(all.body.businesses).toHaveLength(3);
    const two = await t.get('/v1/businesses?source=registered,found');
    expect(two.body.businesses.map((b: { domain: string }) => b.domain).sort()).toEqual(['bakery.example', 'shop.example']);
  });

  it('the same refusal through MCP', async () => {
    const result = await client.callTool({ name: 'search_businesses', arguments: { source: 'member,registered,found,member,found' } });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.structuredContent)).toMatch(/names member more than once/);
  });

  it('the OpenAPI description of each list says so', async () => {
    const doc = (await t.get('/openapi.json')).body;
    const parameters = doc.paths['/v1/businesses'].get.parameters as { name: string; description?: string }[];
    for (const name of ['source', 'accepts', 'door_type', 'attributes']) {
      expect(parameters.find((p) => p.name === name)?.description, name).toMatch(/named once/);
    }
    expect(parameters.find((p) => p.name === 'limit')?.description).toMatch(/decimal digits only/);
  });
});
