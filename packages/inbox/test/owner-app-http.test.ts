/**
 * The owner app over plain HTTP (docs/web.md): sessions (httpOnly, SameSite, Secure and __Host- on
 * https, idle and absolute ends, sign-out here and everywhere, a revoked key ends them), CSRF on every
 * write (token and origin), sign-in CSRF, session fixation, clickjacking and CSP headers, writes that
 * go through the operations as the owner on channel owner_ui with idempotency, the security section
 * changed only here, and business- or customer-written text that stays inert on every page.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dropTestDatabase, testDatabaseUrl } from '../../../test-support/test-database.js';
import { buildInbox } from '../src/app.js';
import { createOwnerKey } from '../src/domain/access/api-keys.js';
import { seedDemoBusiness } from '../src/demo/seed-demo.js';
import { haircutAt, startInbox, TestClock, type TestInbox } from './support/harness.js';
import { makeKey } from './support/integration-keys.js';
import { startWebhookInbox } from './support/webhooks-inbox.js';
import { expectNoInlineCode, formBody, openSignInForm, setCookies, signInToApp } from './support/owner-app.js';

const HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)>';

async function signInPost(t: TestInbox, fields: Record<string, string>, headers: Record<string, string> = {}) {
  return fetch(`${t.baseUrl}/app/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: formBody(fields),
  });
}

describe('owner app over HTTP', () => {
  let t: TestInbox;
  beforeEach(async () => {
    t = await startInbox();
  });
  afterEach(async () => {
    await t.close();
  });

  it('signs in with the owner key only, into an httpOnly SameSite session cookie; pages need it', async () => {
    const away = await fetch(`${t.baseUrl}/app/inbox?type=booking`, { redirect: 'manual' });
    expect(away.status).toBe(303);
    expect(away.headers.get('location')).toBe(`/app/sign-in?next=${encodeURIComponent('/app/inbox?type=booking')}`);

    const form = await openSignInForm(t.baseUrl);
    const integration = await makeKey(t, 'automation');
    for (const key of ['svc_own_nope', integration.key, '']) {
      const refused = await signInPost(t, { signin_token: form.token, owner_key: key }, { cookie: form.cookie });
      expect(refused.status).toBe(401);
      expect(setCookies(refused).has('svc_owner')).toBe(false);
    }
    const ok = await signInPost(t, { signin_token: form.token, owner_key: t.ownerKey, next: '/app/setup' }, { cookie: form.cookie });
    expect(ok.status).toBe(303);
    expect(ok.headers.get('location')).toBe('/app/setup');
    const line = ok.headers.getSetCookie().find((c) => c.startsWith('svc_owner='))!;
    expect(line).toMatch(/; HttpOnly/);
    expect(line).toMatch(/; SameSite=Lax/);
    expect(line).toMatch(/; Path=\//);
    expect(line).not.toMatch(/; Secure/);
    // Only the token's hash is stored.
    const token = line.split(';')[0]!.split('=')[1]!;
    expect(await t.inbox.store.ownerSessions.find(token)).toBeNull();
    expect(await t.inbox.store.ownerSessions.count()).toBe(1);

    const page = await fetch(`${t.baseUrl}/app/inbox`, { headers: { cookie: `svc_owner=${token}` } });
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('private, no-store');
  });

  it('refuses a sign-in form from another origin or without its token (login CSRF), and never goes elsewhere after it', async () => {
    const form = await openSignInForm(t.baseUrl);
    const other = await signInPost(t, { signin_token: form.token, owner_key: t.ownerKey }, { cookie: form.cookie, origin: 'https://evil.example' });
    expect(other.status).toBe(403);
    const noCookie = await signInPost(t, { signin_token: form.token, owner_key: t.ownerKey });
    expect(noCookie.status).toBe(403);
    const wrong = await signInPost(t, { signin_token: 'x'.repeat(form.token.length), owner_key: t.ownerKey }, { cookie: form.cookie });
    expect(wrong.status).toBe(403);
    expect(await t.inbox.store.ownerSessions.count()).toBe(0);
    // A next that is no local page of the app lands on Today, the app's first page.
    for (const next of ['https://evil.example/', '//evil.example/app', '/v1/owner/items', '/app/../v1']) {
      const ok = await signInPost(t, { signin_token: form.token, owner_key: t.ownerKey, next }, { cookie: form.cookie });
      expect(ok.status).toBe(303);
      expect(ok.headers.get('location'), next).toBe('/app/today');
    }
  });

  it('never adopts a session id the browser brought (session fixation)', async () => {
    const planted = 'attacker-chosen-session-id-0123456789abcdef';
    const form = await openSignInForm(t.baseUrl);
    const ok = await signInPost(t, { signin_token: form.token, owner_key: t.ownerKey }, { cookie: `${form.cookie}; svc_owner=${planted}` });
    const issued = setCookies(ok).get('svc_owner');
    expect(issued).toBeDefined();
    expect(issued).not.toBe(planted);
    const withPlanted = await fetch(`${t.baseUrl}/app/inbox`, { redirect: 'manual', headers: { cookie: `svc_owner=${planted}` } });
    expect(withPlanted.status).toBe(303);
    expect(withPlanted.headers.get('location')).toMatch(/^\/app\/sign-in/);
  });

  it('refuses every write without the session\'s CSRF token, or from another origin', async () => {
    const app = await signInToApp(t.baseUrl, t.ownerKey);
    const fields = { name: 'Sneaky', preset: 'automation' };
    for (const [csrf, headers] of [
      [null, {}],
      ['forged', {}],
      [app.csrf, { origin: 'https://evil.example' }],
      [app.csrf, { 'sec-fetch-site': 'cross-site' }],
    ] as const) {
      const refused = await app.post('/app/setup/keys', fields, { csrf, headers });
      expect(refused.status).toBe(403);
      expect(refused.text).toMatch(/another site|outdated/);
    }
    // A token from another session does not do either.
    const other = await signInToApp(t.baseUrl, t.ownerKey);
    expect((await app.post('/app/setup/keys', fields, { csrf: other.csrf })).status).toBe(403);
    expect((await t.owner('GET', '/v1/owner/api-keys')).body.items.map((k: any) => k.name)).not.toContain('Sneaky');
    // Same origin, right token: made.
    const made = await app.post('/app/setup/keys', fields, { headers: { origin: new URL(t.baseUrl).origin } });
    expect(made.status).toBe(200);
    expect(made.text).toMatch(/svc_own_[A-Za-z0-9_-]{20,}/);
  });

  it('serves pages that cannot be framed and run only their own scripts', async () => {
    const app = await signInToApp(t.baseUrl, t.ownerKey);
    for (const path of ['/app/sign-in', '/app/inbox', '/app/setup', '/app/setup/hours']) {
      const r = path === '/app/sign-in' ? await fetch(`${t.baseUrl}${path}`).then(async (f) => ({ headers: f.headers, text: await f.text() })) : await app.get(path);
      const csp = r.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(r.headers.get('x-frame-options')).toBe('DENY');
      expect(r.headers.get('x-robots-tag')).toContain('noindex');
      expect(r.headers.get('access-control-allow-origin')).toBeNull();
      expectNoInlineCode(r.text);
    }
  });

  it('moves, replies and flags through the operations: actor owner, channel owner_ui, one event per form even when sent twice', async () => {
    const booked = await t.request('POST', '/v1/bookings', { body: { ...haircutAt('2026-11-24T10:00:00Z'), idempotency_key: 'b1' } });
    expect(booked.status).toBe(201);
    const app = await signInToApp(t.baseUrl, t.ownerKey);
    const page = await app.get(`/app/items/${booked.body.id}`);
    expect(page.status).toBe(200);
    // Exactly the valid next moves of a requested booking.
    const owner = await t.owner('GET', `/v1/owner/items/${booked.body.id}`);
    const events = [...new Set([...page.text.matchAll(/name="event" value="([^"]+)"/g)].map((m) => m[1]))];
    expect(events.sort()).toEqual(owner.body.transitions.map((tr: any) => tr.event).sort());

    const confirm = { event: 'confirm', expected_version: '1', idempotency_key: 'form-1' };
    const first = await app.post(`/app/items/${booked.body.id}/move`, confirm);
    expect(first.status, first.text.slice(0, 500)).toBe(303);
    expect(first.location).toBe(`/app/items/${booked.body.id}?done=moved`);
    const again = await app.post(`/app/items/${booked.body.id}/move`, confirm);
    expect(again.status).toBe(303);
    const after = await t.owner('GET', `/v1/owner/items/${booked.body.id}`);
    expect(after.body.state).toBe('confirmed');
    const confirms = after.body.events.filter((e: any) => e.event === 'confirm');
    expect(confirms).toHaveLength(1);
    expect(confirms[0].by.kind).toBe('owner');
    expect(confirms[0].channel).toBe('owner_ui');

    // A stale form (an old version) is refused with the item as it stands, never applied.
    const stale = await app.post(`/app/items/${booked.body.id}/move`, { event: 'cancel_by_business', expected_version: '1', idempotency_key: 'form-2' });
    expect(stale.status).toBe(409);
    expect((await t.owner('GET', `/v1/owner/items/${booked.body.id}`)).body.state).toBe('confirmed');

    expect((await app.post(`/app/items/${booked.body.id}/reply`, { message: 'See you then!', idempotency_key: 'r1' })).status).toBe(303);
    expect((await app.post(`/app/items/${booked.body.id}/reply`, { message: 'Regular client', internal: '1', idempotency_key: 'r2' })).status).toBe(303);
    expect((await app.post(`/app/items/${booked.body.id}/flags`, { needsHuman: '1', idempotency_key: 'f1' })).status).toBe(303);
    const done = await t.owner('GET', `/v1/owner/items/${booked.body.id}`);
    expect(done.body.conversation.map((m: any) => [m.text, m.internal, m.channel])).toEqual([
      ['See you then!', false, 'owner_ui'],
      ['Regular client', true, 'owner_ui'],
    ]);
    expect(done.body.needsHuman).toBe(true);
    const stream = await t.owner('GET', '/v1/owner/events');
    expect(stream.body.events.filter((e: any) => e.data.channel === 'owner_ui').length).toBeGreaterThanOrEqual(2);
  });

  it('lets only the owner in the app change the security section', async () => {
    const rest = await t.owner('PUT', '/v1/owner/settings', { body: { settings: { security: { enforceScopes: true } } } });
    expect(rest.status).toBe(403);
    const app = await signInToApp(t.baseUrl, t.ownerKey);
    const changed = await app.post('/app/setup/settings', { security: '1', enforceScopes: '1' });
    expect(changed.status, changed.text.slice(0, 800)).toBe(303);
    expect((await t.owner('GET', '/v1/owner/settings')).body.settings.security).toEqual({ enforceScopes: true, aiMayCreateKeys: false });
    // Written back as it is by the owner key: accepted, unchanged.
    expect((await t.owner('PUT', '/v1/owner/settings', { body: { settings: { security: { enforceScopes: true } } } })).status).toBe(200);
  });

  it('ends sessions on sign-out, everywhere, on a revoked key, after a week unused and after thirty days', async () => {
    const one = await signInToApp(t.baseUrl, t.ownerKey);
    const two = await signInToApp(t.baseUrl, t.ownerKey);
    const out = await one.post('/app/sign-out', {});
    expect(out.status).toBe(303);
    expect(out.location).toBe('/app/sign-in?out=1');
    expect((await one.get('/app/inbox')).status).toBe(303);
    expect((await two.get('/app/inbox')).status).toBe(200);
    await two.post('/app/sign-out-everywhere', {});
    expect((await two.get('/app/inbox')).status).toBe(303);
    expect(await t.inbox.store.ownerSessions.count()).toBe(0);

    // A session opened with a key ends when that key is revoked.
    const spare = await createOwnerKey(t.inbox.store, 'spare owner key', t.clock.now());
    const three = await signInToApp(t.baseUrl, spare.value);
    expect((await three.get('/app/inbox')).status).toBe(200);
    await t.inbox.store.apiKeys.revoke(spare.id, t.clock.now());
    expect((await three.get('/app/inbox')).status).toBe(303);

    // Idle: a week without use.
    const four = await signInToApp(t.baseUrl, t.ownerKey);
    t.clock.advance(6 * 86_400_000);
    expect((await four.get('/app/inbox')).status).toBe(200);
    t.clock.advance(6 * 86_400_000);
    expect((await four.get('/app/inbox')).status).toBe(200);
    t.clock.advance(7 * 86_400_000 + 1);
    expect((await four.get('/app/inbox')).status).toBe(303);

    // Absolute: thirty days, however often used.
    const five = await signInToApp(t.baseUrl, t.ownerKey);
    for (let day = 0; day < 29; day++) {
      t.clock.advance(86_400_000);
      expect((await five.get('/app/setup')).status).toBe(200);
    }
    t.clock.advance(86_400_000);
    expect((await five.get('/app/setup')).status).toBe(303);
  });

  it('keeps what businesses and customers wrote inert on every page', async () => {
    await t.owner('PATCH', '/v1/owner/profile', { body: { profile: { name: `Salon ${HOSTILE}`, description: HOSTILE } } });
    await t.owner('POST', '/v1/owner/services', { body: { service: { id: 'evil', name: `Cut ${HOSTILE}`, description: HOSTILE, durationMinutes: 30, priceModel: 'fixed', price: 100 } } });
    await t.owner('POST', '/v1/owner/products', { body: { product: { name: `Comb ${HOSTILE}`, sku: 'EV-1', price: 100, category: HOSTILE } } });
    await t.owner('PUT', '/v1/owner/availability/closures', { body: { closures: [{ startDate: '2026-12-01', endDate: '2026-12-02', reason: HOSTILE }] } });
    const booked = await t.request('POST', '/v1/bookings', {
      body: { payload: { serviceId: 'haircut', startTime: '2026-11-24T11:00:00Z', description: HOSTILE }, contact: { name: `Ana ${HOSTILE}`.slice(0, 200) }, message: HOSTILE, idempotency_key: 'h1' },
    });
    expect(booked.status, JSON.stringify(booked.body)).toBe(201);
    const app = await signInToApp(t.baseUrl, t.ownerKey);
    await app.post(`/app/items/${booked.body.id}/reply`, { message: HOSTILE, internal: '1', idempotency_key: 'n1' });
    await app.post('/app/setup/keys', { name: `Key ${HOSTILE}`.slice(0, 100), preset: 'automation' });
    const closedWeek = '/app/calendar?view=week&date=2026-12-01';
    for (const path of ['/app/inbox', '/app/today', '/app/today?date=2026-11-24', '/app/calendar?view=day&date=2026-11-24', '/app/calendar?view=week&date=2026-11-24', closedWeek, `/app/items/${booked.body.id}`, '/app/setup/profile', '/app/setup/services', '/app/setup/products', '/app/setup/hours', '/app/setup/keys', '/app/setup/rules']) {
      const page = await app.get(path);
      expect(page.status, path).toBe(200);
      expectNoInlineCode(page.text);
      expect(page.text, path).toContain('&lt;script&gt;');
    }
  });
});

describe('owner app served over https', () => {
  it('marks its cookies Secure with the __Host- prefix', async () => {
    const clock = new TestClock();
    const dataDir = mkdtempSync(join(tmpdir(), 'inbox-app-https-'));
    const inbox = await buildInbox({ dataDir, databaseUrl: await testDatabaseUrl('inbox', dataDir), publicBaseUrl: 'https://inbox.example', clock, logLevel: 'silent', runJobs: false });
    try {
      await seedDemoBusiness({ store: inbox.store, clock });
      const key = await createOwnerKey(inbox.store, 'owner', clock.now());
      const base = await inbox.http.listen({ host: '127.0.0.1', port: 0 });
      const page = await fetch(`${base}/app/sign-in`);
      const signInCookie = page.headers.getSetCookie()[0]!;
      expect(signInCookie).toMatch(/^__Host-svc_signin=[^;]+; Path=\/; Max-Age=\d+; SameSite=Lax; HttpOnly; Secure$/);
      const token = /name="signin_token" value="([^"]+)"/.exec(await page.text())![1]!;
      const ok = await fetch(`${base}/app/sign-in`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: signInCookie.split(';')[0]!, origin: 'https://inbox.example' },
        body: formBody({ signin_token: token, owner_key: key.value }),
      });
      expect(ok.status).toBe(303);
      expect(ok.headers.getSetCookie().find((c) => c.startsWith('__Host-svc_owner='))).toMatch(/; HttpOnly; Secure$/);
    } finally {
      await inbox.close();
      rmSync(dataDir, { recursive: true, force: true });
      await dropTestDatabase('inbox', dataDir);
    }
  });
});

describe("the setup pages' dates and times, worded by the server and read in the business's zone", () => {
  const HOUR_MS = 3_600_000;
  const idempotencyKeyOf = (page: string, action: string) => new RegExp(`action="${action}"><input type="hidden" name="csrf" value="[^"]+"><input type="hidden" name="idempotency_key" value="([^"]+)">`).exec(page)?.[1];

  it("sets a new key's expiry from a day and a 24-hour time in the business's zone, or none; refuses a day that is none", async () => {
    // Monday 23 November 2026 in Lisbon (UTC in winter, UTC+1 from the end of March).
    const t = await startInbox({ clock: new TestClock('2026-11-23T10:00:00Z') });
    try {
      const app = await signInToApp(t.baseUrl, t.ownerKey);
      const page = (await app.get('/app/setup/keys?lang=pt')).text;
      expect(page).not.toContain('datetime-local');
      expect(page).toMatch(/<legend>Expira \(opcional\) <span class="muted small">\(Europe\/Lisbon\)<\/span><\/legend>/);
      expect(page).toContain('<select id="k-expires-date" name="expires.date"><option value="">\u2014</option><option value="2026-11-23">segunda-feira, 23 de novembro de 2026</option>');
      expect(page).toContain('<option value="2027-11-24">');
      expect(page).not.toContain('<option value="2027-11-25">');
      expect(page).toContain('<label for="k-expires-time">Hora</label>');
      expect(page).not.toMatch(/\b(AM|PM)\b/);

      const made = await app.post('/app/setup/keys', { idempotency_key: idempotencyKeyOf(page, '/app/setup/keys')!, name: 'Summer sync', preset: 'read_only', 'expires.date': '2027-07-01', 'expires.time': '09:30' });
      expect(made.status, made.text.slice(0, 300)).toBe(200);
      const none = await app.post('/app/setup/keys', { name: 'Forever sync', preset: 'read_only', 'expires.date': '', 'expires.time': '00:00' });
      expect(none.status).toBe(200);
      for (const [date, time] of [['2027-02-30', '10:00'], ['2027-07-01', '25:00'], ['soon', '10:00']] as const) {
        const refused = await app.post('/app/setup/keys?lang=en', { name: 'Bad sync', preset: 'read_only', 'expires.date': date, 'expires.time': time });
        expect(refused.status, `${date} ${time}`).toBe(422);
        expect(refused.text).toContain(`Expires (optional): &quot;${date}T${time}&quot; is not a date and time.`);
      }
      const keys = (await t.owner('GET', '/v1/owner/api-keys')).body.items as { name: string; expires_at: string | null }[];
      // 09:30 in Lisbon on 1 July is 08:30 UTC (summer time).
      expect(Date.parse(keys.find((k) => k.name === 'Summer sync')!.expires_at!)).toBe(Date.parse('2027-07-01T08:30:00Z'));
      expect(keys.find((k) => k.name === 'Forever sync')!.expires_at).toBeNull();
      expect(keys.map((k) => k.name)).not.toContain('Bad sync');
    } finally {
      await t.close();
    }
  });

  it("replays what an endpoint missed since a day and time in the business's zone, within the 30 days deliveries are kept; refuses none or a bad one", async () => {
    // Saturday 24 October 2026, 21:30 UTC: 22:30 in Lisbon, the last evening of summer time (UTC+1).
    const t = await startWebhookInbox({ clock: new TestClock('2026-10-24T21:30:00Z') });
    try {
      const conversation = async (message: string) => {
        const r = await t.request('POST', '/v1/messages', { body: { message, contact: { name: 'Ana', email: 'ana@example.com' } } });
        expect(r.status).toBe(201);
        return r.body.id as string;
      };
      const before = await conversation('before'); // 22:30 in Lisbon
      t.clock.advance(HOUR_MS);
      const after = await conversation('after'); // 23:30 in Lisbon, still 22:30 UTC
      t.clock.advance(8 * 24 * HOUR_MS);
      const later = await conversation('later');
      t.clock.set('2026-11-23T10:00:00Z');
      const endpoint = await t.owner('POST', '/v1/owner/webhooks', { body: { url: 'http://127.0.0.1:9/hook' } });
      expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
      const id = endpoint.body.id as string;

      const app = await signInToApp(t.baseUrl, t.ownerKey);
      const page = (await app.get('/app/setup/webhooks?lang=en')).text;
      expect(page).not.toContain('datetime-local');
      expect(page).toContain(`<select id="since-${id}-date" name="since.date" required="required"><option value="2026-10-24">Saturday, 24 October 2026</option>`);
      expect(page).not.toContain('<option value="2026-10-23">');
      // Yesterday at this hour, unless another time is picked.
      expect(page).toContain('<option value="2026-11-22" selected="selected">');
      expect(page).toContain('<option value="10:00" selected="selected">10:00</option>');
      expect(page).toContain('<option value="00:15">00:15</option>');

      for (const [date, time, said] of [['', '10:00', 'Send what it missed since: choose a day.'], ['2026-10-24', '24:30', 'is not a date and time']] as const) {
        const refused = await app.post('/app/setup/webhooks/replay-missing?lang=en', { id, 'since.date': date, 'since.time': time });
        expect(refused.status, `${date} ${time}`).toBe(422);
        expect(refused.text).toContain(said);
      }
      expect((await t.owner('GET', `/v1/owner/webhooks/${id}/deliveries`)).body.items).toHaveLength(0);

      const sent = await app.post('/app/setup/webhooks/replay-missing?lang=en', { idempotency_key: idempotencyKeyOf(page, '/app/setup/webhooks/replay-missing')!, id, 'since.date': '2026-10-24', 'since.time': '23:00' });
      expect(sent.status, sent.text.slice(0, 300)).toBe(200);
      const deliveries = (await t.owner('GET', `/v1/owner/webhooks/${id}/deliveries`)).body.items as { item_id: string | null }[];
      expect(sent.text).toContain(`Queued. (${deliveries.length})`);
      // 23:00 in Lisbon that evening was 22:00 UTC: the conversation of 22:30 UTC is replayed, the one of 21:30 is not.
      const items = new Set(deliveries.map((d) => d.item_id));
      expect(items.has(after)).toBe(true);
      expect(items.has(later)).toBe(true);
      expect(items.has(before)).toBe(false);
    } finally {
      await t.close();
    }
  });
});
