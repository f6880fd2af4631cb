/**
 * The directory's pages in a real browser (Chromium through playwright-core; docs/web.md "Proof"): a
 * search with filters through the form (no script needed: it is a GET form), the next page by the
 * cursor, one business, categories, the ranking rules and the statistics; a site checked through the
 * "check a site" form and followed to its result as the check runs, the result's states, the badge,
 * the leaderboard with a scope chosen in its form, the score rules; axe-core on every page, the time
 * to interactive and the script budget, a phone-sized screen, and "near me" filling the form from
 * the browser's position. The checks read the local web of sample sites.
 */
// sqlite only: the pages' behaviour in a browser; the routes behind them run on PostgreSQL in pages-http.test.ts and check-pages-http.test.ts
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CHROMIUM,
  MISSING_BROWSER,
  REQUIRE_BROWSER,
  buildPageScripts,
  expectAccessible,
  expectWithinBudget,
  launchBrowser,
  screenshot,
  type BrowserSession,
} from '../../../test-support/browser.js';
import { generateListings } from '../src/demo/listing-generator.js';
import { taxonomyCategoryPicker } from '../src/demo/seed-directory.js';
import { gazetteer } from '../src/domain/places/gazetteer.js';
import { startLocalWeb, type LocalWeb } from '../src/demo/local-web/local-web-server.js';
import { startDirectory, TestClock, type TestDirectory } from './support/harness.js';

/** Sites checked before the tests: done and listed, in Porto, software apart, readable only, opted out, closed to the crawler. */
const CHECKED = ['salao-lume.test', 'cafe-central.test', 'loja-verde.test', 'hotel-mar.test', 'agentdesk.test', 'pizzaria-napoli.test', 'opt-out-bakery.test', 'closed.test'];

if (!CHROMIUM && !REQUIRE_BROWSER) console.warn(`browser-directory-pages.test.ts skipped: ${MISSING_BROWSER}`);
if (!CHROMIUM && REQUIRE_BROWSER) {
  describe('directory pages in a browser', () => {
    it('needs a Chromium (REQUIRE_BROWSER=1)', () => {
      throw new Error(`REQUIRE_BROWSER=1 but ${MISSING_BROWSER}`);
    });
  });
}

(CHROMIUM ? describe : describe.skip)('directory pages in a browser (Chromium)', () => {
  let d: TestDirectory;
  let web: LocalWeb;
  let browser: BrowserSession;
  let page: Page;

  beforeAll(async () => {
    buildPageScripts();
    const clock = new TestClock();
    web = await startLocalWeb();
    [d, browser] = await Promise.all([
      startDirectory({ clock, answerWorkers: 0, listings: generateListings({ count: 1200, seed: 20_260_101, nowMs: clock.now(), placeCategoryOf: taxonomyCategoryPicker() }), checks: { localWeb: web.address, callerChecksPerHour: 100 } }),
      launchBrowser(),
    ]);
    for (const site of CHECKED) await d.request('POST', '/check', { body: { url: site } });
    await d.directory.checkWorker.drain();
    await d.directory.search.hour();
    page = await browser.context.newPage();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await d?.close();
    await web?.close();
  });

  it('searches with filters through the form', async () => {
    await page.goto(`${d.baseUrl}/`);
    await expectWithinBudget(page, 'home');
    await expectAccessible(page, 'home');
    await screenshot(page, 'directory-search');
    // The bare home page opened in the country of the browser's language (Chromium here: en-US).
    expect(await page.locator('#results-title').textContent()).toBe('In United States');
    expect(await page.getByLabel('Where').inputValue()).toBe('United States');
    await page.getByLabel('Where').fill('');
    await page.getByLabel('What').fill('cafe');
    await page.getByText('More filters').click();
    await page.getByLabel('Open now').check();
    await page.getByLabel('Takes').selectOption('message');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.waitForURL(/q=cafe/);
    const url = new URL(page.url());
    expect(url.searchParams.get('open_now')).toBe('true');
    expect(url.searchParams.get('item_type')).toBe('message');
    const json = await d.get(`/v1/businesses?q=cafe&open_now=true&item_type=message`);
    expect(json.body.businesses.length).toBeGreaterThan(0);
    const shown = await page.locator('ol.results h3 a').allTextContents();
    expect(shown).toEqual(json.body.businesses.map((b: any) => b.name));
    // Each card says why it is where it is.
    expect(await page.locator('ol.results .why').count()).toBe(json.body.businesses.filter((b: any) => b.why).length);
    await expectWithinBudget(page, 'results');
    await expectAccessible(page, 'results');
    await screenshot(page, 'directory-results');
    if (json.body.next_cursor) {
      await page.getByRole('link', { name: 'Next page' }).click();
      await page.waitForURL(/cursor=/);
      const second = await d.get(`/v1/businesses?q=cafe&open_now=true&item_type=message&cursor=${encodeURIComponent(json.body.next_cursor)}`);
      expect(await page.locator('ol.results h3 a').allTextContents()).toEqual(second.body.businesses.map((b: any) => b.name));
    }
  });

  it('shows one business', async () => {
    await page.goto(`${d.baseUrl}/?q=cafe`);
    const first = page.locator('ol.results h3 a').first();
    const name = await first.textContent();
    await first.click();
    await page.waitForURL(/\/businesses\//);
    expect(await page.locator('h1').textContent()).toBe(name);
    await expectWithinBudget(page, 'business');
    await expectAccessible(page, 'business');
    await screenshot(page, 'directory-business');
    const alternate = await page.locator('link[rel="alternate"][type="application/json"]').getAttribute('href');
    expect(alternate).toMatch(/\/v1\/businesses\//);
  });

  it('checks a site through the form on the home page and follows the check to its result', async () => {
    await page.goto(`${d.baseUrl}/`);
    await page.getByLabel('Site address').fill('https://padaria-aurora.test/');
    await page.getByRole('button', { name: 'Check', exact: true }).click();
    await page.waitForURL(/\/b\/padaria-aurora\.test\?asked=queued/);
    await expect.poll(() => page.locator('h1').textContent()).toBe('Agentic check of padaria-aurora.test');
    expect(await page.getByText('Your check is queued.').count()).toBe(1);
    await expectAccessible(page, 'result queued');
    // The check runs while the page is open: its script sees the state change and shows the result.
    await d.directory.checkWorker.drain();
    await expect.poll(() => page.locator('p.grade').count(), { timeout: 15_000 }).toBe(1);
    const json = (await d.get('/b/padaria-aurora.test.json')).body;
    expect(await page.locator('p.grade').textContent()).toBe(json.grade);
    expect(await page.locator('table.answers tbody tr').count()).toBe(5);
    expect(await page.locator('table.capabilities tbody tr').count()).toBe(json.capabilities.length);
    expect(await page.locator('ol.fixes > li').count()).toBe(json.fixes.length);
    await page.goto(`${d.baseUrl}/b/padaria-aurora.test`);
    await expectWithinBudget(page, 'check result');
    await expectAccessible(page, 'check result');
    // The badge is an image this page can show, and its snippet is there to copy.
    await expect.poll(() => page.locator('img[src="/b/padaria-aurora.test/badge.svg"]').evaluate((img) => { const image = img as unknown as { complete: boolean; naturalWidth: number }; return image.complete && image.naturalWidth > 0; })).toBe(true);
    expect(await page.getByLabel('HTML to copy').inputValue()).toContain('/b/padaria-aurora.test/badge.svg');
    await screenshot(page, 'directory-check-result');
    // Result and business link each other.
    await page.getByRole('link', { name: 'its page in the directory' }).click();
    await page.waitForURL(/\/businesses\/padaria-aurora\.test/);
    await page.getByRole('link', { name: new RegExp(`Grade ${json.grade}`) }).click();
    await page.waitForURL(/\/b\/padaria-aurora\.test$/);
  });

  it('shows each state of a result accessibly', async () => {
    for (const path of ['/b/opt-out-bakery.test', '/b/closed.test', '/b/pizzaria-napoli.test', '/b/nobody-yet.test', '/b/localhost', '/check', '/b/hotel-mar.test?lang=pt']) {
      await page.goto(`${d.baseUrl}${path}`);
      await expectAccessible(page, path);
    }
  });

  it('shows the leaderboard and scopes it through its form', async () => {
    await page.goto(`${d.baseUrl}/leaderboard`);
    await expectWithinBudget(page, 'leaderboard');
    await expectAccessible(page, 'leaderboard');
    await screenshot(page, 'directory-leaderboard');
    const all = (await d.get('/leaderboard.json')).body;
    expect(await page.locator('table.board tbody th a').allTextContents()).toEqual(all.named.map((n: any) => n.name));
    await page.getByLabel('Category').selectOption('hair-beauty');
    await page.getByLabel('Country (2 letters)').fill('PT');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.waitForURL(/category=hair-beauty/);
    const scoped = (await d.get('/leaderboard.json?category=hair-beauty&country=PT')).body;
    expect(scoped.named.length).toBeGreaterThan(0);
    expect(await page.locator('table.board tbody th a').allTextContents()).toEqual(scoped.named.map((n: any) => n.name));
    await expectAccessible(page, 'leaderboard scoped');
    await page.goto(`${d.baseUrl}/score-rules`);
    await expectAccessible(page, 'score rules');
    await screenshot(page, 'directory-score-rules');
  });

  it('fills "where" from the browser\'s position, and opens the home page there once the browser allows it', async () => {
    await page.goto(`${d.baseUrl}/?q=cafe`);
    await browser.context.grantPermissions(['geolocation'], { origin: d.baseUrl });
    await browser.context.setGeolocation({ latitude: 38.7223, longitude: -9.1393 });
    await page.getByRole('button', { name: 'Use my location' }).click();
    await expect.poll(() => page.getByLabel('Where').inputValue()).toBe('38.7223,-9.1393');
    // Allowed: the bare home page moves to the device's position, and names the town near it.
    await page.goto(`${d.baseUrl}/`);
    await page.waitForURL(/near=38\.7223%2C-9\.1393/);
    await expect.poll(() => page.locator('#results-title').textContent()).toBe('Near 38.7223,-9.1393 (close to Lisbon, Portugal)');
    await browser.context.clearPermissions();
  });

  it('finds a place by its name with suggestions as one types, on a desktop and on a phone', async () => {
    // A town of the demo data with cafes, as GeoNames names it.
    const cafes = (await d.get('/v1/businesses?q=cafe&limit=100')).body.businesses as { city?: string; country?: string }[];
    const town = cafes.map((b) => (b.city ? gazetteer().resolve(`${b.city}, ${b.country}`) : null)).find((w) => w?.kind === 'place' && w.match.name === w.match.place.name && w.match.place.population > 200_000);
    if (town?.kind !== 'place') throw new Error('no town with cafes in the demo data');
    const townName = town.match.place.name;
    const townWords = `${townName}, ${new Intl.DisplayNames(['en-GB'], { type: 'region' }).of(town.match.place.country)}`;
    const near = `${Number(town.match.place.lat.toFixed(5))},${Number(town.match.place.lng.toFixed(5))}`;
    for (const [label, size] of [['desktop', { width: 1280, height: 900 }], ['phone', { width: 390, height: 844 }]] as const) {
      const tab = await browser.context.newPage();
      await tab.setViewportSize(size);
      await tab.goto(`${d.baseUrl}/?near=`);
      await tab.getByLabel('What').fill('cafe');
      const where = tab.getByLabel('Where');
      await where.click();
      await where.pressSequentially(townName.slice(0, 4), { delay: 30 });
      await expect.poll(() => tab.locator('datalist#place-suggestions option').evaluateAll((options) => options.map((o) => (o as unknown as { value: string }).value)), { timeout: 15_000 }).toContain(townWords);
      await where.fill(townWords);
      await tab.getByRole('button', { name: 'Search', exact: true }).click();
      await tab.waitForURL(/near=/);
      expect(await tab.locator('#results-title').textContent()).toBe(`Near ${townWords}, within 10 km`);
      const json = (await d.get(`/v1/businesses?q=cafe&near=${near}&limit=20`)).body;
      expect(await tab.locator('ol.results h3 a').allTextContents()).toEqual(json.businesses.map((b: any) => b.name));
      expect(json.businesses.length).toBeGreaterThan(0);
      // Each result says what it matched.
      expect(await tab.locator('ol.results .matched').count()).toBe(json.businesses.length);
      await expectAccessible(tab, `place search on a ${label}`);
      if (label === 'phone') {
        // Results first: the first one starts within the first screen, the other filters folded.
        const top = await tab.locator('ol.results > li').first().evaluate((li) => (li as unknown as { getBoundingClientRect(): { top: number } }).getBoundingClientRect().top);
        expect(top).toBeLessThan(844);
        expect(await tab.locator('details.filters').getAttribute('open')).toBeNull();
        expect((await tab.evaluate('document.documentElement.scrollWidth')) as number).toBeLessThanOrEqual(390);
      }
      await screenshot(tab, label === 'phone' ? 'directory-place-search-phone' : 'directory-place-search');
      await tab.close();
    }
    // In Portuguese, the place in its Portuguese name, and the data in Portuguese.
    const pt = await browser.context.newPage();
    await pt.goto(`${d.baseUrl}/?near=&lang=pt`);
    await pt.getByLabel('O quê').fill('cafe');
    await pt.getByLabel('Onde').fill('Lisboa');
    await pt.getByRole('button', { name: 'Procurar', exact: true }).click();
    await pt.waitForURL(/near=Lisboa/);
    expect(await pt.locator('#results-title').textContent()).toBe('Perto de Lisboa, Portugal, até 10 km');
    await pt.goto(`${d.baseUrl}/?q=cafe&near=${encodeURIComponent(townName)}&lang=pt`);
    expect(await pt.locator('ol.results .why').first().textContent()).toMatch(/^Porquê aqui: Lugar \d+ na ordem desta hora/);
    await expectAccessible(pt, 'place search in Portuguese');
    await pt.close();
  }, 120_000);

  it('has a keyboard path: skip link first, then the search, each control reachable in order', async () => {
    const tab = await browser.context.newPage();
    await tab.goto(`${d.baseUrl}/?near=`);
    await tab.keyboard.press('Tab');
    expect(await tab.evaluate('document.activeElement.className')).toBe('skip');
    await tab.keyboard.press('Enter');
    await expect.poll(() => tab.evaluate('document.activeElement.id')).toBe('main');
    const order: string[] = [];
    for (let i = 0; i < 6; i++) {
      await tab.keyboard.press('Tab');
      order.push((await tab.evaluate("(() => { const el = document.activeElement; return el.id || el.tagName + ':' + (el.textContent || '').trim(); })()")) as string);
    }
    expect(order.slice(0, 2)).toEqual(['f-q', 'f-near']);
    expect(order).toContain('BUTTON:Search');
    expect(order.indexOf('BUTTON:Search')).toBeLessThan(order.findIndex((o) => o.startsWith('SUMMARY')));
    await tab.close();
  });

  it('renders categories, the ranking rules and the statistics accessibly', async () => {
    for (const path of ['/categories', '/categories/cafe', '/ranking', '/stats', '/?lang=pt', '/?q=cafe&lang=pt', '/stats?lang=pt', '/categories?lang=pt', '/categories/cafe?lang=pt', '/c/amenity.cafe', '/c/amenity.cafe?lang=pt', '/c/amenity.restaurant', '/leaderboard?lang=pt', '/score-rules?lang=pt', '/check?lang=pt']) {
      await page.goto(`${d.baseUrl}${path}`);
      await expectAccessible(page, path);
    }
    // A business page in both languages, its category linking its own page.
    const first = (await d.get('/v1/businesses?q=cafe')).body.businesses.find((b: any) => b.category);
    for (const lang of ['en', 'pt']) {
      await page.goto(`${d.baseUrl}/businesses/${encodeURIComponent(first.domain)}${lang === 'pt' ? '?lang=pt' : ''}`);
      await expectAccessible(page, `business (${lang})`);
    }
    await page.locator(`a[href^="/c/${first.category.primary.id}"]`).click();
    await page.waitForURL(/\/c\//);
    expect(await page.locator('html').getAttribute('lang')).toBe('pt');
    expect(await page.locator('main h1').count()).toBe(1);
    await page.goto(`${d.baseUrl}/ranking`);
    await screenshot(page, 'directory-ranking');
  }, 180_000);

  it('works on a phone-sized screen', async () => {
    const phone = await browser.context.newPage();
    await phone.setViewportSize({ width: 390, height: 844 });
    await phone.goto(`${d.baseUrl}/?q=cafe&near=`);
    expect((await phone.evaluate('document.documentElement.scrollWidth')) as number).toBeLessThanOrEqual(390);
    await expectAccessible(phone, 'results on a phone');
    await screenshot(phone, 'directory-phone');
    for (const path of ['/leaderboard', '/b/padaria-aurora.test']) {
      await phone.goto(`${d.baseUrl}${path}`);
      expect((await phone.evaluate('document.documentElement.scrollWidth')) as number, path).toBeLessThanOrEqual(390);
      await expectAccessible(phone, `${path} on a phone`);
    }
    await screenshot(phone, 'directory-check-phone');
    await phone.close();
  });
});
