/**
 * The owner's day in a real browser (Chromium through playwright-core; docs/web.md "Today", "The
 * calendar", "A full slot"): signing in lands on Today, the week and the day of the calendar, a full
 * slot's proposal made in one click, and the same pages on a 390×844 phone (nothing wider than the
 * screen but the calendar's own region, which scrolls sideways); axe-core on every page.
 */
// sqlite only: the pages' own behaviour in a browser; their reads and writes are tested over HTTP in owner-day.test.ts
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, MISSING_BROWSER, REQUIRE_BROWSER, buildPageScripts, expectAccessible, launchBrowser, screenshot, type BrowserSession } from '../../../test-support/browser.js';
import { haircutAt, startInbox, TestClock, type TestInbox } from './support/harness.js';

if (!CHROMIUM && !REQUIRE_BROWSER) console.warn(`browser-owner-day.test.ts skipped: ${MISSING_BROWSER}`);
if (!CHROMIUM && REQUIRE_BROWSER) {
  describe("the owner's day in a browser", () => {
    it('needs a Chromium (REQUIRE_BROWSER=1)', () => {
      throw new Error(`REQUIRE_BROWSER=1 but ${MISSING_BROWSER}`);
    });
  });
}

(CHROMIUM ? describe : describe.skip)("the owner's day in a browser (Chromium)", () => {
  let t: TestInbox;
  let browser: BrowserSession;
  let page: Page;
  const ids: Record<string, string> = {};

  async function book(key: string, startTime: string, name: string, serviceId = 'haircut'): Promise<string> {
    const body = haircutAt(startTime);
    const r = await t.request('POST', '/v1/bookings', { body: { payload: { ...body.payload, serviceId }, contact: { name, email: `${key}@example.com` } } });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    ids[key] = r.body.id as string;
    return r.body.id as string;
  }
  async function confirm(id: string): Promise<void> {
    expect((await t.owner('POST', `/v1/owner/items/${id}/transitions`, { body: { event: 'confirm' } })).status).toBe(200);
  }

  beforeAll(async () => {
    buildPageScripts();
    // Tuesday 24 November 2026, 08:00 in Lisbon: the salon opens at 09:30.
    [t, browser] = await Promise.all([startInbox({ clock: new TestClock('2026-11-24T08:00:00Z') }), launchBrowser({ viewport: { width: 1280, height: 900 } })]);
    page = await browser.context.newPage();
    // Three requests for the 10:00 haircut (two places), then two confirmed: the third's slot is full.
    const [ana, bruno] = [await book('ana', '2026-11-24T10:00:00Z', 'Ana Silva'), await book('bruno', '2026-11-24T10:00:00Z', 'Bruno Costa')];
    await book('carla', '2026-11-24T10:00:00Z', 'Carla Dias');
    await confirm(ana);
    await confirm(bruno);
    await confirm(await book('duarte', '2026-11-24T11:00:00Z', 'Duarte Reis', 'beard-trim'));
    await confirm(await book('eva', '2026-11-26T15:00:00Z', 'Eva Matos'));
    await book('filipe', '2026-11-28T09:00:00Z', 'Filipe Sousa');
    const message = await t.request('POST', '/v1/messages', { body: { payload: { subject: 'Madeixas' }, contact: { name: 'Rita Lopes' }, message: 'Têm vaga para madeixas no sábado de manhã?' } });
    expect(message.status).toBe(201);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('lands on Today after sign-in: what waits on top, then the day by start time', async () => {
    await page.goto(`${t.baseUrl}/app`);
    await page.waitForURL(/\/app\/sign-in/);
    await page.getByLabel(/Owner key|Chave de dono/).fill(t.ownerKey);
    await page.getByRole('button', { name: /^(Sign in|Entrar)$/ }).click();
    await page.waitForURL(/\/app\/today$/);
    await page.getByRole('link', { name: 'English' }).click();
    await expect.poll(() => page.getAttribute('html', 'lang')).toBe('en');
    await expect.poll(() => page.locator('h1').textContent()).toBe('Today: Tuesday, 24 November 2026');
    const needs = await page.locator('[data-live-region="needs"] li .who').allTextContents();
    expect(needs).toEqual(expect.arrayContaining(['Carla Dias', 'Filipe Sousa', 'Rita Lopes']));
    expect(await page.locator('[data-live-region="needs"]').textContent()).toContain('Têm vaga para madeixas');
    const agenda = await page.locator('ol.agenda li').allTextContents();
    expect(agenda.map((line) => line.replace(/\s+/g, ' ').trim().slice(0, 11))).toEqual(['10:00–10:45', '10:00–10:45', '10:00–10:45', '11:00–11:20']);
    // The needs-you section comes before the day's bookings.
    const [needsBox, agendaBox] = await Promise.all([page.locator('#needs-title').boundingBox(), page.locator('#bookings-title').boundingBox()]);
    expect(needsBox!.y <= agendaBox!.y).toBe(true);
    await expectAccessible(page, 'today');
    await screenshot(page, 'owner-today');
    await page.getByRole('link', { name: /Next day/ }).click();
    await page.waitForURL(/date=2026-11-25/);
    expect(await page.locator('h1').textContent()).toBe('Day: Wednesday, 25 November 2026');
  });

  it('shows the week with a lane per place and the day with quarter hours, closed hours shaded', async () => {
    await page.goto(`${t.baseUrl}/app/calendar?view=week&date=2026-11-24`);
    const lanes = await page.locator('table.cal-week tbody th').allTextContents();
    expect(lanes.slice(0, 3)).toEqual(['Haircut · place 1', 'Haircut · place 2', 'Beard trim']);
    expect(lanes).toContain('Requests (hold no place)');
    expect(await page.locator('table.cal-week thead th.off').count()).toBe(2);
    await expectAccessible(page, 'week');
    await screenshot(page, 'owner-week');
    await page.getByRole('link', { name: /Next week/ }).click();
    await page.waitForURL(/date=2026-11-30&view=week/);
    await page.goto(`${t.baseUrl}/app/calendar?view=day&date=2026-11-24`);
    expect(await page.locator('td.bk.held').count()).toBe(3);
    expect(await page.locator('td.bk.waiting').count()).toBe(1);
    const rowColour = (el: unknown) => {
      const view = globalThis as unknown as { getComputedStyle(node: unknown): { backgroundColor: string } };
      return view.getComputedStyle((el as { parentElement: unknown }).parentElement).backgroundColor;
    };
    const [lunch, open] = await Promise.all([
      page.locator('tr.off th', { hasText: '13:00' }).evaluate(rowColour),
      page.locator('tr:not(.off) th', { hasText: '10:00' }).evaluate(rowColour),
    ]);
    expect(lunch).not.toBe(open);
    await expectAccessible(page, 'day');
  });

  it('says a full slot is full and proposes the next free time in one click', async () => {
    await page.goto(`${t.baseUrl}/app/items/${ids.carla}`);
    await expect.poll(() => page.locator('.slot-full').textContent()).toContain('This slot is full');
    expect(await page.getByRole('button', { name: 'Confirm', exact: true }).count()).toBe(0);
    await expectAccessible(page, 'item (slot full)');
    await screenshot(page, 'owner-slot-full');
    const first = page.locator('.slot-full button').first();
    const label = (await first.textContent()) ?? '';
    expect(label).toMatch(/^Propose Tue, 24 Nov 2026, (09:30|10:45|11:00|11:15|11:30|11:45|12:00)$/);
    await first.click();
    await page.waitForURL(/done=moved/);
    await expect.poll(() => page.locator('[data-live-region="state"]').textContent()).toContain('Time proposed');
    const item = await t.owner('GET', `/v1/owner/items/${ids.carla}`);
    expect(item.body.state).toBe('proposed');
    expect(label).toContain(new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: 'Europe/Lisbon' }).format(new Date(item.body.payload.proposal.startTime)));
  });

  it('works on a 390×844 phone: the list first, the week scrolling inside its own region', async () => {
    const phone = await browser.context.newPage();
    await phone.setViewportSize({ width: 390, height: 844 });
    const fits = async () => (await phone.evaluate('document.documentElement.scrollWidth')) as number;

    await phone.goto(`${t.baseUrl}/app/today?date=2026-11-24`);
    expect(await fits()).toBeLessThanOrEqual(390);
    await expectAccessible(phone, 'today on a phone');
    await screenshot(phone, 'owner-today-phone');

    await phone.goto(`${t.baseUrl}/app/calendar?view=week&date=2026-11-24`);
    expect(await fits()).toBeLessThanOrEqual(390);
    const region = phone.locator('.cal-scroll');
    const [scrollWidth, clientWidth] = await region.evaluate((el) => [el.scrollWidth, el.clientWidth]);
    expect(scrollWidth).toBeGreaterThan(clientWidth);
    await expectAccessible(phone, 'week on a phone');
    await screenshot(phone, 'owner-week-phone');

    await phone.goto(`${t.baseUrl}/app/calendar?view=day&date=2026-11-24`);
    expect(await fits()).toBeLessThanOrEqual(390);
    await expectAccessible(phone, 'day on a phone');

    await phone.goto(`${t.baseUrl}/app/inbox`);
    const [firstItem, filters] = await Promise.all([phone.locator('ul.items li').first().boundingBox(), phone.locator('details.filters-fold').boundingBox()]);
    expect(firstItem!.y).toBeLessThan(filters!.y);
    expect(firstItem!.y).toBeLessThan(844);
    expect(await phone.locator('details.filters-fold').getAttribute('open')).toBeNull();
    await expectAccessible(phone, 'inbox on a phone, filters folded');
    await phone.close();
  });
});
