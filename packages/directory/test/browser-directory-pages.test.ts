/**
 * The directory's pages in a real browser (Chromium through playwright-core; docs/web.md "Proof"): a
 * search with filters through the form (no script needed: it is a GET form), the next page by the
 * cursor, one business, categories, the ranking rules and the statistics; axe-core on every page,
 * the time to interactive and the script budget, a phone-sized screen, and "near me" filling the
 * form from the browser's position.
 */
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
import { generateDemoListings } from '../src/demo/listing-generator.js';
import { startDirectory, TestClock, type TestDirectory } from './support/harness.js';

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
  let browser: BrowserSession;
  let page: Page;

  beforeAll(async () => {
    buildPageScripts();
    const clock = new TestClock();
    [d, browser] = await Promise.all([startDirectory({ clock, answerWorkers: 0, listings: generateDemoListings(600, clock.now()) }), launchBrowser()]);
    await d.directory.search.hour();
    page = await browser.context.newPage();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await d?.close();
  });

  it('searches with filters through the form', async () => {
    await page.goto(`${d.baseUrl}/`);
    await expectWithinBudget(page, 'home');
    await expectAccessible(page, 'home');
    await screenshot(page, 'directory-search');
    await page.getByLabel('What').fill('cafe');
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

  it('fills "near" from the browser\'s position', async () => {
    await browser.context.grantPermissions(['geolocation'], { origin: d.baseUrl });
    await browser.context.setGeolocation({ latitude: 38.7223, longitude: -9.1393 });
    await page.goto(`${d.baseUrl}/`);
    await page.getByRole('button', { name: 'Use my location' }).click();
    await expect.poll(() => page.getByLabel('Near (latitude,longitude)').inputValue()).toBe('38.7223,-9.1393');
  });

  it('renders categories, the ranking rules and the statistics accessibly', async () => {
    for (const path of ['/categories', '/categories/cafe', '/ranking', '/stats', '/?lang=pt']) {
      await page.goto(`${d.baseUrl}${path}`);
      await expectAccessible(page, path);
    }
    await page.goto(`${d.baseUrl}/ranking`);
    await screenshot(page, 'directory-ranking');
  });

  it('works on a phone-sized screen', async () => {
    const phone = await browser.context.newPage();
    await phone.setViewportSize({ width: 390, height: 844 });
    await phone.goto(`${d.baseUrl}/?q=cafe`);
    expect((await phone.evaluate('document.documentElement.scrollWidth')) as number).toBeLessThanOrEqual(390);
    await expectAccessible(phone, 'results on a phone');
    await screenshot(phone, 'directory-phone');
    await phone.close();
  });
});
