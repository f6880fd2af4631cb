/**
 * The customer's page of an item in a real browser with its scripts turned off (docs/web.md "The
 * customer's page"): the link from the mail in the development sink opens it, the token leaves the
 * address, the page is in the customer's language and axe-clean, and a reply and a cancellation work
 * as plain forms. Then the owner app's Setup › Notifications screen, axe-clean, with the count in the title.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import PostalMime from 'postal-mime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, MISSING_BROWSER, REQUIRE_BROWSER, buildPageScripts, expectAccessible, launchBrowser, screenshot, type BrowserSession } from '../../../test-support/browser.js';
import { startInbox, type TestInbox } from './support/harness.js';

if (!CHROMIUM && !REQUIRE_BROWSER) console.warn(`browser-customer-page.test.ts skipped: ${MISSING_BROWSER}`);
if (!CHROMIUM && REQUIRE_BROWSER) {
  describe("the customer's page in a browser", () => {
    it('needs a Chromium (REQUIRE_BROWSER=1)', () => {
      throw new Error(`REQUIRE_BROWSER=1 but ${MISSING_BROWSER}`);
    });
  });
}

(CHROMIUM ? describe : describe.skip)("the customer's page in a browser (Chromium, no script)", () => {
  let t: TestInbox;
  let browser: BrowserSession;
  /** axe runs as a script: the same page, with the same cookies, checked in a browser that runs scripts. */
  let checker: BrowserSession;

  beforeAll(async () => {
    buildPageScripts();
    [t, browser, checker] = await Promise.all([
      startInbox(),
      launchBrowser({ javaScriptEnabled: false, viewport: { width: 390, height: 844 } }),
      launchBrowser({ viewport: { width: 390, height: 844 } }),
    ]);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await checker?.close();
    await t?.close();
  });

  async function expectAccessibleAsSeen(url: string, label: string): Promise<void> {
    await checker.context.addCookies(await browser.context.cookies());
    const page = await checker.context.newPage();
    await page.goto(url);
    await expectAccessible(page, label);
    await page.close();
  }

  it('opens from the mail, reads in Portuguese, takes a reply and a cancellation without any script', async () => {
    const created = await t.request('POST', '/v1/bookings', {
      body: { payload: { serviceId: 'haircut', startTime: '2026-12-04T11:00:00Z' }, contact: { name: 'Ana Silva', email: 'ana@example.com', locale: 'pt-PT' } },
    });
    expect(created.status).toBe(201);
    expect((await t.owner('POST', `/v1/owner/items/${created.body.id}/transitions`, { body: { event: 'confirm' } })).status).toBe(200);
    expect((await t.owner('POST', `/v1/owner/items/${created.body.id}/replies`, { body: { message: 'Até sexta!' } })).status).toBe(201);
    await t.inbox.jobs.runDue();
    // The confirmation as the sink kept it, and the link in it.
    const folder = join(t.dataDir, 'mail');
    const mails = await Promise.all(readdirSync(folder).filter((f) => f.endsWith('.eml')).map((f) => PostalMime.parse(readFileSync(join(folder, f)))));
    const confirmation = mails.find((m) => m.subject === 'Salão Aurora: a sua marcação está confirmada');
    const link = /http:\/\/127\.0\.0\.1(\/i\/\S+)/.exec(confirmation?.text ?? '')?.[1];
    expect(link).toBeTruthy();

    const page = await browser.context.newPage();
    await page.goto(`${t.baseUrl}${link}`);
    // The token left the address at once.
    expect(page.url()).toBe(`${t.baseUrl}/i/${created.body.id}`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('A sua marcação');
    await page.getByText('sexta-feira, 4 de dezembro, 11:00 (45 minutos)').waitFor();
    expect(await page.locator('.conversation').textContent()).toMatch(/Salão Aurora[\s\S]*Até sexta!/);
    expect(await page.locator('script').count()).toBe(0);
    await expectAccessibleAsSeen(page.url(), 'customer page');
    await screenshot(page, 'customer-page');

    await page.getByLabel('A sua mensagem').fill('Posso chegar 10 minutos mais tarde?');
    await page.getByRole('button', { name: 'Enviar' }).click();
    await page.getByRole('status').filter({ hasText: 'A sua mensagem foi enviada.' }).waitFor();
    expect(await page.locator('.conversation').textContent()).toContain('Posso chegar 10 minutos mais tarde?');

    await page.getByLabel('Sim, cancelar a minha marcação').check();
    await page.getByRole('button', { name: 'Cancelar marcação' }).click();
    await page.getByRole('status').filter({ hasText: 'Feito: está cancelada.' }).waitFor();
    expect(await page.getByRole('heading', { level: 2 }).first().textContent()).toBe('Cancelada');
    await expectAccessibleAsSeen(page.url(), 'customer page, cancelled');
    const owner = await t.owner('GET', `/v1/owner/items/${created.body.id}`);
    expect(owner.body.state).toBe('cancelled');
    expect(owner.body.conversation.at(-1)).toMatchObject({ text: 'Posso chegar 10 minutos mais tarde?', channel: 'customer_page' });
    await page.close();
  });
});

(CHROMIUM ? describe : describe.skip)('Setup › Notifications in a browser (Chromium)', () => {
  let t: TestInbox;
  let browser: BrowserSession;

  beforeAll(async () => {
    buildPageScripts();
    [t, browser] = await Promise.all([startInbox(), launchBrowser()]);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('saves the owner address, is axe-clean, and the title counts what waits', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${t.baseUrl}/app/sign-in`);
    await page.getByLabel(/Owner key|Chave de dono/).fill(t.ownerKey);
    await page.getByRole('button', { name: /^(Sign in|Entrar)$/ }).click();
    await page.waitForURL(/\/app\/today/);
    const booked = await t.request('POST', '/v1/bookings', { body: { payload: { serviceId: 'haircut', startTime: '2026-12-04T11:00:00Z' }, contact: { name: 'Rui', email: 'rui@example.com' } } });
    expect(booked.status).toBe(201);
    // The live page follows the new request, and its title with it.
    await expect.poll(() => page.title(), { timeout: 10_000 }).toMatch(/^\(1\) /);
    await page.goto(`${t.baseUrl}/app/setup/notifications`);
    await page.getByLabel('Enviar avisos para este endereço').fill('dono@salao.example');
    await page.getByRole('button', { name: 'Guardar' }).first().click();
    await page.waitForURL(/done=saved/);
    expect(await page.getByLabel('Enviar avisos para este endereço').inputValue()).toBe('dono@salao.example');
    // The script shows the push button where the browser can push.
    await page.getByRole('button', { name: 'Ligar notificações neste aparelho' }).waitFor();
    await expectAccessible(page, 'setup notifications');
    expect((await t.owner('GET', '/v1/owner/settings')).body.settings.notifications.ownerEmail).toBe('dono@salao.example');
    await page.close();
  });
});
