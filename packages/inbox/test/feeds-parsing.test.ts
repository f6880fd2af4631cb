/**
 * The pure parts of product feeds (docs/feeds.md): reading prices into ISO 4217 minor units,
 * which URLs may be added, reading documents safely, and mapping entries to products. Plus the one
 * race the HTTP tests cannot stage: an import asked for while a run is under way.
 */
import { describe, expect, it } from 'vitest';
import { FEED_MAX_ENTRIES, FeedDocumentError, parseFeedDocument } from '../src/domain/feeds/feed-document.js';
import { productIdFor, readFeedEntry } from '../src/domain/feeds/feed-entry.js';
import { finishFeedRun, startFeedRun } from '../src/domain/feeds/feed-import.js';
import { readFeedPrice } from '../src/domain/feeds/feed-price.js';
import { addFeed, importFeedNow } from '../src/domain/feeds/feed-service.js';
import { checkFeedUrl } from '../src/domain/feeds/feed-url.js';
import { fixture, startFeedInbox } from './feeds-support.js';

describe('readFeedPrice', () => {
  it('reads amounts into the minor units of each currency', () => {
    expect(readFeedPrice('12.50 EUR')).toEqual({ ok: true, amountMinor: 1250, currency: 'EUR' });
    expect(readFeedPrice('12.5 eur')).toEqual({ ok: true, amountMinor: 1250, currency: 'EUR' });
    expect(readFeedPrice('EUR 12')).toEqual({ ok: true, amountMinor: 1200, currency: 'EUR' });
    expect(readFeedPrice('  0.99   USD ')).toEqual({ ok: true, amountMinor: 99, currency: 'USD' });
    expect(readFeedPrice('0 EUR')).toEqual({ ok: true, amountMinor: 0, currency: 'EUR' });
    expect(readFeedPrice('1500 JPY')).toEqual({ ok: true, amountMinor: 1500, currency: 'JPY' });
    expect(readFeedPrice('1500.00 JPY')).toEqual({ ok: true, amountMinor: 1500, currency: 'JPY' });
    expect(readFeedPrice('1.250 KWD')).toEqual({ ok: true, amountMinor: 1250, currency: 'KWD' });
    expect(readFeedPrice('3.5 BHD')).toEqual({ ok: true, amountMinor: 3500, currency: 'BHD' });
    expect(readFeedPrice('1,299.90 USD')).toEqual({ ok: true, amountMinor: 129990, currency: 'USD' });
    expect(readFeedPrice('12,50 EUR')).toEqual({ ok: true, amountMinor: 1250, currency: 'EUR' });
    expect(readFeedPrice('90071992547409.91 EUR')).toEqual({ ok: true, amountMinor: Number.MAX_SAFE_INTEGER, currency: 'EUR' });
  });

  it('refuses what it cannot read exactly, with the reason', () => {
    const reason = (text: string) => {
      const read = readFeedPrice(text);
      return read.ok ? 'read' : read.reason;
    };
    expect(reason('12.50')).toMatch(/names no currency/);
    expect(reason('cheap')).toMatch(/not an amount/);
    expect(reason('12.50 XYZ')).toMatch(/unknown currency XYZ/);
    expect(reason('12.50 XAU')).toMatch(/unknown currency XAU/);
    expect(reason('12.5 JPY')).toMatch(/more decimals than JPY has \(0\)/);
    expect(reason('12.555 EUR')).toMatch(/more decimals than EUR has \(2\)/);
    expect(reason('1.23456 KWD')).toMatch(/more decimals than KWD has \(3\)/);
    expect(reason('1,299 USD')).toMatch(/could mean two amounts/);
    expect(reason('-5.00 EUR')).toMatch(/negative/);
    expect(reason('90071992547409.92 EUR')).toMatch(/too large/);
    expect(reason('1.2.3 EUR')).toMatch(/not a number/);
    expect(reason('1e5 EUR')).toMatch(/not an amount/);
    expect(reason('12.50 EUR USD')).toMatch(/not an amount/);
  });
});

describe('checkFeedUrl', () => {
  it('keeps https URLs on public names, drops the fragment and redacts query values', () => {
    expect(checkFeedUrl(' https://Shop.Example.com/feed.xml#x ', { allowLocalFeeds: false })).toMatchObject({
      href: 'https://shop.example.com/feed.xml',
      display: 'https://shop.example.com/feed.xml',
    });
    const tokened = checkFeedUrl('https://shop.example.com/f?key=abc&key=def&a%20b=1', { allowLocalFeeds: false });
    expect(tokened.href).toBe('https://shop.example.com/f?key=abc&key=def&a%20b=1');
    expect(tokened.display).toBe('https://shop.example.com/f?key=redacted&a%20b=redacted');
    expect(tokened.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(checkFeedUrl('https://shop.example.com:8443/feed', { allowLocalFeeds: false }).href).toBe('https://shop.example.com:8443/feed');
  });

  it('admits loopback over http only with the development setting', () => {
    expect(checkFeedUrl('http://127.0.0.1:9000/feed.xml', { allowLocalFeeds: true }).href).toBe('http://127.0.0.1:9000/feed.xml');
    expect(checkFeedUrl('http://localhost:9000/feed.xml', { allowLocalFeeds: true }).href).toBe('http://localhost:9000/feed.xml');
    expect(checkFeedUrl('http://[::1]:9000/feed.xml', { allowLocalFeeds: true }).href).toBe('http://[::1]:9000/feed.xml');
    expect(() => checkFeedUrl('http://127.0.0.1:9000/feed.xml', { allowLocalFeeds: false })).toThrow(/https/);
    // The setting opens loopback only, not private networks or plain http elsewhere.
    expect(() => checkFeedUrl('http://shop.example.com/feed.xml', { allowLocalFeeds: true })).toThrow(/https/);
    expect(() => checkFeedUrl('https://192.168.1.10/feed.xml', { allowLocalFeeds: true })).toThrow(/IP address/);
    expect(() => checkFeedUrl('file:///etc/passwd', { allowLocalFeeds: true })).toThrow(/https/);
  });
});

describe('parseFeedDocument', () => {
  it('reads RSS, Atom and tab-separated feeds', () => {
    const rss = parseFeedDocument(fixture('shop.xml'));
    expect(rss.format).toBe('rss');
    expect(rss.entries).toHaveLength(13);
    expect(rss.entries[0]).toMatchObject({ id: 'SHAMPOO-1', price: '12.50 EUR', title: 'Camomile & honey shampoo 250 ml', product_type: 'Hair care > Shampoo' });
    expect(rss.entries[2]).toMatchObject({ id: 'MASK 3/blue', title: 'Café mask' });
    const atom = parseFeedDocument(fixture('shop.atom'));
    expect(atom).toMatchObject({ format: 'atom', entries: [{ id: 'ATOM-1', link: 'https://shop.example.com/p/atom-1' }, { id: 'ATOM-2' }] });
    const tsv = parseFeedDocument(`\uFEFF${fixture('shop.tsv')}`);
    expect(tsv.format).toBe('tsv');
    expect(tsv.entries[1]).toMatchObject({ id: 'TSV-2', title: 'Hair tie, 10 pack', price: '1,50 EUR' });
    expect(tsv.entries[1]).not.toHaveProperty('description');
  });

  it('ignores attributes of other namespaces and never lets an element name reach the prototype', () => {
    const document = `<rss xmlns:g="http://base.google.com/ns/1.0" xmlns:x="urn:other"><channel><item>
      <x:price>1.00 EUR</x:price><g:price>2.00 EUR</g:price><g:id>A</g:id><hasOwnProperty>h</hasOwnProperty>
    </item></channel></rss>`;
    const [entry] = parseFeedDocument(document).entries;
    expect(entry?.price).toBe('2.00 EUR');
    expect(Object.getPrototypeOf(entry)).toBeNull();
    // Element names that would reach a prototype make the parser refuse the document.
    for (const name of ['__proto__', 'constructor', 'prototype']) {
      expect(() => parseFeedDocument(`<rss><channel><item><${name}>x</${name}></item></channel></rss>`)).toThrow(FeedDocumentError);
    }
    const tsv = parseFeedDocument('id\t__proto__\tprice\nA\tpolluted\t1 EUR').entries[0];
    expect(Object.getPrototypeOf(tsv)).toBeNull();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses what is not a feed, naming why', () => {
    const refusal = (text: string) => {
      try {
        parseFeedDocument(text);
        return 'parsed';
      } catch (error) {
        expect(error).toBeInstanceOf(FeedDocumentError);
        return (error as Error).message;
      }
    };
    expect(refusal('')).toMatch(/empty/);
    expect(refusal('  \n ')).toMatch(/empty/);
    expect(refusal(fixture('not-a-feed.html'))).toMatch(/HTML page/);
    expect(refusal('<html><body>hi</body></html>')).toMatch(/HTML page/);
    expect(refusal(fixture('entities.xml'))).toMatch(/DOCTYPE/);
    expect(refusal('<rss><channel><item></channel></rss>')).toMatch(/not well-formed XML \(line 1/);
    expect(refusal('<rss version="2.0"><title>x</title></rss>')).toMatch(/no <channel>/);
    expect(refusal(fixture('garbage.txt'))).toMatch(/neither XML nor/);
    expect(refusal('title\tprice\nA\t1 EUR')).toMatch(/id column/);
    const deep = `<rss><channel><item>${'<a>'.repeat(50)}x${'</a>'.repeat(50)}</item></channel></rss>`;
    expect(refusal(deep)).not.toBe('parsed');
  });

  it('refuses a feed with more entries than it imports, whole', () => {
    const rows = Array.from({ length: FEED_MAX_ENTRIES + 1 }, (_, i) => `P${i}\tProduct ${i}\t1.00 EUR`).join('\n');
    expect(() => parseFeedDocument(`id\ttitle\tprice\n${rows}`)).toThrow(/at most 20000 are imported/);
  });
});

describe('readFeedEntry', () => {
  const context = { currency: 'EUR', nowMs: Date.parse('2026-11-23T10:00:00Z') };

  it('applies a sale price only while its window covers now', () => {
    const entry = { id: 'S', title: 'Sale', price: '30.00 EUR', sale_price: '24.00 EUR' };
    const price = (extra: Record<string, string>) => {
      const read = readFeedEntry({ ...entry, ...extra }, context);
      return read.ok ? read.product.price : read.reason;
    };
    expect(price({})).toBe(2400);
    expect(price({ sale_price_effective_date: '2026-11-20T00:00+0100/2026-11-30T00:00+0100' })).toBe(2400);
    expect(price({ sale_price_effective_date: '2026-12-01T00:00Z/2026-12-31T00:00Z' })).toBe(3000);
    expect(price({ sale_price_effective_date: '2026-11-01T00:00Z/2026-11-23T10:00Z' })).toBe(3000);
    expect(price({ sale_price_effective_date: 'soon' })).toBe(3000);
    expect(price({ sale_price: '40.00 EUR' })).toBe(3000);
    expect(price({ sale_price: '20.00 USD' })).toBe(3000);
  });

  it('maps availability, sku, category and links, and refuses unknown availability', () => {
    const read = (extra: Record<string, string>) => readFeedEntry({ id: 'A', title: 'A', price: '1 EUR', ...extra }, context);
    expect(read({ availability: 'In Stock' })).toMatchObject({ ok: true, product: { inStock: true } });
    expect(read({ availability: 'backorder' })).toMatchObject({ ok: true, product: { inStock: false } });
    expect(read({ availability: 'maybe' })).toEqual({ ok: false, id: 'A', reason: 'unknown g:availability "maybe"' });
    expect(read({ gtin: '123', mpn: 'M-1' })).toMatchObject({ product: { sku: '123' } });
    expect(read({ mpn: 'M-1' })).toMatchObject({ product: { sku: 'M-1' } });
    expect(read({ google_product_category: '2271' })).toMatchObject({ product: { category: null } });
    expect(read({ link: 'javascript:alert(1)', image_link: 'not a url' })).toMatchObject({ product: { url: null, image: null } });
    expect(read({ title: `  ${'n'.repeat(400)} ` })).toMatchObject({ product: { name: `${'n'.repeat(299)}…` } });
    expect(read({ title: '   ' })).toEqual({ ok: false, id: 'A', reason: 'no title' });
  });

  it('keeps ids that fit a productId and makes stable, distinct ones for the rest', () => {
    expect(productIdFor('shopify_PT_123_456')).toBe('shopify_PT_123_456');
    expect(productIdFor('SKU 12/blue')).toMatch(/^SKU-12-blue-[0-9a-f]{8}$/);
    expect(productIdFor('SKU 12/blue')).toBe(productIdFor('SKU 12/blue'));
    expect(productIdFor('SKU 12/blue')).not.toBe(productIdFor('SKU 12 blue'));
    expect(productIdFor('ÄÖÜ')).toMatch(/^feed-[0-9a-f]{8}$/);
  });
});

describe('an import asked for while a run is under way', () => {
  it('is queued again at once when that run finishes, not a day later', async () => {
    const t = await startFeedInbox();
    try {
      const ctx = { store: t.inbox.store, clock: t.clock };
      const feed = await t.inbox.store.transaction((store) =>
        addFeed({ store, clock: t.clock }, t.inbox.secrets, { url: 'https://shop.example.com/feed.xml', everyHours: 24 }, { allowLocalFeeds: false }),
      );
      const started = await startFeedRun(t.inbox.store, feed.id, 'added', t.clock.now());
      expect(started).not.toBeNull();
      t.clock.advance(1_000);
      await t.inbox.store.transaction((store) => importFeedNow({ store, clock: t.clock }, feed.id));
      t.clock.advance(1_000);
      const parsed = parseFeedDocument(fixture('shop-v2.xml'));
      await t.inbox.store.transaction((store) => finishFeedRun({ store, clock: t.clock }, started!.run.id, feed.id, { ok: true, feed: parsed }));
      const stored = await ctx.store.feeds.get(feed.id);
      expect(stored?.nextImportAt).toBe(t.clock.now());
      const [job] = await t.inbox.store.jobs.list('feed.import');
      expect(job).toMatchObject({ status: 'pending', runAt: t.clock.now(), payload: { feedId: feed.id, trigger: 'manual' } });
    } finally {
      await t.close();
    }
  });
});
