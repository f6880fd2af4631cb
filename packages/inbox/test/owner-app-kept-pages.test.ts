/**
 * The owner app's kept pages over HTTP (docs/web.md "Budgets", doors/web/kept-pages.ts): the inbox
 * and an item page are served again from memory while nothing in the inbox is written and the minute
 * has not turned, and never after: an item that arrives or moves, a reply, the profile or the settings
 * changed, another day. An ended session never gets a kept page; one session never sees another's
 * CSRF token; every serving carries fresh form keys and every header of a rendered page.
 *
 * A page's `data-live-since` is the moment it was rendered: with the test clock moved on a few
 * seconds, the same value says the page was kept, a new one that it was rendered again.
 */
// sqlite only: pages kept in memory under SQLite's change stamps; on PostgreSQL the inbox keeps none (docs/storage.md "kept reads") and every page is rendered, as owner-app-http.test.ts runs there
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteFile } from '@svc/shared';
import { onPostgres } from '../../../test-support/test-database.js';
import { createOwnerKey } from '../src/domain/access/api-keys.js';
import { haircutAt, startInbox, type TestInbox } from './support/harness.js';
import { setCookies, signInToApp, type AppAnswer } from './support/owner-app.js';

const sinceOf = (page: AppAnswer): string | undefined => /data-live-since="([^"]+)"/.exec(page.text)?.[1];
const csrfOf = (page: AppAnswer): string[] => [...new Set([...page.text.matchAll(/name="csrf" value="([^"]+)"/g)].map((m) => m[1]!))];
const formKeysOf = (page: AppAnswer): string[] => [...page.text.matchAll(/name="idempotency_key" value="([^"]+)"/g)].map((m) => m[1]!);
/** The page without what each serving makes anew (form keys). */
const withoutFormKeys = (page: AppAnswer): string => page.text.replace(/name="idempotency_key" value="[^"]+"/g, 'name="idempotency_key" value=""');

describe('owner app kept pages', () => {
  let t: TestInbox;
  beforeEach(async () => {
    t = await startInbox();
  });
  afterEach(async () => {
    await t.close();
  });

  /** A few seconds on, the same minute: a kept page still holds. */
  const secondsLater = () => t.clock.advance(5_000);

  it('serves the inbox again until an item arrives or moves, and with fresh form keys each time', async () => {
    const first = await t.request('POST', '/v1/bookings', { body: { ...haircutAt('2026-11-24T10:00:00Z'), idempotency_key: 'b1' } });
    expect(first.status).toBe(201);
    const app = await signInToApp(t.baseUrl, t.ownerKey);
    const a = await app.get('/app/inbox');
    expect(a.status).toBe(200);
    expect(a.text).toContain(`data-item="${first.body.id}"`);
    secondsLater();
    const b = await app.get('/app/inbox');
    expect(sinceOf(b)).toBe(sinceOf(a));
    expect(b.text).toBe(a.text);
    // Compressed for a browser, the same page (its compressed form kept with its bytes).
    for (let round = 0; round < 2; round++) {
      const gzipped = await app.get('/app/inbox', { 'accept-encoding': 'gzip' });
      expect(gzipped.headers.get('content-encoding')).toBe('gzip');
      expect(gzipped.text).toBe(a.text);
    }

    // A booking arrives: the list shows it at once.
    const second = await t.request('POST', '/v1/bookings', { body: { ...haircutAt('2026-11-24T11:00:00Z', {}), contact: { name: 'Rui Costa', email: 'rui@example.com' }, idempotency_key: 'b2' } });
    expect(second.status).toBe(201);
    secondsLater();
    const c = await app.get('/app/inbox');
    expect(c.text).toContain(`data-item="${second.body.id}"`);
    expect(c.text).toContain('Rui Costa');
    expect(sinceOf(c)).not.toBe(sinceOf(a));

    // It moves (through REST, not the app): the list shows its new state.
    const rowOf = (page: AppAnswer, id: string) => new RegExp(`data-item="${id}"[\\s\\S]*?</li>`).exec(page.text)?.[0] ?? '';
    expect(rowOf(c, second.body.id)).not.toMatch(/Confirmad|Confirmed/);
    const moved = await t.owner('POST', `/v1/owner/items/${second.body.id}/transitions`, { body: { event: 'confirm', expected_version: 1 } });
    expect(moved.status).toBe(200);
    secondsLater();
    const d = await app.get('/app/inbox');
    expect(rowOf(d, second.body.id)).toMatch(/Confirmad|Confirmed/);

    // An item page with forms: the same page, but each serving its own form keys (a second tab sends its own reply).
    const item1 = await app.get(`/app/items/${second.body.id}`);
    secondsLater();
    const item2 = await app.get(`/app/items/${second.body.id}`);
    expect(sinceOf(item2)).toBe(sinceOf(item1));
    expect(withoutFormKeys(item2)).toBe(withoutFormKeys(item1));
    const keys1 = formKeysOf(item1);
    const keys2 = formKeysOf(item2);
    expect(keys1.length).toBeGreaterThan(2);
    // Drawn together, each key still has the shape and randomness of one drawn alone (12 random bytes).
    for (const key of [...keys1, ...keys2]) expect(key).toMatch(/^app-[A-Za-z0-9_-]{16}$/);
    expect(new Set([...keys1, ...keys2]).size).toBe(keys1.length + keys2.length);
    expect(item2.text).not.toContain('app-slot-');
  });

  it('renders an item page again after a move and a reply made in the app; two tabs send two notes', async () => {
    const booked = await t.request('POST', '/v1/bookings', { body: { ...haircutAt('2026-11-24T10:00:00Z'), idempotency_key: 'b1' } });
    const app = await signInToApp(t.baseUrl, t.ownerKey);
    const path = `/app/items/${booked.body.id}`;
    const before = await app.get(path);
    expect(before.text).toContain('name="event" value="confirm"');

    secondsLater();
    expect((await app.post(`${path}/move`, { event: 'confirm', expected_version: '1', idempotency_key: 'm1' })).status).toBe(303);
    const confirmed = await app.get(path);
    expect(confirmed.text).not.toContain('name="event" value="confirm"');
    expect(sinceOf(confirmed)).not.toBe(sinceOf(before));

    secondsLater();
    expect((await app.post(`${path}/reply`, { message: 'See you tomorrow, Ana', idempotency_key: 'r1' })).status).toBe(303);
    expect((await app.get(path)).text).toContain('See you tomorrow, Ana');

    secondsLater();
    // A note sent from a second tab showing the same kept page: its own key, so it is written, not taken for a repeat.
    const tab = await app.get(path);
    const noteKey = formKeysOf(tab).at(-1)!;
    const otherTab = await app.get(path);
    expect(formKeysOf(otherTab).at(-1)).not.toBe(noteKey);
    expect((await app.post(`${path}/reply`, { message: 'First note', internal: '1', idempotency_key: noteKey })).status).toBe(303);
    expect((await app.post(`${path}/reply`, { message: 'Second note', internal: '1', idempotency_key: formKeysOf(otherTab).at(-1)! })).status).toBe(303);
    const notes = await app.get(path);
    expect(notes.text).toContain('First note');
    expect(notes.text).toContain('Second note');
  });

  it('renders again when the profile or the settings change', async () => {
    const app = await signInToApp(t.baseUrl, t.ownerKey);
    const a = await app.get('/app/inbox');
    secondsLater();
    const renamed = await t.owner('PATCH', '/v1/owner/profile', { body: { profile: { name: 'Salão Novo Nome' } } });
    expect(renamed.status).toBe(200);
    const b = await app.get('/app/inbox');
    expect(b.text).toContain('Salão Novo Nome');
    expect(sinceOf(b)).not.toBe(sinceOf(a));

    secondsLater();
    const kept = await app.get('/app/inbox');
    expect(sinceOf(kept)).toBe(sinceOf(b));
    const settings = await t.owner('PUT', '/v1/owner/settings', { body: { settings: { booking: { autoCompleteHours: 2 } } } });
    expect(settings.status).toBe(200);
    secondsLater();
    const c = await app.get('/app/inbox');
    expect(sinceOf(c)).not.toBe(sinceOf(b));

    // The business's languages are the profile's: English first, and the page speaks English.
    expect(c.text).toMatch(/<html lang="pt"/);
    expect((await t.owner('PATCH', '/v1/owner/profile', { body: { profile: { languages: ['en', 'pt-PT'] } } })).status).toBe(200);
    expect((await app.get('/app/inbox')).text).toMatch(/<html lang="en"/);
  });

  it('says what the clock says: a time today, a date once the day has turned, with no write in between', async () => {
    const booked = await t.request('POST', '/v1/bookings', { body: { ...haircutAt('2026-11-24T10:00:00Z'), idempotency_key: 'b1' } });
    const app = await signInToApp(t.baseUrl, t.ownerKey);
    const timeOf = (page: AppAnswer) => new RegExp(`data-item="${booked.body.id}"[\\s\\S]*?<time [^>]*>([^<]+)</time>`).exec(page.text)?.[1];
    // Created at 10:00 in Lisbon (UTC in November) today: the time only.
    expect(timeOf(await app.get('/app/inbox'))).toBe('10:00');
    // 23:59:30 the same day: still the time (this request also writes the session's last use).
    t.clock.advance(13 * 3_600_000 + 59 * 60_000 + 30_000);
    const lateEvening = await app.get('/app/inbox');
    expect(timeOf(lateEvening)).toBe('10:00');
    // Forty seconds on, the next day: nothing was written (the session's last use is written at most
    // once a minute), yet the page says the day, not the time.
    t.clock.advance(40_000);
    const nextDay = await app.get('/app/inbox');
    expect(timeOf(nextDay)).not.toBe('10:00');
    expect(timeOf(nextDay)).toMatch(/23/);
    expect(sinceOf(nextDay)).not.toBe(sinceOf(lateEvening));
  });

  it('never serves a kept page to an ended session: signed out, signed out everywhere, a revoked key, a week unused, thirty days seconds after a use', async () => {
    const one = await signInToApp(t.baseUrl, t.ownerKey);
    const two = await signInToApp(t.baseUrl, t.ownerKey);
    for (const app of [one, two]) expect((await app.get('/app/inbox')).status).toBe(200);
    expect((await one.post('/app/sign-out', {})).status).toBe(303);
    const out = await one.get('/app/inbox');
    expect(out.status).toBe(303);
    expect(out.location).toMatch(/^\/app\/sign-in\?next=/);
    expect(out.text).not.toContain(one.csrf);
    expect((await two.get('/app/inbox')).status).toBe(200);
    expect((await two.post('/app/sign-out-everywhere', {})).status).toBe(303);
    expect((await two.get('/app/inbox')).status).toBe(303);

    const spare = await createOwnerKey(t.inbox.store, 'spare owner key', t.clock.now());
    const three = await signInToApp(t.baseUrl, spare.value);
    expect((await three.get('/app/inbox')).status).toBe(200);
    await t.inbox.store.apiKeys.revoke(spare.id, t.clock.now());
    expect((await three.get('/app/inbox')).status).toBe(303);

    const four = await signInToApp(t.baseUrl, t.ownerKey);
    expect((await four.get('/app/inbox')).status).toBe(200);
    t.clock.advance(7 * 86_400_000 + 1);
    expect((await four.get('/app/inbox')).status).toBe(303);

    // Thirty days after sign-in, even seconds after a use: the session's end is checked on every request.
    const five = await signInToApp(t.baseUrl, t.ownerKey);
    for (let day = 0; day < 4; day++) {
      t.clock.advance(6 * 86_400_000);
      expect((await five.get('/app/inbox')).status).toBe(200);
    }
    t.clock.advance(6 * 86_400_000 - 30_000);
    for (let i = 0; i < 3; i++) expect((await five.get('/app/inbox')).status).toBe(200);
    t.clock.advance(40_000);
    expect((await five.get('/app/inbox')).status).toBe(303);
  });

  // Another process on the same SQLite file (the stamps read its commits through PRAGMA data_version).
  it.skipIf(onPostgres)('shows what another process wrote, and ends a session whose key another process revoked', async () => {
    const spare = await createOwnerKey(t.inbox.store, 'spare owner key', t.clock.now());
    const app = await signInToApp(t.baseUrl, spare.value);
    const first = await app.get('/app/inbox');
    expect(first.status).toBe(200);
    secondsLater();
    expect(sinceOf(await app.get('/app/inbox'))).toBe(sinceOf(first));
    const other = openSqliteFile(join(t.dataDir, 'inbox.sqlite'));
    try {
      other.pragma('busy_timeout = 5000');
      other.prepare("UPDATE business SET document = json_set(document, '$.name', 'Renamed Elsewhere')").run();
      secondsLater();
      expect((await app.get('/app/inbox')).text).toContain('Renamed Elsewhere');
      other.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ?').run(t.clock.now(), spare.id);
    } finally {
      other.close();
    }
    secondsLater();
    expect((await app.get('/app/inbox')).status).toBe(303);
  });

  it('gives each session its own page: its own CSRF token, never another session\'s, and every header of a rendered page', async () => {
    const booked = await t.request('POST', '/v1/bookings', { body: { ...haircutAt('2026-11-24T10:00:00Z'), idempotency_key: 'b1' } });
    const one = await signInToApp(t.baseUrl, t.ownerKey);
    const two = await signInToApp(t.baseUrl, t.ownerKey);
    expect(one.csrf).not.toBe(two.csrf);
    for (const path of ['/app/inbox', `/app/items/${booked.body.id}`]) {
      for (let round = 0; round < 2; round++) {
        const [a, b] = [await one.get(path), await two.get(path)];
        expect(csrfOf(a)).toEqual([one.csrf]);
        expect(csrfOf(b)).toEqual([two.csrf]);
        expect(a.text).not.toContain(two.csrf);
        expect(b.text).not.toContain(one.csrf);
        for (const page of [a, b]) {
          expect(page.headers.get('cache-control')).toBe('private, no-store');
          expect(page.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
          expect(page.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
          expect(page.headers.get('x-frame-options')).toBe('DENY');
          expect(page.headers.get('x-content-type-options')).toBe('nosniff');
          expect(page.headers.get('content-type')).toMatch(/^text\/html/);
        }
        secondsLater();
      }
    }
    // A CSRF token of one session's page does not carry a write of the other.
    const refused = await two.post(`/app/items/${booked.body.id}/flags`, { needsHuman: '1', idempotency_key: 'f1' }, { csrf: one.csrf });
    expect(refused.status).toBe(403);
  });

  it('keeps a page per language, and remembers a language asked for on a kept page too', async () => {
    const app = await signInToApp(t.baseUrl, t.ownerKey);
    const pt = await app.get('/app/inbox');
    expect(pt.text).toMatch(/<html lang="pt"/);
    const en = await app.get('/app/inbox?lang=en');
    expect(en.text).toMatch(/<html lang="en"/);
    expect(setCookies(en).get('svc_lang')).toBe('en');
    secondsLater();
    const enAgain = await app.get('/app/inbox?lang=en');
    expect(sinceOf(enAgain)).toBe(sinceOf(en));
    expect(setCookies(enAgain).get('svc_lang')).toBe('en');
    // The remembered choice: the same address, another page.
    const remembered = await app.get('/app/inbox', { cookie: `${app.cookie}; svc_lang=en` });
    expect(remembered.text).toMatch(/<html lang="en"/);
    expect((await app.get('/app/inbox')).text).toMatch(/<html lang="pt"/);
  });

  it('sends a kept item page to a browser in gzip made anew with fresh keys, and to any other client as it asks', async () => {
    const booked = await t.request('POST', '/v1/bookings', { body: { ...haircutAt('2026-11-24T10:00:00Z'), idempotency_key: 'b1' } });
    const app = await signInToApp(t.baseUrl, t.ownerKey);
    const path = `/app/items/${booked.body.id}`;
    /** The bytes as sent (fetch would decode them), and the page they decode to. */
    const raw = (acceptEncoding: string | null) =>
      new Promise<{ coding: string | undefined; vary: string; bytes: Buffer; page: AppAnswer }>((resolve, reject) => {
        const headers: Record<string, string> = { cookie: app.cookie };
        if (acceptEncoding !== null) headers['accept-encoding'] = acceptEncoding;
        httpRequest(`${t.baseUrl}${path}`, { headers }, (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            const bytes = Buffer.concat(chunks);
            const coding = response.headers['content-encoding'];
            const text = (coding === 'gzip' ? gunzipSync(bytes) : coding === 'br' ? brotliDecompressSync(bytes) : bytes).toString('utf8');
            const answerHeaders = new Headers();
            for (const [name, value] of Object.entries(response.headers)) if (typeof value === 'string') answerHeaders.set(name, value);
            resolve({ coding, vary: String(response.headers.vary ?? ''), bytes, page: { status: response.statusCode ?? 0, location: null, text, headers: answerHeaders } });
          });
        })
          .on('error', reject)
          .end();
      });

    const rendered = await raw(null);
    expect(rendered.coding).toBeUndefined();
    secondsLater();
    const browser = 'gzip, deflate, br, zstd';
    const [one, two] = [await raw(browser), await raw(browser)];
    for (const served of [one, two]) {
      expect(served.page.status).toBe(200);
      // Kept, not rendered again; in gzip although br is preferred: gzip is what can be made anew for each serving.
      expect(sinceOf(served.page)).toBe(sinceOf(rendered.page));
      expect(served.coding).toBe('gzip');
      expect(served.vary.toLowerCase()).toContain('accept-encoding');
      expect(served.bytes.length).toBeLessThan(Buffer.byteLength(rendered.page.text) / 2);
      expect(Number(served.page.headers.get('content-length'))).toBe(served.bytes.length);
      expect(served.page.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
      expect(served.page.headers.get('x-frame-options')).toBe('DENY');
      expect(served.page.headers.get('cache-control')).toBe('private, no-store');
      expect(withoutFormKeys(served.page)).toBe(withoutFormKeys(rendered.page));
      expect(csrfOf(served.page)).toEqual([app.csrf]);
    }
    const keys = [rendered, one, two].map((served) => formKeysOf(served.page));
    expect(keys[1]!.length).toBeGreaterThan(3);
    expect(new Set(keys.flat()).size).toBe(keys.flat().length);
    for (const key of keys[1]!) expect(key).toMatch(/^app-[A-Za-z0-9_-]{16}$/);

    // The confirm button of the gzip page confirms, with the key it carries.
    const confirmKey = /name="idempotency_key" value="([^"]+)"><input type="hidden" name="event" value="confirm">/.exec(one.page.text)?.[1];
    expect(confirmKey).toMatch(/^app-/);
    expect((await app.post(`${path}/move`, { event: 'confirm', expected_version: '1', idempotency_key: confirmKey! })).status).toBe(303);
    expect((await t.request('GET', `/v1/owner/items/${booked.body.id}`, { headers: { authorization: `Bearer ${t.ownerKey}` } })).body.state).toBe('confirmed');
    secondsLater();

    // Browsers asking at once for the page rendered anew share one compression of its parts, each with keys of its own.
    const together = await Promise.all(Array.from({ length: 5 }, () => raw(browser)));
    expect(together.map((served) => served.coding)).toEqual(Array(5).fill('gzip'));
    expect(new Set(together.map((served) => sinceOf(served.page))).size).toBe(1);
    expect(sinceOf(together[0]!.page)).not.toBe(sinceOf(one.page));
    const togetherKeys = together.flatMap((served) => formKeysOf(served.page));
    expect(new Set(togetherKeys).size).toBe(togetherKeys.length);

    // Anyone else gets what they ask for: brotli only, gzip refused, nothing said.
    const brOnly = await raw('br');
    expect(brOnly.coding).toBe('br');
    expect(brOnly.page.text).not.toContain('name="event" value="confirm"');
    expect(brOnly.page.text).toContain('name="event" value="cancel_by_business"');
    expect((await raw('gzip;q=0, br;q=1')).coding).toBe('br');
    expect((await raw('identity')).coding).toBeUndefined();
    expect((await raw('x-gzip')).coding).toBe('gzip');
  });
});

