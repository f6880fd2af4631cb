/**
 * The owner app's kept pages replayed in front of the framework (answer-replay.ts "offerPrivately",
 * docs/web.md "Owner pages replayed"): a page asked for again with the very same cookies is written
 * from the HTTP server's request event, with fresh form keys and every header of a rendered page,
 * while the session is open and the page would be served as kept. Any other cookie, an ended
 * session, a change, the minute turning, or anything else in the request a hook acts on goes
 * through the framework as before. On PostgreSQL a stamp is a promise, so nothing is replayed there.
 */
import { answerReplayOf } from '@svc/shared';
import { gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keptHeaders, rawRequest, type RawAnswer } from '../../../test-support/raw-http.js';
import { onPostgres } from '../../../test-support/test-database.js';
import { createOwnerKey } from '../src/domain/access/api-keys.js';
import { haircutAt, startInbox, type TestInbox } from './support/harness.js';
import { signInToApp, type OwnerAppSession } from './support/owner-app.js';

const BROWSER = 'gzip, deflate, br, zstd';
const formKeysOf = (text: string): string[] => [...text.matchAll(/name="idempotency_key" value="([^"]+)"/g)].map((m) => m[1]!);
const withoutFormKeys = (text: string): string => text.replace(/name="idempotency_key" value="[^"]+"/g, 'name="idempotency_key" value=""');
const textOf = (answer: RawAnswer): string => (answer.headers['content-encoding'] === 'gzip' ? gunzipSync(answer.body) : answer.body).toString('utf8');

describe.skipIf(onPostgres)('owner pages replayed in front of the framework', () => {
  let t: TestInbox;
  let itemPath: string;
  beforeEach(async () => {
    t = await startInbox();
    const booked = await t.request('POST', '/v1/bookings', { body: { ...haircutAt('2026-11-24T10:00:00Z'), idempotency_key: 'b1' } });
    itemPath = `/app/items/${booked.body.id}`;
  });
  afterEach(async () => {
    await t.close();
  });

  const replayed = () => answerReplayOf(t.inbox.http)!.replayed;
  const get = (app: OwnerAppSession | string, path: string, headers: Record<string, string> = {}) =>
    rawRequest(t.baseUrl, 'GET', path, { cookie: typeof app === 'string' ? app : app.cookie, ...headers });
  /** Asks twice: the second time the page is kept and offered, so a third ask may be replayed. */
  const prime = async (app: OwnerAppSession | string, path: string, headers: Record<string, string> = {}) => {
    for (let i = 0; i < 2; i++) expect((await get(app, path, headers)).status).toBe(200);
  };

  it('writes a kept page again to the same cookies, with fresh form keys and every header, as a browser and as a plain client ask', async () => {
    const app = await signInToApp(t.baseUrl, t.ownerKey);
    const askings: Record<string, string>[] = [{ 'accept-encoding': BROWSER }, {}];
    for (const headers of askings) {
      const first = await get(app, itemPath, headers);
      await prime(app, itemPath, headers);
      const before = replayed();
      const [again, more] = [await get(app, itemPath, headers), await get(app, itemPath, headers)];
      expect(replayed()).toBe(before + 2);
      for (const served of [again, more]) {
        expect(served.status).toBe(200);
        expect(keptHeaders(served)).toEqual(keptHeaders(first));
        expect(served.body.length).toBe(Number(served.headers['content-length']));
        expect(withoutFormKeys(textOf(served))).toBe(withoutFormKeys(textOf(first)));
      }
      expect(first.headers['content-encoding']).toBe('accept-encoding' in headers ? 'gzip' : undefined);
      expect(String(first.headers['content-security-policy'])).toMatch(/frame-ancestors 'none'/);
      expect(first.headers['x-frame-options']).toBe('DENY');
      expect(first.headers['cache-control']).toBe('private, no-store');
      const keys = [first, again, more].flatMap((served) => formKeysOf(textOf(served)));
      expect(keys.length).toBeGreaterThan(6);
      expect(new Set(keys).size).toBe(keys.length);
    }
    // A key from a replayed page carries its move.
    const page = textOf(await get(app, itemPath, { 'accept-encoding': BROWSER }));
    const confirmKey = /name="idempotency_key" value="([^"]+)"><input type="hidden" name="event" value="confirm">/.exec(page)?.[1];
    expect((await app.post(`${itemPath}/move`, { event: 'confirm', expected_version: '1', idempotency_key: confirmKey! })).status).toBe(303);
    expect(textOf(await get(app, itemPath))).not.toContain('name="event" value="confirm"');
  });

  it('keeps and replays the setup screens drawn from what owner pages show, until a change made through any door', async () => {
    const app = await signInToApp(t.baseUrl, t.ownerKey);
    for (const path of ['/app/setup', '/app/setup/profile', '/app/setup/services', '/app/setup/products', '/app/setup/hours', '/app/setup/settings', '/app/setup/rules']) {
      await prime(app, path, { 'accept-encoding': BROWSER });
      const before = replayed();
      const again = await get(app, path, { 'accept-encoding': BROWSER });
      expect(again.status).toBe(200);
      expect(replayed(), path).toBe(before + 1);
    }
    // A service and a closure written through the owner's REST show on the very next request.
    const service = { id: 'beard-trim', name: 'Beard trim', durationMinutes: 20, priceModel: 'fixed', price: 1200, slotStepMinutes: 10 };
    expect((await t.owner('POST', '/v1/owner/services', { body: { service } })).status).toBe(200);
    let before = replayed();
    expect(textOf(await get(app, '/app/setup/services', { 'accept-encoding': BROWSER }))).toContain('Beard trim');
    expect(replayed()).toBe(before);
    expect((await t.owner('PUT', '/v1/owner/availability/closures', { body: { closures: [{ startDate: '2026-12-24', endDate: '2026-12-26', reason: 'Christmas' }] } })).status).toBe(200);
    before = replayed();
    expect(textOf(await get(app, '/app/setup/hours', { 'accept-encoding': BROWSER }))).toContain('Christmas');
    expect(replayed()).toBe(before);
  });

  it('keeps and replays the setup screens that show bookkeeping too, until any table is written', async () => {
    const app = await signInToApp(t.baseUrl, t.ownerKey);
    for (const path of ['/app/setup/keys', '/app/setup/webhooks', '/app/setup/ai-apps', '/app/setup/networks', '/app/setup/feeds']) {
      await prime(app, path, { 'accept-encoding': BROWSER });
      const before = replayed();
      expect((await get(app, path, { 'accept-encoding': BROWSER })).status).toBe(200);
      expect(replayed(), path).toBe(before + 1);
    }
    // A key made through the owner's REST: on the keys screen at the very next request.
    const made = await t.owner('POST', '/v1/owner/api-keys', { body: { name: 'Calendar sync', preset: 'read_only' } });
    expect(made.status).toBe(201);
    let before = replayed();
    const unused = textOf(await get(app, '/app/setup/keys', { 'accept-encoding': BROWSER }));
    expect(unused).toContain('Calendar sync');
    expect(replayed()).toBe(before);
    await prime(app, '/app/setup/keys', { 'accept-encoding': BROWSER });
    // Its first use writes only its last use, a table the inbox and item pages do not show: drawn anew all the same.
    expect((await t.request('GET', '/v1/owner/items', { headers: { authorization: `Bearer ${made.body.key}` } })).status).toBe(200);
    before = replayed();
    const used = textOf(await get(app, '/app/setup/keys', { 'accept-encoding': BROWSER }));
    expect(replayed()).toBe(before);
    expect(withoutFormKeys(used)).not.toBe(withoutFormKeys(unused));
  });

  it('never writes one session\'s page to other cookies, nor to a request carrying anything a hook acts on', async () => {
    const one = await signInToApp(t.baseUrl, t.ownerKey);
    const two = await signInToApp(t.baseUrl, t.ownerKey);
    await prime(one, itemPath);
    const before = replayed();
    const theirs = await get(two, itemPath);
    expect(textOf(theirs)).toContain(two.csrf);
    expect(textOf(theirs)).not.toContain(one.csrf);
    // The same session with one more cookie, or the same cookies with credentials, a condition, an origin: the framework.
    expect(textOf(await get(`${one.cookie}; other=1`, itemPath))).toContain(one.csrf);
    const extras: Record<string, string>[] = [{ authorization: `Bearer ${t.ownerKey}` }, { 'if-none-match': '"x"' }, { origin: 'https://elsewhere.example' }, { range: 'bytes=0-10' }];
    for (const extra of extras) {
      const answer = await get(one, itemPath, extra);
      expect(answer.status).not.toBe(500);
    }
    // No cookie at all: to sign in.
    expect((await rawRequest(t.baseUrl, 'GET', itemPath)).status).toBe(303);
    expect(replayed()).toBe(before);
    expect((await get(one, itemPath)).status).toBe(200);
    expect(replayed()).toBe(before + 1);
  });

  it('stops at once when the session ends: signed out, everywhere, its key revoked, a week unused, thirty days', async () => {
    const ended = async (app: OwnerAppSession, end: () => Promise<void>) => {
      await prime(app, itemPath);
      const before = replayed();
      expect((await get(app, itemPath)).status).toBe(200);
      expect(replayed()).toBe(before + 1);
      await end();
      const after = await get(app, itemPath);
      expect(after.status).toBe(303);
      expect(String(after.headers.location)).toMatch(/^\/app\/sign-in/);
      expect(after.body.toString()).not.toContain(app.csrf);
      expect(replayed()).toBe(before + 1);
    };
    const one = await signInToApp(t.baseUrl, t.ownerKey);
    await ended(one, async () => {
      expect((await one.post('/app/sign-out', {})).status).toBe(303);
    });
    const [two, three] = [await signInToApp(t.baseUrl, t.ownerKey), await signInToApp(t.baseUrl, t.ownerKey)];
    await prime(three, itemPath);
    await ended(two, async () => {
      expect((await two.post('/app/sign-out-everywhere', {})).status).toBe(303);
    });
    expect((await get(three, itemPath)).status).toBe(303);

    const spare = await createOwnerKey(t.inbox.store, 'spare owner key', t.clock.now());
    const four = await signInToApp(t.baseUrl, spare.value);
    await ended(four, async () => {
      await t.inbox.store.apiKeys.revoke(spare.id, t.clock.now());
    });

    const five = await signInToApp(t.baseUrl, t.ownerKey);
    await ended(five, async () => {
      t.clock.advance(7 * 86_400_000 + 1);
    });

    // Thirty days after sign-in, seconds after a replayed serving and within the same minute: no
    // write and no turn of the minute says so, only the session's own end, checked at each replay.
    t.clock.advance(((90_000 - (t.clock.now() % 60_000)) % 60_000) || 60_000);
    expect(t.clock.now() % 60_000).toBe(30_000);
    const six = await signInToApp(t.baseUrl, t.ownerKey);
    for (let day = 0; day < 4; day++) {
      t.clock.advance(6 * 86_400_000);
      expect((await get(six, itemPath)).status).toBe(200);
    }
    t.clock.advance(6 * 86_400_000 - 20_000);
    await ended(six, async () => {
      t.clock.advance(25_000);
    });
  });

  it('goes through the framework once the inbox changes, the minute turns or the session is due its touch', async () => {
    const app = await signInToApp(t.baseUrl, t.ownerKey);
    await prime(app, itemPath);
    let before = replayed();
    // A booking arrives: the inbox changed, so the page is rendered again.
    await t.request('POST', '/v1/bookings', { body: { ...haircutAt('2026-11-24T12:00:00Z'), idempotency_key: 'b2' } });
    expect((await get(app, itemPath)).status).toBe(200);
    expect(replayed()).toBe(before);

    await prime(app, itemPath);
    before = replayed();
    t.clock.advance(61_000);
    expect((await get(app, itemPath)).status).toBe(200);
    expect(replayed()).toBe(before);
    // Touched and kept again, the page is replayed again.
    await prime(app, itemPath);
    before = replayed();
    expect((await get(app, itemPath)).status).toBe(200);
    expect(replayed()).toBe(before + 1);
  });
});
