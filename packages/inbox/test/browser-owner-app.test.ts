/**
 * The owner app in a real browser (Chromium through playwright-core; docs/web.md "Proof"): sign in, a
 * booking arriving live while the inbox is open, confirming it, replying, changing the hours, making
 * and revoking a key, adding and deleting a webhook, cutting off an AI app, signing out; axe-core on
 * every page, the time to interactive and the script budget on the main screens; a phone-sized
 * screen; and the hostile cases a browser makes real: framing by another site, and a form posted
 * from another site while the owner is signed in.
 */
// sqlite only: the page's own behaviour in a browser; every write it makes goes through the routes owner-app-http.test.ts runs on PostgreSQL
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
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
import { haircutAt, startInbox, type TestInbox } from './support/harness.js';
import { connectAiApp } from './support/integration-keys.js';

if (!CHROMIUM && !REQUIRE_BROWSER) console.warn(`browser-owner-app.test.ts skipped: ${MISSING_BROWSER}`);
if (!CHROMIUM && REQUIRE_BROWSER) {
  describe('owner app in a browser', () => {
    it('needs a Chromium (REQUIRE_BROWSER=1)', () => {
      throw new Error(`REQUIRE_BROWSER=1 but ${MISSING_BROWSER}`);
    });
  });
}

(CHROMIUM ? describe : describe.skip)('owner app in a browser (Chromium)', () => {
  let t: TestInbox;
  let browser: BrowserSession;
  let page: Page;
  let foreign: Server;
  let foreignOrigin: string;
  let foreignPage = '';

  beforeAll(async () => {
    buildPageScripts();
    [t, browser] = await Promise.all([startInbox(), launchBrowser({ viewport: { width: 1280, height: 900 } })]);
    page = await browser.context.newPage();
    page.on('dialog', (dialog) => void dialog.accept());
    foreign = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(foreignPage);
    });
    await new Promise<void>((resolve) => foreign.listen(0, '127.0.0.1', resolve));
    foreignOrigin = `http://localhost:${(foreign.address() as AddressInfo).port}`;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => (foreign ? foreign.close(resolve) : resolve(undefined)));
    await t?.close();
  });

  it('signs in with the owner key', async () => {
    await page.goto(`${t.baseUrl}/app`);
    await expect.poll(() => page.url()).toContain('/app/sign-in');
    await expectAccessible(page, 'sign-in');
    await screenshot(page, 'owner-sign-in');
    await page.getByLabel(/Owner key|Chave de dono/).fill(t.ownerKey);
    await page.getByRole('button', { name: /^(Sign in|Entrar)$/ }).click();
    await page.waitForURL(/\/app\/today/);
    // The business's language (the demo salon speaks pt-PT first) is the app's by default.
    expect(await page.getAttribute('html', 'lang')).toBe('pt');
    const cookies = await browser.context.cookies(t.baseUrl);
    const session = cookies.find((c) => c.name === 'svc_owner');
    expect(session?.httpOnly).toBe(true);
    expect(session?.sameSite).toBe('Lax');
    // Back to English for the rest (the choice is remembered).
    await page.getByRole('link', { name: 'English' }).click();
    await expect.poll(() => page.getAttribute('html', 'lang')).toBe('en');
  });

  let bookingId = '';
  it('shows a booking that arrives while the inbox is open, without a reload', async () => {
    await page.goto(`${t.baseUrl}/app/inbox`);
    await expectWithinBudget(page, 'inbox');
    await expectAccessible(page, 'inbox (empty)');
    const marker = await page.evaluate(() => ((globalThis as unknown as { __marker: number }).__marker = Math.random()));
    const booked = await t.request('POST', '/v1/bookings', { body: { ...haircutAt('2026-11-24T10:00:00Z'), contact: { name: 'Ana Live', email: 'ana@example.com' }, idempotency_key: 'live-1' } });
    expect(booked.status).toBe(201);
    bookingId = booked.body.id;
    await page.locator(`[data-item="${bookingId}"]`).waitFor({ timeout: 10_000 });
    // The same document: no navigation happened.
    expect(await page.evaluate(() => (globalThis as unknown as { __marker: number }).__marker)).toBe(marker);
    await expect.poll(() => page.locator('#live-announcer').textContent()).toMatch(/New: Booking/);
    await expectAccessible(page, 'inbox (one booking)');
    await screenshot(page, 'owner-inbox');
  });

  it('confirms the booking and replies to the customer', async () => {
    await page.locator(`[data-item="${bookingId}"] a`).click();
    await page.waitForURL(new RegExp(`/app/items/${bookingId}`));
    // Shown again, the page is kept: in gzip made of its parts compressed once, with fresh form keys; the Confirm below uses one.
    const kept = await page.reload();
    expect(kept?.status()).toBe(200);
    expect(await kept?.headerValue('content-encoding')).toBe('gzip');
    await expectWithinBudget(page, 'item');
    await expectAccessible(page, 'item (requested)');
    await screenshot(page, 'owner-item');
    await page.getByRole('button', { name: 'Confirm', exact: true }).click();
    await page.waitForURL(/done=moved/);
    await expect.poll(() => page.locator('[data-live-region="state"]').textContent()).toContain('Confirmed');
    await page.getByLabel('Reply to the customer').fill('Confirmed, see you Tuesday at 10.');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.waitForURL(/done=replied/);
    await expect.poll(() => page.locator('[data-live-region="conversation"]').textContent()).toContain('see you Tuesday');
    const item = await t.owner('GET', `/v1/owner/items/${bookingId}`);
    expect(item.body.state).toBe('confirmed');
    expect(item.body.events.find((e: any) => e.event === 'confirm')).toMatchObject({ by: { kind: 'owner' }, channel: 'owner_ui' });
    expect(item.body.conversation.at(-1)).toMatchObject({ text: 'Confirmed, see you Tuesday at 10.', channel: 'owner_ui', internal: false });
    await expectAccessible(page, 'item (confirmed)');
  });

  it('updates an open item live when the customer cancels it elsewhere', async () => {
    const booked = await t.request('POST', '/v1/bookings', { body: { ...haircutAt('2026-11-25T11:00:00Z'), idempotency_key: 'live-2' } });
    await page.goto(`${t.baseUrl}/app/items/${booked.body.id}`);
    await page.locator('[data-live-region="moves"] button').first().waitFor();
    const cancelled = await t.request('POST', `/v1/items/${booked.body.id}/cancel`, { body: {}, headers: { 'x-access-token': booked.body.accessToken } });
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    await expect.poll(() => page.locator('[data-live-region="state"]').textContent(), { timeout: 10_000 }).toContain('Cancelled');
    await expect.poll(() => page.locator('[data-live-region="moves"]').textContent()).toContain('Nothing to do');
  });

  it('changes the opening hours in the week editor', async () => {
    await page.goto(`${t.baseUrl}/app/setup/hours`);
    await expectWithinBudget(page, 'hours');
    await expectAccessible(page, 'hours');
    await screenshot(page, 'owner-hours');
    // Monday is closed in the demo: open it 10:00–14:00, and add a second period with the script's button.
    const monday = page.locator('fieldset.day[data-day="1"]');
    await monday.locator('input[name="d1.1.opens"]').fill('10:00');
    await monday.locator('input[name="d1.1.closes"]').fill('14:00');
    await monday.getByRole('button', { name: 'Add a period' }).click();
    await monday.locator('input[name="d1.3.opens"]').fill('15:00');
    await monday.locator('input[name="d1.3.closes"]').fill('18:30');
    await page.getByRole('button', { name: 'Save the hours' }).click();
    await page.waitForURL(/done=saved/);
    const availability = await t.owner('GET', '/v1/owner/availability');
    expect(availability.body.openingHours.filter((r: any) => r.dayOfWeek === 1)).toEqual([
      { dayOfWeek: 1, opens: '10:00', closes: '14:00' },
      { dayOfWeek: 1, opens: '15:00', closes: '18:30' },
    ]);
    expect(await page.locator('input[name="d1.2.opens"]').inputValue()).toBe('15:00');
  });

  it('makes a key shown once, then revokes it', async () => {
    await page.goto(`${t.baseUrl}/app/setup/keys`);
    await page.getByLabel('Name', { exact: true }).fill('Calendar bridge');
    await page.getByLabel('What it may do').selectOption('calendar_sync');
    // Its expiry: a day and a 24-hour time the server words, in the business's zone (Lisbon, UTC in winter).
    await page.getByLabel('Day').selectOption('2026-12-31');
    await page.getByLabel('Time').selectOption('23:45');
    await page.getByRole('button', { name: 'Make the key' }).click();
    const shown = await page.locator('.secret output').textContent();
    expect(shown).toMatch(/^svc_own_[A-Za-z0-9_-]{20,}$/);
    const made = (await t.owner('GET', '/v1/owner/api-keys')).body.items.find((key: any) => key.name === 'Calendar bridge');
    expect(Date.parse(made.expires_at)).toBe(Date.parse('2026-12-31T23:45:00Z'));
    await expectAccessible(page, 'keys (made)');
    await screenshot(page, 'owner-keys');
    // It works, until revoked.
    expect((await t.request('GET', '/v1/owner/items', { headers: { authorization: `Bearer ${shown}` } })).status).toBe(200);
    await page.goto(`${t.baseUrl}/app/setup/keys`);
    expect(await page.content()).not.toContain(shown!);
    await page.locator('tr', { hasText: 'Calendar bridge' }).getByRole('button', { name: 'Revoke' }).click();
    await page.waitForURL(/done=saved/);
    expect((await t.request('GET', '/v1/owner/items', { headers: { authorization: `Bearer ${shown}` } })).status).toBe(401);
  });

  it('adds a webhook with its secret shown once, and deletes it', async () => {
    await page.goto(`${t.baseUrl}/app/setup/webhooks`);
    await page.getByLabel('Address (https)').fill('https://hooks.example.com/inbox');
    await page.getByRole('button', { name: 'Add the webhook' }).click();
    expect(await page.locator('.secret output').textContent()).toMatch(/^whsec_/);
    const listed = await t.owner('GET', '/v1/owner/webhooks');
    expect(listed.body.items.map((w: any) => w.url)).toEqual(['https://hooks.example.com/inbox']);
    // Open, so the replay's day and time are checked too.
    await page.getByText('Deliveries (0)').click();
    expect(await page.getByRole('group', { name: /Send what it missed since/ }).getByLabel('Day').isVisible()).toBe(true);
    await expectAccessible(page, 'webhooks');
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.waitForURL(/done=saved/);
    expect((await t.owner('GET', '/v1/owner/webhooks')).body.items).toEqual([]);
  });

  it('cuts off an AI app', async () => {
    const ai = await connectAiApp(t, ['inbox:read'], 'Helpful Assistant');
    expect((await t.request('GET', '/v1/owner/items', { headers: { authorization: `Bearer ${ai.token}` } })).status).toBe(200);
    await page.goto(`${t.baseUrl}/app/setup/ai-apps`);
    await expectAccessible(page, 'AI apps');
    await page.locator('section', { hasText: 'Helpful Assistant' }).getByRole('button', { name: 'Cut off' }).click();
    await page.waitForURL(/done=saved/);
    expect((await t.request('GET', '/v1/owner/items', { headers: { authorization: `Bearer ${ai.token}` } })).status).toBe(401);
  });

  it('passes axe on every setup screen', async () => {
    for (const section of ['', '/profile', '/services', '/products', '/rules', '/settings', '/networks', '/feeds']) {
      await page.goto(`${t.baseUrl}/app/setup${section}`);
      await expectAccessible(page, `setup${section}`);
    }
    await page.goto(`${t.baseUrl}/app/setup/settings`);
    await screenshot(page, 'owner-settings');
  });

  it('cannot be framed by another site', async () => {
    foreignPage = `<!doctype html><html lang="en"><title>framing</title><iframe src="${t.baseUrl}/app/inbox" title="inbox"></iframe>`;
    await page.goto(`${foreignOrigin}/`);
    const frame = page.frames().find((f) => f !== page.mainFrame());
    await page.waitForTimeout(500);
    // Refused: the frame never shows the app (Chromium puts its error page there instead).
    expect(frame?.url() ?? '').not.toMatch(/\/app\/inbox$/);
    expect(await frame?.evaluate('document.body ? document.body.innerText : ""').catch(() => '')).not.toContain('Inbox');
  });

  it('ignores a form another site posts while the owner is signed in (CSRF)', async () => {
    const before = (await t.owner('GET', '/v1/owner/api-keys')).body.items.length;
    foreignPage = `<!doctype html><html lang="en"><title>csrf</title><form id="f" method="post" action="${t.baseUrl}/app/setup/keys"><input name="name" value="Planted"><input name="preset" value="automation"><input name="csrf" value="guess"></form><button id="go" onclick="document.getElementById('f').submit()">go</button>`;
    await page.goto(`${foreignOrigin}/`);
    await page.click('#go');
    await page.waitForLoadState('load');
    expect(await page.content()).not.toMatch(/svc_own_[A-Za-z0-9_-]{20,}/);
    expect((await t.owner('GET', '/v1/owner/api-keys')).body.items.length).toBe(before);
  });

  it('works on a phone-sized screen', async () => {
    const phone = await browser.context.newPage();
    await phone.setViewportSize({ width: 390, height: 844 });
    await phone.goto(`${t.baseUrl}/app/inbox?open_only=0&f=1`);
    const width = (await phone.evaluate('document.documentElement.scrollWidth')) as number;
    expect(width).toBeLessThanOrEqual(390);
    await expectAccessible(phone, 'inbox on a phone');
    await screenshot(phone, 'owner-inbox-phone');
    await phone.close();
  });

  it('signs out', async () => {
    await page.goto(`${t.baseUrl}/app/inbox`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/app\/sign-in\?out=1/);
    await page.goto(`${t.baseUrl}/app/inbox`);
    await expect.poll(() => page.url()).toContain('/app/sign-in');
    expect(await t.inbox.store.ownerSessions.count()).toBe(0);
  });
});
