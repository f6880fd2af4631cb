/**
 * Product feeds over HTTP (docs/feeds.md; inbox spec §4 "Product feeds have MCP tools list_feeds,
 * add_feed, import_feed_now, remove_feed"): real feed files served from 127.0.0.1, imported by the
 * durable job, seen through the public list_products; re-imports update, count and archive; hand-made
 * products are never touched; bad entries are skipped with reasons; documents that are not feeds
 * change nothing; every refusal of the operations.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { storedAnywhere } from '../../../test-support/test-database.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, startFeedInbox, startFeedServer, type FeedServer } from './feeds-support.js';
import type { TestInbox } from './support/harness.js';

const HOUR_MS = 3_600_000;
let t: TestInbox;
let shop: FeedServer;

beforeAll(async () => {
  [t, shop] = await Promise.all([startFeedInbox(), startFeedServer()]);
});
afterAll(async () => {
  await t.close();
  await shop.close();
});

async function addFeed(path: string, extra: Record<string, unknown> = {}) {
  const answer = await t.owner('POST', '/v1/owner/feeds', { body: { url: `${shop.origin}${path}`, ...extra } });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body as any;
}

async function feed(id: string) {
  const answer = await t.owner('GET', `/v1/owner/feeds/${id}`);
  expect(answer.status).toBe(200);
  return answer.body as any;
}

async function publicProducts(): Promise<Map<string, any>> {
  const items: any[] = [];
  let cursor: string | null = null;
  do {
    const page: any = await t.request('GET', `/v1/products?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(page.status).toBe(200);
    items.push(...page.body.items);
    cursor = page.body.next_cursor;
  } while (cursor);
  return new Map(items.map((p) => [p.productId, p]));
}

async function ownerProducts(): Promise<Map<string, any>> {
  const items: any[] = [];
  let cursor: string | null = null;
  do {
    const page: any = await t.owner('GET', `/v1/owner/products?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    items.push(...page.body.items);
    cursor = page.body.next_cursor;
  } while (cursor);
  return new Map(items.map((p) => [p.productId, p]));
}

const HAND_MADE = ['argan-shampoo', 'repair-mask', 'sea-salt-spray', 'wooden-comb', 'gift-card-50'];

describe('a Google Merchant Center RSS feed, added and imported', () => {
  let id: string;
  let handMadeBefore: any[];

  it('add_feed answers 201 with a Location, the feed queued for its first import', async () => {
    shop.serve('/feed.xml', fixture('shop.xml'));
    const before = await ownerProducts();
    handMadeBefore = HAND_MADE.map((p) => before.get(p));
    const created = await t.owner('POST', '/v1/owner/feeds', { body: { url: `${shop.origin}/feed.xml`, name: 'Main shop' } });
    expect(created.status).toBe(201);
    id = created.body.id;
    expect(created.headers.get('location')).toBe(`/v1/owner/feeds/${id}`);
    expect(created.body).toMatchObject({
      name: 'Main shop',
      url: `${shop.origin}/feed.xml`,
      everyHours: 24,
      status: 'queued',
      nextImportAt: '2026-11-23T10:00:00.000Z',
      lastSuccessAt: null,
      lastError: null,
      products: { active: 0, archived: 0 },
      lastRun: null,
    });
    expect(await feed(id)).toMatchObject({ id, runs: [] });
    expect(shop.hits('/feed.xml')).toBe(0);
  });

  it('imports the valid entries as products with their prices in minor units, currency and stock', async () => {
    await t.inbox.jobs.runDue();
    expect(shop.hits('/feed.xml')).toBe(1);
    const read = await feed(id);
    expect(read.lastRun).toMatchObject({ trigger: 'added', status: 'succeeded', format: 'rss', entries: 13, created: 4, updated: 0, unchanged: 0, skipped: 9, archived: 0, error: null });
    expect(read).toMatchObject({ status: 'scheduled', nextImportAt: '2026-11-24T10:00:00.000Z', lastSuccessAt: '2026-11-23T10:00:00.000Z', products: { active: 4, archived: 0 } });
    expect(read.runs).toHaveLength(1);

    const products = await publicProducts();
    expect(products.get('SHAMPOO-1')).toEqual({
      productId: 'SHAMPOO-1',
      sku: '5601234567890',
      name: 'Camomile & honey shampoo 250 ml',
      description: 'Gentle daily shampoo for fine hair.',
      price: 1250,
      priceCurrency: 'EUR',
      category: 'Hair care > Shampoo',
      image: 'https://shop.example.com/img/shampoo-1.jpg',
      url: 'https://shop.example.com/p/shampoo-1',
      inStock: true,
      active: true,
    });
    expect(products.get('COND-2')).toMatchObject({ price: 800, inStock: false, sku: 'CND-200', category: 'Health & Beauty > Personal Care > Hair Care', url: 'https://shop.example.com/p/cond-2' });
    expect(products.get('OIL-4')).toMatchObject({ price: 2400, inStock: true, sku: null, category: null, image: null });
    const mask = [...products.values()].find((p) => p.name === 'Café mask');
    expect(mask?.productId).toMatch(/^MASK-3-blue-[0-9a-f]{8}$/);
    expect(mask).toMatchObject({ price: 1990, inStock: false });
    for (const absent of ['NOPRICE-6', 'USD-7', 'HUGE-8', 'XYZ-9', 'FINE-10', 'COMB-13']) expect(products.has(absent)).toBe(false);
  });

  it('skips bad entries with the reason, and never touches what the owner made by hand', async () => {
    const { lastRun } = await feed(id);
    const reasons = Object.fromEntries(lastRun.skippedEntries.map((s: any) => [s.entry, s]));
    expect(reasons[5]).toMatchObject({ id: null, reason: 'no g:id' });
    expect(reasons[6]).toMatchObject({ id: 'NOPRICE-6', reason: 'no g:price' });
    expect(reasons[7]).toMatchObject({ id: 'USD-7', reason: 'priced in USD; this business sells in EUR' });
    expect(reasons[8].reason).toMatch(/too large/);
    expect(reasons[9].reason).toMatch(/unknown currency XYZ/);
    expect(reasons[10].reason).toMatch(/more decimals than EUR has \(2\)/);
    expect(reasons[11]).toMatchObject({ id: 'SHAMPOO-1' });
    expect(reasons[11].reason).toMatch(/appears earlier/);
    expect(reasons[12].reason).toMatch(/argan-shampoo was made by hand/);
    expect(reasons[13].reason).toMatch(/SKU AUR-CB-01 already belongs to product wooden-comb/);
    const after = await ownerProducts();
    expect(HAND_MADE.map((p) => after.get(p))).toEqual(handMadeBefore);
  });

  it('import_feed_now answers 202 with the feed queued; the re-import updates, counts unchanged and archives what vanished', async () => {
    shop.serve('/feed.xml', fixture('shop-v2.xml'));
    t.clock.advance(HOUR_MS);
    const queued = await t.owner('POST', `/v1/owner/feeds/${id}/import`);
    expect(queued.status).toBe(202);
    expect(queued.body).toMatchObject({ id, status: 'queued', nextImportAt: '2026-11-23T11:00:00.000Z' });
    await t.inbox.jobs.runDue();
    const read = await feed(id);
    expect(read.lastRun).toMatchObject({ trigger: 'manual', status: 'succeeded', entries: 4, created: 1, updated: 1, unchanged: 2, skipped: 0, archived: 1 });
    expect(read.products).toEqual({ active: 4, archived: 1 });
    expect(read.runs.map((r: any) => r.trigger)).toEqual(['manual', 'added']);
    expect(read.nextImportAt).toBe('2026-11-24T11:00:00.000Z');

    const products = await publicProducts();
    expect(products.get('SHAMPOO-1')).toMatchObject({ price: 1300, inStock: false, sku: '5601234567890' });
    expect(products.get('BRUSH-5')).toMatchObject({ price: 2100, inStock: false });
    expect([...products.values()].some((p) => p.name === 'Café mask')).toBe(false);
    const all = await ownerProducts();
    const mask = [...all.values()].find((p) => p.name === 'Café mask');
    expect(mask).toMatchObject({ active: false, price: 1990 });
    expect(HAND_MADE.map((p) => all.get(p))).toEqual(handMadeBefore);
  });

  it('an unchanged feed counts every entry unchanged and archives nothing twice', async () => {
    await t.owner('POST', `/v1/owner/feeds/${id}/import`);
    await t.inbox.jobs.runDue();
    expect((await feed(id)).lastRun).toMatchObject({ created: 0, updated: 0, unchanged: 4, archived: 0, skipped: 0 });
  });

  it('re-imports on its own after everyHours, and brings an archived product back when it returns', async () => {
    shop.serve('/feed.xml', fixture('shop.xml'));
    const hits = shop.hits('/feed.xml');
    t.clock.advance(23 * HOUR_MS);
    await t.inbox.jobs.runDue();
    expect(shop.hits('/feed.xml')).toBe(hits);
    t.clock.advance(HOUR_MS);
    await t.inbox.jobs.runDue();
    expect(shop.hits('/feed.xml')).toBe(hits + 1);
    const read = await feed(id);
    expect(read.lastRun).toMatchObject({ trigger: 'scheduled', status: 'succeeded', created: 0, archived: 1 });
    // MASK came back (updated: active again), SHAMPOO-1 changed back; BRUSH-5 left the feed.
    const products = await publicProducts();
    expect([...products.values()].find((p) => p.name === 'Café mask')).toMatchObject({ active: true });
    expect(products.has('BRUSH-5')).toBe(false);
  });

  it('a feed that breaks later records the error and keeps its products as they were', async () => {
    const before = await ownerProducts();
    shop.serve('/feed.xml', fixture('not-a-feed.html'), 'text/html');
    await t.owner('POST', `/v1/owner/feeds/${id}/import`);
    await t.inbox.jobs.runDue();
    const read = await feed(id);
    expect(read.lastRun).toMatchObject({ status: 'failed', created: 0, updated: 0, archived: 0 });
    expect(read.lastRun.error).toMatch(/HTML page/);
    expect(read.lastError).toEqual({ message: read.lastRun.error, at: new Date(t.clock.now()).toISOString() });
    // A failed run is tried again within the hour rather than a day later.
    expect(read.nextImportAt).toBe(new Date(t.clock.now() + HOUR_MS).toISOString());
    expect(await ownerProducts()).toEqual(before);

    shop.serve('/feed.xml', fixture('shop.xml'));
    t.clock.advance(HOUR_MS);
    await t.inbox.jobs.runDue();
    const healed = await feed(id);
    expect(healed.lastRun).toMatchObject({ trigger: 'retry', status: 'succeeded' });
    expect(healed.lastError).not.toBeNull();
  });
});

describe('other feed formats', () => {
  it('imports Atom with the Google namespace under any prefix, ignoring Atom\'s own <id>', async () => {
    shop.serve('/shop.atom', fixture('shop.atom'), 'application/atom+xml');
    const added = await addFeed('/shop.atom');
    await t.inbox.jobs.runDue();
    expect((await feed(added.id)).lastRun).toMatchObject({ status: 'succeeded', format: 'atom', entries: 2, created: 2, skipped: 0 });
    const products = await publicProducts();
    expect(products.get('ATOM-1')).toMatchObject({ name: 'Atom hair clip', price: 320, sku: 'CLIP-01', url: 'https://shop.example.com/p/atom-1', image: 'https://shop.example.com/img/atom-1.png', inStock: true });
    expect(products.get('ATOM-2')).toMatchObject({ price: 200, inStock: true });
  });

  it('imports the tab-separated variant with the attribute names as its header row', async () => {
    shop.serve('/shop.tsv', fixture('shop.tsv'), 'text/tab-separated-values');
    const added = await addFeed('/shop.tsv');
    await t.inbox.jobs.runDue();
    const { lastRun } = await feed(added.id);
    expect(lastRun).toMatchObject({ status: 'succeeded', format: 'tsv', entries: 3, created: 2, skipped: 1 });
    expect(lastRun.skippedEntries).toEqual([{ entry: 3, id: 'TSV-3', reason: expect.stringMatching(/"cheap" is not an amount/) }]);
    const products = await publicProducts();
    expect(products.get('TSV-1')).toMatchObject({ name: 'Travel comb', description: 'Fits a pocket.', price: 450, sku: '5600000000017', category: 'Accessories', inStock: true });
    expect(products.get('TSV-2')).toMatchObject({ name: 'Hair tie, 10 pack', price: 150, inStock: false, description: null });
  });

  it('leaves products another feed brought to that feed', async () => {
    shop.serve('/copy.xml', fixture('shop-v2.xml'));
    const copy = await addFeed('/copy.xml');
    await t.inbox.jobs.runDue();
    const { lastRun } = await feed(copy.id);
    // Every entry belongs to the main feed: nothing usable, so the run fails and changes nothing.
    expect(lastRun).toMatchObject({ status: 'failed', created: 0, skipped: 4 });
    expect(lastRun.skippedEntries[0].reason).toMatch(/comes from another feed/);
    expect((await t.owner('DELETE', `/v1/owner/feeds/${copy.id}`)).status).toBe(200);
  });
});

describe('documents that are not feeds change nothing', () => {
  const cases: [string, () => void, RegExp][] = [
    ['/missing', () => undefined, /HTTP 404/],
    ['/page.html', () => shop.serve('/page.html', fixture('not-a-feed.html'), 'text/html'), /HTML page/],
    ['/garbage.txt', () => shop.serve('/garbage.txt', fixture('garbage.txt'), 'text/plain'), /neither XML nor a tab-separated feed/],
    ['/huge', () => undefined, /larger than 20 MiB/],
    ['/moved', () => undefined, /redirects/],
    ['/entities.xml', () => shop.serve('/entities.xml', fixture('entities.xml')), /DOCTYPE/],
    ['/opml.xml', () => shop.serve('/opml.xml', fixture('other-rss.xml')), /not an RSS 2.0 or Atom feed \(its root element is <opml>\)/],
    ['/empty.xml', () => shop.serve('/empty.xml', fixture('empty.xml')), /no entries/],
  ];
  for (const [path, setUp, error] of cases) {
    it(`${path}: the run fails with the reason and no product changes`, async () => {
      setUp();
      const before = await ownerProducts();
      const added = await addFeed(path);
      await t.inbox.jobs.runDue();
      const read = await feed(added.id);
      expect(read.lastRun.status).toBe('failed');
      expect(read.lastRun.error).toMatch(error);
      expect(read.lastError?.message).toBe(read.lastRun.error);
      expect(read.products).toEqual({ active: 0, archived: 0 });
      expect(await ownerProducts()).toEqual(before);
      expect((await t.owner('DELETE', `/v1/owner/feeds/${added.id}`)).status).toBe(200);
    });
  }
});

describe('remove_feed', () => {
  it('forgets the feed and leaves its products in the catalogue, detached', async () => {
    shop.serve('/removable.xml', fixture('shop.atom'), 'application/atom+xml');
    const list = (await t.owner('GET', '/v1/owner/feeds')).body.items as any[];
    const atomFeed = list.find((f) => f.url.endsWith('/shop.atom'));
    expect(atomFeed.products).toEqual({ active: 2, archived: 0 });
    const removed = await t.owner('DELETE', `/v1/owner/feeds/${atomFeed.id}`);
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ id: atomFeed.id, detachedProducts: 2 });
    expect((await t.owner('GET', `/v1/owner/feeds/${atomFeed.id}`)).status).toBe(404);
    expect((await t.owner('DELETE', `/v1/owner/feeds/${atomFeed.id}`)).status).toBe(404);
    const products = await publicProducts();
    expect(products.get('ATOM-1')).toMatchObject({ active: true, price: 320 });

    // Detached products are the owner's now: a new feed with the same entries leaves them alone.
    shop.serve('/again.atom', fixture('shop.atom'), 'application/atom+xml');
    const again = await addFeed('/again.atom');
    await t.inbox.jobs.runDue();
    const { lastRun } = await feed(again.id);
    expect(lastRun).toMatchObject({ status: 'failed', skipped: 2 });
    expect(lastRun.skippedEntries[0].reason).toMatch(/ATOM-1 was made by hand/);
    await t.owner('DELETE', `/v1/owner/feeds/${again.id}`);
  });

  it('a removed feed\'s queued import ends quietly', async () => {
    shop.serve('/gone.xml', fixture('shop-v2.xml'));
    const added = await addFeed('/gone.xml');
    expect((await t.owner('DELETE', `/v1/owner/feeds/${added.id}`)).status).toBe(200);
    const hits = shop.hits('/gone.xml');
    await t.inbox.jobs.runDue();
    expect(shop.hits('/gone.xml')).toBe(hits);
    const jobs = await t.inbox.store.jobs.list('feed.import');
    expect(jobs.find((j) => j.payload.feedId === added.id)?.status).toBe('done');
  });
});

describe('feed URLs and their secrets', () => {
  it('keeps the URL sealed and shows its query values redacted', async () => {
    shop.serve('/token.xml?token=s3cret-token-value&lang=pt', fixture('shop-v2.xml'));
    const added = await addFeed('/token.xml?token=s3cret-token-value&lang=pt', { everyHours: 6 });
    expect(added.url).toBe(`${shop.origin}/token.xml?token=redacted&lang=redacted`);
    expect(added.name).toBe(`${new URL(shop.origin).host}/token.xml`);
    const listed = await t.owner('GET', '/v1/owner/feeds?limit=100');
    expect(JSON.stringify(listed.body)).not.toContain('s3cret-token-value');
    const stored = await t.inbox.store.feeds.get(added.id);
    expect(stored?.urlSealed).not.toContain('s3cret');
    // The whole database (on SQLite with its WAL) never holds the token in clear.
    expect(await storedAnywhere('inbox', t.dataDir, 's3cret-token-value')).toBe(false);
    // The import fetches the real URL, token included.
    await t.inbox.jobs.runDue();
    expect(shop.hits('/token.xml?token=s3cret-token-value&lang=pt')).toBe(1);
    expect((await feed(added.id)).lastRun.status).toBe('failed'); // its entries belong to the main feed
    await t.owner('DELETE', `/v1/owner/feeds/${added.id}`);
  });
});

describe('refusals', () => {
  let strict: TestInbox;
  beforeAll(async () => {
    strict = await startFeedInbox({ allowLocalFeeds: false });
  });
  afterAll(async () => {
    await strict.close();
  });

  it('every feed operation needs the owner\'s key', async () => {
    for (const [method, path] of [
      ['GET', '/v1/owner/feeds'],
      ['POST', '/v1/owner/feeds'],
      ['GET', '/v1/owner/feeds/01JAAAAAAAAAAAAAAAAAAAAAAA'],
      ['POST', '/v1/owner/feeds/01JAAAAAAAAAAAAAAAAAAAAAAA/import'],
      ['DELETE', '/v1/owner/feeds/01JAAAAAAAAAAAAAAAAAAAAAAA'],
    ] as const) {
      const body = method === 'POST' ? { body: { url: 'https://shop.example.com/feed.xml' } } : {};
      const answer = await strict.request(method, path, body);
      expect(answer.status, `${method} ${path}`).toBe(401);
      expect(answer.body.code).toBe('unauthorized');
      const wrong = await strict.request(method, path, { ...body, headers: { authorization: 'Bearer svc_own_wrong' } });
      expect(wrong.status).toBe(401);
    }
    expect((await strict.owner('GET', '/v1/owner/feeds')).body.items).toEqual([]);
  });

  it('refuses URLs that are not https on a public host name', async () => {
    const refused: [unknown, RegExp][] = [
      [undefined, /url/],
      ['', /url/],
      ['feed.xml', /not a URL/],
      ['ftp://shop.example.com/feed.xml', /https/],
      ['http://shop.example.com/feed.xml', /https/],
      ['https://93.184.216.34/feed.xml', /IP address/],
      ['https://10.0.0.1/feed.xml', /IP address/],
      ['https://[2001:4860::8888]/feed.xml', /IP address/],
      ['https://localhost/feed.xml', /not a public host name|internal name/],
      ['https://shop.localhost/feed.xml', /not a public host name|internal name/],
      ['http://127.0.0.1:8080/feed.xml', /https/],
      ['https://127.0.0.1/feed.xml', /IP address/],
      ['https://printer.local/feed.xml', /not a public host name|internal name/],
      ['https://erp.internal/feed.xml', /not a public host name|internal name/],
      ['https://intranet/feed.xml', /not a public host name|internal name/],
      ['https://nas.home.arpa/feed.xml', /not a public host name|internal name/],
      ['https://user:pass@shop.example.com/feed.xml', /user name or password/],
      ['https://1.2.3.4.5/feed.xml', /not a URL/],
      ['https://shop.onion/feed.xml', /not a public host name/],
      [`https://shop.example.com/${'a'.repeat(2000)}`, /url/],
      [42, /url/],
    ];
    for (const [url, message] of refused) {
      const answer = await strict.owner('POST', '/v1/owner/feeds', { body: url === undefined ? {} : { url } });
      expect(answer.status, String(url)).toBe(422);
      expect(answer.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(answer.body.code).toBe('invalid_input');
      expect(answer.body.fields?.[0]?.path).toBe('url');
      expect(`${answer.body.detail} ${answer.body.fields[0].message}`).toMatch(message);
    }
    expect((await strict.owner('GET', '/v1/owner/feeds')).body.items).toEqual([]);
    expect(await strict.inbox.store.jobs.list('feed.import')).toEqual([]);
  });

  it('refuses bad everyHours and names', async () => {
    for (const everyHours of [0, 169, 1.5, '24', null]) {
      const answer = await strict.owner('POST', '/v1/owner/feeds', { body: { url: 'https://shop.example.com/feed.xml', everyHours } });
      expect(answer.status, String(everyHours)).toBe(422);
      expect(answer.body.fields[0].path).toBe('everyHours');
    }
    for (const name of ['', '   ', 'x'.repeat(101)]) {
      const answer = await strict.owner('POST', '/v1/owner/feeds', { body: { url: 'https://shop.example.com/feed.xml', name } });
      expect(answer.status).toBe(422);
      expect(answer.body.fields[0].path).toBe('name');
    }
    expect((await strict.owner('GET', '/v1/owner/feeds')).body.items).toEqual([]);
  });

  it('adds one URL once, and at most 20 feeds', async () => {
    const first = await strict.owner('POST', '/v1/owner/feeds', { body: { url: 'https://shop.example.com/feed.xml#top' } });
    expect(first.status).toBe(201);
    const again = await strict.owner('POST', '/v1/owner/feeds', { body: { url: 'https://shop.example.com/feed.xml' } });
    expect(again.status).toBe(422);
    expect(again.body.fields[0]).toMatchObject({ path: 'url', message: `Already added as feed ${first.body.id}.` });
    for (let n = 2; n <= 20; n += 1) {
      expect((await strict.owner('POST', '/v1/owner/feeds', { body: { url: `https://shop${n}.example.com/feed.xml` } })).status).toBe(201);
    }
    const tooMany = await strict.owner('POST', '/v1/owner/feeds', { body: { url: 'https://shop21.example.com/feed.xml' } });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.detail).toMatch(/at most 20 feeds/);
  });

  it('pages the list with a cursor and refuses a cursor it did not give', async () => {
    const first = await strict.owner('GET', '/v1/owner/feeds?limit=15');
    expect(first.body.items).toHaveLength(15);
    const second = await strict.owner('GET', `/v1/owner/feeds?limit=15&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect(second.body.items).toHaveLength(5);
    expect(second.body.next_cursor).toBeNull();
    expect(new Set([...first.body.items, ...second.body.items].map((f: any) => f.id)).size).toBe(20);
    expect((await strict.owner('GET', '/v1/owner/feeds?cursor=bogus')).status).toBe(422);
    expect((await strict.owner('GET', '/v1/owner/feeds?limit=0')).status).toBe(422);
    expect((await strict.owner('GET', '/v1/owner/feeds?limit=101')).status).toBe(422);
  });

  it('answers 404 for a feed it does not have', async () => {
    for (const [method, path] of [
      ['GET', '/v1/owner/feeds/01JAAAAAAAAAAAAAAAAAAAAAAA'],
      ['POST', '/v1/owner/feeds/01JAAAAAAAAAAAAAAAAAAAAAAA/import'],
      ['DELETE', '/v1/owner/feeds/01JAAAAAAAAAAAAAAAAAAAAAAA'],
    ] as const) {
      const answer = await strict.owner(method, path);
      expect(answer.status).toBe(404);
      expect(answer.body.code).toBe('not_found');
    }
  });

  it('replays add_feed under one idempotency key and refuses the key with another request', async () => {
    const { items } = (await strict.owner('GET', '/v1/owner/feeds?limit=100')).body;
    for (const f of items) expect((await strict.owner('DELETE', `/v1/owner/feeds/${f.id}`)).status).toBe(200);
    const body = { url: 'https://feeds.example.org/products.tsv', everyHours: 12 };
    const first = await strict.owner('POST', '/v1/owner/feeds', { body, headers: { 'idempotency-key': 'feed-1' } });
    expect(first.status).toBe(201);
    const replay = await strict.owner('POST', '/v1/owner/feeds', { body, headers: { 'idempotency-key': 'feed-1' } });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.headers.get('location')).toBe(`/v1/owner/feeds/${first.body.id}`);
    expect(replay.body.id).toBe(first.body.id);
    const mismatch = await strict.owner('POST', '/v1/owner/feeds', { body: { ...body, everyHours: 6 }, headers: { 'idempotency-key': 'feed-1' } });
    expect(mismatch.status).toBe(422);
    expect(mismatch.body.code).toBe('idempotency_mismatch');
    expect((await strict.owner('GET', '/v1/owner/feeds')).body.items).toHaveLength(1);
  });
});

describe('the owner MCP server', () => {
  it('offers the feed operations as tools and answers them as REST does', async () => {
    const client = new Client({ name: 'feeds-test', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp/owner`), { requestInit: { headers: { authorization: `Bearer ${t.ownerKey}` } } }));
    try {
      const { tools } = await client.listTools();
      const names = tools.map((tool) => tool.name);
      for (const name of ['list_feeds', 'add_feed', 'get_feed', 'import_feed_now', 'remove_feed']) expect(names).toContain(name);
      const listed = await client.callTool({ name: 'list_feeds', arguments: {} });
      expect(listed.isError).toBeFalsy();
      expect((listed.structuredContent as any).items.length).toBeGreaterThan(0);
      const refused = await client.callTool({ name: 'add_feed', arguments: { url: 'http://shop.example.com/feed.xml' } });
      expect(refused.isError).toBe(true);
      expect((refused.structuredContent as any).error).toMatchObject({ status: 422, code: 'invalid_input' });
    } finally {
      await client.close();
    }
  });
});
