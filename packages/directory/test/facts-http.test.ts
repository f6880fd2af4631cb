/**
 * The facts of a business that is not a member (issue 20): every value its detail view shows that
 * the business published has its fact, under the listing's own field name, with the value exactly as
 * shown (the place, the rounded point), a source and a date; over every non-member of a generated
 * set, over REST and MCP.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateListings } from '../src/demo/listing-generator.js';
import { taxonomyCategoryPicker } from '../src/demo/seed-directory.js';
import { MONDAY } from './support/fixtures.js';
import { startDirectory, type TestDirectory } from './support/harness.js';

interface Fact {
  field: string;
  v: unknown;
  src: string;
  at: string;
  url?: string;
  via?: string;
}

/** Fields a listing shows that the business published: each has its fact when shown. */
const PUBLISHED = ['name', 'description', 'city', 'country', 'address', 'categories', 'tags', 'languages', 'item_types', 'protocols', 'hours', 'services', 'geo', 'url', 'category', 'place'];

let t: TestDirectory;
let client: Client;
const details: Record<string, any>[] = [];

beforeAll(async () => {
  const listings = [...generateListings({ count: 300, seed: 31, nowMs: MONDAY, placeCategoryOf: taxonomyCategoryPicker() })];
  t = await startDirectory({ listings, answerWorkers: 0 });
  for (const query of ['source=registered,found', 'source=registered,found&category=software-ai']) {
    let cursor: string | null = null;
    do {
      const page: any = await t.get(`/v1/businesses?${query}&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      for (const b of page.body.businesses) details.push((await t.get(`/v1/businesses/${b.domain}`)).body);
      cursor = page.body.next_cursor;
    } while (cursor !== null);
  }
  client = new Client({ name: 'facts-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`)));
}, 60_000);

afterAll(async () => {
  await client?.close();
  await t?.close();
});

const isEmpty = (v: unknown) => v === undefined || v === null || v === '' || (Array.isArray(v) ? v.length === 0 : typeof v === 'object' && Object.keys(v as object).length === 0);

/** The value the view shows under a fact's field. */
function shownAt(view: Record<string, any>, field: string): unknown {
  if (field.startsWith('attributes.')) return view.attributes?.[field.slice('attributes.'.length)]?.v;
  if (field === 'accepts.pay') return view.accepts?.pay;
  return view[field];
}

describe('facts of businesses that are not members', () => {
  it('cover every published value shown, one fact each, under the listing\'s own names', () => {
    expect(details.length).toBeGreaterThan(200);
    for (const view of details) {
      const facts = view.facts as Fact[];
      const fields = facts.map((f) => f.field);
      expect(new Set(fields).size, view.domain).toBe(fields.length);
      for (const field of fields) expect(field, view.domain).toMatch(/^[a-z][a-z_]*(\.[a-z0-9_]+)?$/);
      for (const field of PUBLISHED) if (!isEmpty(view[field])) expect(fields, `${view.domain} ${field}`).toContain(field);
      for (const key of Object.keys(view.attributes ?? {})) expect(fields, `${view.domain} attributes.${key}`).toContain(`attributes.${key}`);
      if (!isEmpty(view.accepts?.pay)) expect(fields, `${view.domain} accepts.pay`).toContain('accepts.pay');
    }
  });

  it('give every value exactly as shown: the place, the point, the payments, each attribute', () => {
    let places = 0;
    for (const view of details) {
      for (const fact of view.facts as Fact[]) {
        if (fact.field === 'price_band') {
          // Not a listing field: what price_band= filters on, a digit 1 to 4.
          expect([1, 2, 3, 4]).toContain(fact.v);
          continue;
        }
        expect(fact.v, `${view.domain} ${fact.field}`).toEqual(shownAt(view, fact.field));
        if (fact.field === 'place') places++;
      }
    }
    expect(places).toBeGreaterThan(100);
  });

  it('never use internal names', () => {
    const text = JSON.stringify(details.map((d) => d.facts));
    for (const internal of ['priceBand', 'shipsTo', 'serviceArea', 'radiusKm', 'postalCode', 'itemTypes', 'placeCategory', '"payments"']) expect(text).not.toContain(internal);
  });

  it('each has a source and a date, and a page or means only as text', () => {
    for (const view of details) {
      for (const fact of view.facts as Fact[]) {
        expect(['declared', 'seen', 'probably'], `${view.domain} ${fact.field}`).toContain(fact.src);
        expect(Number.isNaN(Date.parse(fact.at)), `${view.domain} ${fact.field}`).toBe(false);
        if (fact.url !== undefined) expect(() => new URL(fact.url!)).not.toThrow();
        if (fact.via !== undefined) expect(typeof fact.via).toBe('string');
      }
      const attribute = (view.facts as Fact[]).find((f) => f.field.startsWith('attributes.'));
      if (attribute) expect(attribute.src).toBe(view.attributes[attribute.field.slice('attributes.'.length)].src);
    }
  });

  it('are the same through MCP', async () => {
    for (const view of details.slice(0, 10)) {
      const result = await client.callTool({ name: 'get_business', arguments: { domain: view.domain } });
      expect((result.structuredContent as { facts: Fact[] }).facts, view.domain).toEqual(view.facts);
    }
  });

  it('members have none: their inbox speaks for them', async () => {
    const members = (await t.get('/v1/businesses?source=member&limit=5')).body.businesses as { domain: string }[];
    expect(members.length).toBeGreaterThan(0);
    for (const m of members) expect((await t.get(`/v1/businesses/${m.domain}`)).body).not.toHaveProperty('facts');
  });
});
