/**
 * The directory's pages over plain HTTP (docs/web.md): each page is built from the JSON it links as
 * rel=alternate (the same answer, the same businesses in the same order), carries its canonical URL
 * and Open Graph tags, is noindex where the contract says (a found business) and where a crawl would
 * never end (filtered and paged searches), answers 304 to its ETag, refuses bad filters with the
 * API's words, and keeps text the businesses wrote inert.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoListings } from '../src/demo/listing-generator.js';
import { EVERY_DAY, hours, listing, member } from './support/fixtures.js';
import { startDirectory, TestClock, type TestDirectory } from './support/harness.js';

const HOSTILE = '<script>alert(1)</script><img src=x onerror=alert(2)>';
const EVIL = 'evil-salon.example';

function tagsOf(page: string): string[] {
  return [...page.matchAll(/<[a-zA-Z][^>]*>/g)].map(([tag]) => tag.replace(/"[^"]*"/g, '""'));
}

function expectInert(page: string): void {
  for (const tag of tagsOf(page)) {
    expect(tag).not.toMatch(/^<script(?![^>]*\bsrc=)/i);
    expect(tag).not.toMatch(/\son[a-z]+\s*=/i);
    expect(tag).not.toMatch(/\sstyle\s*=/i);
  }
  expect(page).not.toContain('<script>alert');
  expect(page).not.toContain('href="javascript:');
}

function hrefsOf(page: string): string[] {
  return [...page.matchAll(/<a [^>]*href="([^"]+)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));
}

describe('directory pages over HTTP', () => {
  let d: TestDirectory;
  beforeAll(async () => {
    const clock = new TestClock();
    d = await startDirectory({
      clock,
      answerWorkers: 0,
      listings: [
        ...generateDemoListings(300, clock.now()),
        member(EVIL, {
          name: `Salon ${HOSTILE}`,
          description: HOSTILE,
          city: HOSTILE,
          tags: [HOSTILE],
          services: [{ name: `Cut ${HOSTILE}`.slice(0, 80), type: 'booking' }],
          url: 'javascript:alert(3)',
          hours: hours('Europe/Lisbon', { [EVERY_DAY]: [['00:00', '24:00']] }),
          itemTypes: ['booking', 'message'],
        }),
        listing('found-bakery.example', { name: 'Found Bakery', doors: [] }),
      ],
    });
    await d.directory.search.hour();
  }, 60_000);
  afterAll(async () => {
    await d?.close();
  });

  it('serves the search as the home page, with the same businesses in the same order as its JSON', async () => {
    for (const query of ['', '?q=salon', '?open_now=true&item_type=booking', '?category=cafe&language=pt']) {
      const page = await fetch(`${d.baseUrl}/${query}`);
      expect(page.status, query).toBe(200);
      const text = await page.text();
      const alternate = /<link rel="alternate" type="application\/json" href="([^"]+)">/.exec(text)![1]!.replace(/&amp;/g, '&');
      expect(page.headers.get('link')).toContain('rel="alternate"; type="application/json"');
      const json = await d.get(alternate.replace('http://127.0.0.1', ''));
      expect(json.status).toBe(200);
      const shown = hrefsOf(text).filter((href) => href.startsWith('/businesses/')).map((href) => decodeURIComponent(href.slice('/businesses/'.length).split('?')[0]!));
      expect(shown, query).toEqual(json.body.businesses.map((b: any) => b.domain));
      // Every card says why it is where it is.
      for (const b of json.body.businesses) if (b.why) expect(text).toContain(b.why.replace(/'/g, '&#39;').replace(/"/g, '&quot;'));
      expect(text).toContain('<link rel="canonical" href="http://127.0.0.1/">');
      expect(text).toContain('property="og:title"');
      // The home page may be indexed; a filtered search may not.
      expect(page.headers.get('x-robots-tag'), query).toBe(query === '' ? null : 'noindex');
      expect(text).toContain(query === '' ? 'content="index,follow"' : 'content="noindex,follow"');
    }
  });

  it('pages by the answer\'s cursor', async () => {
    const first = await (await fetch(`${d.baseUrl}/?q=cafe`)).text();
    const next = hrefsOf(first).find((href) => href.includes('cursor='));
    expect(next).toBeDefined();
    const json = await d.get('/v1/businesses?q=cafe');
    const second = await fetch(`${d.baseUrl}${next}`);
    expect(second.status).toBe(200);
    const secondJson = await d.get(`/v1/businesses?q=cafe&cursor=${encodeURIComponent(json.body.next_cursor)}`);
    const text = await second.text();
    for (const b of secondJson.body.businesses) expect(text).toContain(`/businesses/${encodeURIComponent(b.domain)}`);
    expect(second.headers.get('x-robots-tag')).toBe('noindex');
  });

  it('refuses filters the API refuses, in its words, as a 400 page with the form kept', async () => {
    const page = await fetch(`${d.baseUrl}/?near=somewhere&q=cafe`);
    expect(page.status).toBe(400);
    const text = await page.text();
    expect(text).toContain('near');
    expect(text).toContain('value="somewhere"');
    expect(page.headers.get('cache-control')).toBe('no-store');
  });

  it('shows one business from its JSON; a found one is noindex and says how to correct it', async () => {
    const member = await fetch(`${d.baseUrl}/businesses/${EVIL}`);
    expect(member.status).toBe(200);
    expect(member.headers.get('x-robots-tag')).toBeNull();
    const text = await member.text();
    expect(text).toContain(`<link rel="canonical" href="http://127.0.0.1/businesses/${EVIL}">`);
    expect(text).toContain(`href="http://127.0.0.1/v1/businesses/${EVIL}"`);
    expect(text).toContain('Open now');
    expectInert(text);
    // The business's javascript: URL is shown as text at most, never as a link.
    expect(hrefsOf(text).some((href) => href.startsWith('javascript:'))).toBe(false);

    const found = await fetch(`${d.baseUrl}/businesses/found-bakery.example`);
    expect(found.status).toBe(200);
    expect(found.headers.get('x-robots-tag')).toBe('noindex');
    const foundText = await found.text();
    expect(foundText).toContain('content="noindex,follow"');
    expect(foundText).toContain('/about/found/found-bakery.example');

    const missing = await fetch(`${d.baseUrl}/businesses/nobody.example`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('x-robots-tag')).toBe('noindex');
  });

  it('keeps business-written text inert in search results too', async () => {
    const text = await (await fetch(`${d.baseUrl}/?q=salon`)).text();
    expect(text).toContain('&lt;script&gt;');
    expectInert(text);
  });

  it('answers 304 when the page has not changed, and refuses to be framed', async () => {
    const first = await fetch(`${d.baseUrl}/categories`);
    const etag = first.headers.get('etag')!;
    expect(first.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(first.headers.get('x-frame-options')).toBe('DENY');
    const again = await fetch(`${d.baseUrl}/categories`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
  });

  it('renders categories, a group, the ranking rules and the statistics, each beside its JSON', async () => {
    for (const [path, json] of [
      ['/categories', '/v1/categories'],
      ['/categories/cafe', '/v1/categories?group=cafe'],
      ['/ranking', '/v1/ranking'],
      ['/ranking?version=6', '/v1/ranking?version=6'],
      ['/stats', '/v1/stats'],
    ] as const) {
      const page = await fetch(`${d.baseUrl}${path}`);
      expect(page.status, path).toBe(200);
      const text = await page.text();
      expect(text, path).toContain(`<link rel="alternate" type="application/json" href="http://127.0.0.1${json.replace(/&/g, '&amp;')}">`);
      expect((await d.get(json)).status).toBe(200);
      expectInert(text);
    }
    const ranking = await (await fetch(`${d.baseUrl}/ranking`)).text();
    const rules = (await d.get('/v1/ranking')).body;
    expect(ranking).toContain(rules.summary.replace(/'/g, '&#39;'));
    expect((await fetch(`${d.baseUrl}/ranking?version=999`)).status).toBe(404);
    expect((await fetch(`${d.baseUrl}/categories/no-such-group`)).status).toBe(404);
  });

  it('speaks Portuguese when asked', async () => {
    const text = await (await fetch(`${d.baseUrl}/?lang=pt`)).text();
    expect(text).toContain('<html lang="pt"');
    expect(text).toContain('Procurar');
  });
});
