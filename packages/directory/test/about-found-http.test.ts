/**
 * The page each found listing's about_url names (issue 20): served by the directory under its own
 * public URL, in the listing's language (English otherwise), as HTML or JSON, never indexed; 404 for
 * a domain with no found listing. Every about_url the directory emits, on search pages, detail views
 * and through MCP, answers 200.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDirectory } from '../src/app.js';
import { generateListings } from '../src/demo/listing-generator.js';
import { taxonomyCategoryPicker } from '../src/demo/seed-directory.js';
import { DAY, MONDAY, listing, member } from './support/fixtures.js';
import { HARNESS_BASE_URL, startDirectory, type TestDirectory } from './support/harness.js';
import { dropTestDatabase, testDatabaseUrl } from '../../../test-support/test-database.js';

let t: TestDirectory;
let client: Client;

const FIXTURES = [
  listing('padaria.example', { name: 'Padaria Estrela', city: 'Porto', languages: ['pt-PT'] }),
  listing('baeckerei.example', { name: 'Bäckerei Sonne', city: 'Berlin', languages: ['de', 'en'] }),
  listing('ramen.example', { name: 'Ramen Ichiban', city: 'Tokyo', languages: ['ja'] }),
  listing('nolang.example', { name: 'No Language Shop', city: 'Lisboa' }),
  listing('sneaky.example', { name: 'Sneaky <script>alert(1)</script> & "Co"', city: 'Lisboa', languages: ['en'] }),
  listing('gone.example', { name: 'Gone Shop', city: 'Lisboa', delistedAt: MONDAY - DAY }),
  // Not listed: a business that is not a member, in a category where only members are listed.
  listing('found-lawyer.example', { name: 'Found Lawyer', city: 'Lisboa', categories: ['legal'], placeCategory: { id: 'office.lawyer', label: 'Law Office', src: 'declared' } }),
  listing('registered.example', { source: 'registered', name: 'Registered Shop', city: 'Lisboa' }),
  member('member.example', { name: 'Member Salon', city: 'Lisboa' }),
];

/** The path of an about_url on the test server (the harness's public URL is not where it listens). */
function pathOf(aboutUrl: string): string {
  expect(aboutUrl.startsWith(`${HARNESS_BASE_URL}/about/found/`), aboutUrl).toBe(true);
  return aboutUrl.slice(HARNESS_BASE_URL.length);
}

beforeAll(async () => {
  const generated = [...generateListings({ count: 120, seed: 77, nowMs: MONDAY, placeCategoryOf: taxonomyCategoryPicker() })];
  t = await startDirectory({ listings: [...FIXTURES, ...generated], answerWorkers: 0 });
  client = new Client({ name: 'about-found-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`)));
});

afterAll(async () => {
  await client?.close();
  await t?.close();
});

describe('every about_url the directory emits', () => {
  it('answers 200 with the page, on search pages, detail views and through MCP, for a generated set', async () => {
    const urls = new Set<string>();
    for (const query of ['limit=100', 'category=software-ai&limit=100']) {
      let cursor: string | null = null;
      do {
        const page: { body: { businesses: { domain: string; found?: { about_url: string } }[]; next_cursor: string | null } } = await t.get(
          `/v1/businesses?${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
        for (const b of page.body.businesses) {
          if (!b.found) continue;
          urls.add(b.found.about_url);
          expect((await t.get(`/v1/businesses/${b.domain}`)).body.found.about_url).toBe(b.found.about_url);
        }
        cursor = page.body.next_cursor;
      } while (cursor !== null);
    }
    const tool = await client.callTool({ name: 'search_businesses', arguments: { limit: 100 } });
    for (const b of (tool.structuredContent as { businesses: { found?: { about_url: string } }[] }).businesses) if (b.found) urls.add(b.found.about_url);
    expect(urls.size).toBeGreaterThan(60);
    for (const url of urls) {
      const r = await t.get(pathOf(url));
      expect(r.status, url).toBe(200);
      expect(r.headers.get('content-type'), url).toMatch(/^text\/html; charset=utf-8/);
      expect(r.headers.get('x-robots-tag'), url).toBe('noindex');
    }
  }, 30_000);
});

describe('the page', () => {
  it('explains why it is listed, what is shown, how to correct it and how to opt out, in the listing\'s language', async () => {
    const pt = await t.get('/about/found/padaria.example');
    expect(pt.status).toBe(200);
    expect(pt.headers.get('content-language')).toBe('pt');
    expect(pt.body).toContain('<html lang="pt">');
    expect(pt.body).toContain('Porque é que Padaria Estrela está neste diretório');
    for (const heading of ['O que é mostrado', 'Porque está listado', 'Como corrigir', 'Como sair']) expect(pt.body).toContain(heading);
    expect(pt.body).toContain('ai-input=no');

    const de = await t.get('/about/found/baeckerei.example');
    expect(de.headers.get('content-language')).toBe('de');
    expect(de.body).toContain('Warum Bäckerei Sonne in diesem Verzeichnis steht');

    for (const domain of ['ramen.example', 'nolang.example']) {
      const en = await t.get(`/about/found/${domain}`);
      expect(en.headers.get('content-language'), domain).toBe('en');
      for (const heading of ['What is shown', 'Why it is listed', 'How to correct it', 'How to opt out']) expect(en.body, domain).toContain(heading);
      expect(en.body).toContain('checked it on 2026-11-18');
    }
  });

  it('is read in another language with ?lang=, and links to every language it has', async () => {
    const en = await t.get('/about/found/padaria.example?lang=en');
    expect(en.headers.get('content-language')).toBe('en');
    expect(en.body).toContain('Why Padaria Estrela is in this directory');
    for (const lang of ['pt', 'es', 'fr', 'de']) expect(en.body).toContain(`/about/found/padaria.example?lang=${lang}`);
    for (const lang of ['es', 'fr']) expect((await t.get(`/about/found/padaria.example?lang=${lang}`)).headers.get('content-language')).toBe(lang);
    // A language the page is not written in: the listing's own.
    expect((await t.get('/about/found/padaria.example?lang=ja')).headers.get('content-language')).toBe('pt');
  });

  it('has a JSON alternative with the same texts and the links an agent needs', async () => {
    const r = await t.get('/about/found/padaria.example.json');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.headers.get('x-robots-tag')).toBe('noindex');
    expect(r.body).toMatchObject({
      domain: 'padaria.example',
      name: 'Padaria Estrela',
      language: 'pt',
      about_url: `${HARNESS_BASE_URL}/about/found/padaria.example`,
      listing_url: `${HARNESS_BASE_URL}/v1/businesses/padaria.example`,
      website: 'https://padaria.example/',
      checked_at: new Date(MONDAY - 5 * DAY).toISOString(),
    });
    for (const key of ['intro', 'shown', 'why', 'correct', 'opt_out']) expect(r.body.sections[key].length, key).toBeGreaterThan(40);
    expect((await t.get('/about/found/padaria.example.json?lang=fr')).body.language).toBe('fr');
    const html = await t.get('/about/found/padaria.example');
    expect(html.body).toContain('rel="alternate" type="application/json"');
  });

  it('escapes what the business wrote and loads nothing from anywhere', async () => {
    const r = await t.get('/about/found/sneaky.example');
    expect(r.status).toBe(200);
    expect(r.body).not.toContain('<script>');
    expect(r.body).toContain('&#60;script&#62;');
    const csp = r.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).toMatch(/style-src 'sha256-[A-Za-z0-9+/=]+'/);
    expect(csp).not.toMatch(/unsafe-inline|script-src/);
  });

  it('answers 304 to If-None-Match with its ETag, for HTML and JSON', async () => {
    for (const path of ['/about/found/padaria.example', '/about/found/padaria.example.json']) {
      const first = await t.get(path);
      const etag = first.headers.get('etag')!;
      expect(etag, path).toBeTruthy();
      const again = await t.get(path, { 'if-none-match': etag });
      expect(again.status, path).toBe(304);
      expect(again.headers.get('x-robots-tag'), path).toBe('noindex');
    }
  });

  it('is 404 for a domain with no found listing listed: unknown, left, in a members-only category, registered or a member', async () => {
    for (const domain of ['unknown.example', 'gone.example', 'found-lawyer.example', 'registered.example', 'member.example', 'unknown.example.json', '%E2%80%AE.example']) {
      const r = await t.get(`/about/found/${domain}`);
      expect(r.status, domain).toBe(404);
      expect(r.headers.get('content-type'), domain).toMatch(/^application\/problem\+json/);
      expect(r.body.code).toBe('not_found');
      expect(r.body.detail).not.toContain('\u202e');
    }
    const post = await t.request('POST', '/about/found/padaria.example', { body: {} });
    expect(post.status).toBe(405);
  });
});

describe('under another public URL', () => {
  it('about_url follows DIRECTORY_PUBLIC_URL, and pages rendered under another URL are rendered again', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'about-found-base-'));
    try {
      for (const baseUrl of ['https://directory.one.example', 'https://directory.two.example/']) {
        const d = await buildDirectory({ dataDir, databaseUrl: await testDatabaseUrl('directory', dataDir), baseUrl, logLevel: 'silent', runJobs: false, hourlyTimer: false, answerWorkers: 0, rateLimit: 0, clock: { now: () => MONDAY } });
        if ((await d.store.listings.countAll()) === 0) await d.store.transaction((tx) => tx.listings.insertMany(FIXTURES.slice(0, 2)));
        await d.pagesReady;
        const base = baseUrl.replace(/\/$/, '');
        const page = await d.http.inject({ method: 'GET', url: '/v1/businesses?q=padaria' });
        expect(page.json().businesses[0].found.about_url).toBe(`${base}/about/found/padaria.example`);
        const about = await d.http.inject({ method: 'GET', url: '/about/found/padaria.example.json' });
        expect(about.json().about_url).toBe(`${base}/about/found/padaria.example`);
        await d.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
      await dropTestDatabase('directory', dataDir);
    }
  });
});
