/**
 * One payment vocabulary (issue 20): every payment a listing shows in accepts.pay is a token of
 * GET /v1/attributes, with its name, and `accepts=<token>` finds exactly the listings that show it;
 * over generated listings of every country with local payments, over REST and MCP.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRows } from '../../../test-support/test-database.js';
import { generateListings } from '../src/demo/listing-generator.js';
import { LOCAL_PAYMENTS } from '../src/demo/locale.js';
import { taxonomyCategoryPicker } from '../src/demo/seed-directory.js';
import { isPaymentToken } from '../src/domain/vocab/attributes.js';
import { MONDAY, listing } from './support/fixtures.js';
import { startDirectory, type TestDirectory } from './support/harness.js';

interface Shown {
  domain: string;
  accepts?: { kinds: string[]; pay?: string[] };
}

let t: TestDirectory;
let client: Client;
/** Every listing a search can show, by domain: local and retail ones, and software and AI ones. */
const shown = new Map<string, Shown>();

async function walk(query: string): Promise<Shown[]> {
  const out: Shown[] = [];
  let cursor: string | null = null;
  do {
    const r: { status: number; body: { businesses: Shown[]; next_cursor: string | null } } = await t.get(
      `/v1/businesses?${query}&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    expect(r.status, query).toBe(200);
    out.push(...r.body.businesses);
    cursor = r.body.next_cursor;
  } while (cursor !== null);
  return out;
}

const KINDS = ['source=member,registered,found', 'category=software-ai'];

beforeAll(async () => {
  const listings = [...generateListings({ count: 2_000, seed: 2020, nowMs: MONDAY, countries: Object.keys(LOCAL_PAYMENTS), placeCategoryOf: taxonomyCategoryPicker() })];
  t = await startDirectory({ listings, answerWorkers: 0 });
  // Without a filter a search shows local and retail businesses; software and AI ones need their group.
  for (const query of KINDS) for (const listing of await walk(query)) shown.set(listing.domain, listing);
  client = new Client({ name: 'payments-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`)));
}, 60_000);

afterAll(async () => {
  await client?.close();
  await t?.close();
});

describe('the payments listings show', () => {
  it('every local payment of the demo generator is a token of the vocabulary', () => {
    for (const [country, tokens] of Object.entries(LOCAL_PAYMENTS)) for (const token of tokens) expect(isPaymentToken(token), `${country} ${token}`).toBe(true);
  });

  it('are all tokens of GET /v1/attributes, each with its name, and every local payment is shown somewhere', async () => {
    const doc = (await t.get('/v1/attributes')).body;
    const vocabulary = new Set<string>([...doc.payments.methods, ...doc.payments.wallets, ...doc.payments.agent]);
    expect(Object.keys(doc.payment_labels).sort()).toEqual([...vocabulary].sort());
    for (const name of Object.values<string>(doc.payment_labels)) expect(name.length).toBeGreaterThan(0);
    const carried = new Set<string>();
    for (const listing of shown.values()) for (const token of listing.accepts?.pay ?? []) carried.add(token);
    expect(shown.size).toBeGreaterThan(500);
    for (const token of carried) expect(vocabulary.has(token), token).toBe(true);
    for (const token of new Set(Object.values(LOCAL_PAYMENTS).flat())) expect(carried.has(token), `${token} shown by some listing`).toBe(true);
    // The spellings the audit found outside the vocabulary are gone.
    for (const gone of ['sepa_debit', 'mobilepay', 'giropay']) expect(carried.has(gone), gone).toBe(false);
  });

  it('accepts=<token> finds exactly the listings that show it, for every token shown', async () => {
    const carried = new Set<string>();
    for (const listing of shown.values()) for (const token of listing.accepts?.pay ?? []) carried.add(token);
    for (const token of carried) {
      const expected = [...shown.values()].filter((l) => l.accepts?.pay?.includes(token)).map((l) => l.domain).sort();
      const found: string[] = [];
      for (const query of KINDS) found.push(...(await walk(`${query}&accepts=${token}`)).map((l) => l.domain));
      expect(found.sort(), token).toEqual(expected);
    }
  }, 60_000);

  it('the same through MCP: accepts=paypay and accepts=cb are taken', async () => {
    for (const token of ['paypay', 'cb', 'vipps_mobilepay', 'sepa_direct_debit']) {
      const result = await client.callTool({ name: 'search_businesses', arguments: { accepts: token, limit: 100 } });
      expect(result.isError, token).toBeFalsy();
      const businesses = (result.structuredContent as { businesses: Shown[] }).businesses;
      expect(businesses.length, token).toBeGreaterThan(0);
      for (const b of businesses) expect(b.accepts?.pay, token).toContain(token);
    }
    const refused = await client.callTool({ name: 'search_businesses', arguments: { accepts: 'sepa_debit' } });
    expect(refused.isError).toBe(true);
  });
});

describe('a directory whose listings were stored with the old spellings', () => {
  it('spells them as the vocabulary does once opened (sepa_direct_debit, vipps_mobilepay; giropay dropped), and finds them by it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'payments-migration-'));
    const old = await startDirectory({
      dataDir,
      answerWorkers: 0,
      listings: [
        listing('old-spellings.example', { name: 'Alte Bäckerei', payments: ['card', 'sepa_debit', 'giropay', 'mobilepay', 'sepa_direct_debit'] }),
        listing('untouched.example', { name: 'Untouched Shop', payments: ['card', 'paypal'] }),
      ],
    });
    await old.close({ removeData: false });
    // As if the listings had been stored before this migration.
    await rawRows('directory', dataDir, "DELETE FROM kysely_migration WHERE name >= '0004-payment-spellings'");
    const reopened = await startDirectory({ dataDir, answerWorkers: 0 });
    try {
      await reopened.directory.pagesReady;
      expect((await reopened.get('/v1/businesses/old-spellings.example')).body.accepts.pay).toEqual(['card', 'sepa_direct_debit', 'vipps_mobilepay']);
      expect((await reopened.get('/v1/businesses/untouched.example')).body.accepts.pay).toEqual(['card', 'paypal']);
      const page = await reopened.get('/v1/businesses?accepts=vipps_mobilepay');
      expect(page.body.businesses.map((b: Shown) => [b.domain, b.accepts?.pay])).toEqual([['old-spellings.example', ['card', 'sepa_direct_debit', 'vipps_mobilepay']]]);
    } finally {
      await reopened.close();
    }
  });
});
