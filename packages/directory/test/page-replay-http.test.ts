/**
 * The directory's kept pages replayed in front of the framework (shared answer-replay.ts, docs/web.md
 * "Budgets"): a business page, a check result and its badge asked again get the very answer Fastify
 * gave (headers and bytes), while the view and the result they were drawn from would be handed back
 * unchanged; a listing or check written, the minute the view reads its zone at, or a request carrying
 * a cookie goes through the framework and gets what is true now. On PostgreSQL no revision is kept in
 * memory (another process may write), so nothing is replayed there: the SQLite run tests it.
 */
import { answerReplayOf } from '@svc/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keptHeaders, rawRequest, type RawAnswer } from '../../../test-support/raw-http.js';
import { onPostgres } from '../../../test-support/test-database.js';
import { startLocalWeb, type LocalWeb } from '../src/demo/local-web/local-web-server.js';
import { SAMPLE_SITES } from '../src/demo/local-web/sample-sites.js';
import { EVERY_DAY, hours, member } from './support/fixtures.js';
import { startDirectory, TestClock, type TestDirectory } from './support/harness.js';

const MINUTE = 60_000;
const SHOP = 'corner-shop.example';
const SITE = 'padaria-aurora.test';

let t: TestDirectory;
let web: LocalWeb;

/** A plain GET as a crawler or a link preview sends it (no cookie, no validator). */
const raw = (path: string, headers: Record<string, string> = {}): Promise<RawAnswer> => rawRequest(t.baseUrl, 'GET', path, headers);
const replayed = () => answerReplayOf(t.directory.http)!.replayed;

/** Reads `path` twice: the second is replayed, the same answer as the first. */
async function readTwice(path: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  const first = await raw(path, headers);
  expect(first.status, path).toBe(200);
  const before = replayed();
  const second = await raw(path, headers);
  expect(replayed(), `${path} replayed`).toBe(before + 1);
  expect(keptHeaders(second)).toEqual(keptHeaders(first));
  expect(second.body.equals(first.body)).toBe(true);
  return first;
}

/** Reads `path` once and says it went through the framework. */
async function readThrough(path: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  const before = replayed();
  const answer = await raw(path, headers);
  expect(replayed(), `${path} not replayed`).toBe(before);
  return answer;
}

describe.skipIf(onPostgres)('kept directory pages replayed in front of the framework', () => {
  beforeAll(async () => {
    web = await startLocalWeb({ sites: SAMPLE_SITES.filter((site) => site.host === SITE) });
    // Monday 10:15 in Lisbon (UTC in November): open until 10:30.
    t = await startDirectory({
      clock: new TestClock('2026-11-23T10:15:00Z'),
      answerWorkers: 0,
      checks: { localWeb: web.address, callerChecksPerHour: 100 },
      listings: [member(SHOP, { name: 'Corner Shop', hours: hours('Europe/Lisbon', { [EVERY_DAY]: [['09:00', '10:30'], ['11:00', '18:00']] }), itemTypes: ['booking', 'message'] })],
    });
    await t.directory.search.hour();
    expect((await t.request('POST', '/check', { body: { url: SITE } })).status).toBe(202);
    await t.directory.checkWorker.drain();
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await web?.close();
  });

  it('replay a business page, in each coding, until its listing is written', async () => {
    const page = await readTwice(`/businesses/${SHOP}`);
    expect(page.body.toString()).toContain('Corner Shop');
    const br = await readTwice(`/businesses/${SHOP}`, { 'accept-encoding': 'br' });
    expect(br.headers['content-encoding']).toBe('br');
    await readTwice(`/businesses/${SHOP}?lang=pt`);

    const record = (await t.directory.store.listings.byDomain(SHOP))!;
    const { seq: _seq, ...rest } = record;
    await t.directory.store.listings.upsert({ ...rest, name: 'Corner Shop Renamed', updatedAt: t.clock.now() });
    const renamed = await readThrough(`/businesses/${SHOP}`);
    expect(renamed.body.toString()).toContain('Corner Shop Renamed');
    expect(renamed.headers.etag).not.toBe(page.headers.etag);
    expect((await readTwice(`/businesses/${SHOP}`)).body.equals(renamed.body)).toBe(true);
  });

  it('never replay a business page past the minute its view reads the zone at, nor the hour', async () => {
    const open = await readTwice(`/businesses/${SHOP}`);
    expect(open.body.toString()).toContain('Open now');
    // 10:31: closed since 10:30.
    t.clock.advance(16 * MINUTE);
    const closed = await readThrough(`/businesses/${SHOP}`);
    expect(closed.body.toString()).toContain('Closed now');
    await readTwice(`/businesses/${SHOP}`);
    // 11:01: open again, in a new hour whose order is not prepared yet, then once it is.
    t.clock.advance(30 * MINUTE);
    expect((await readThrough(`/businesses/${SHOP}`)).body.toString()).toContain('Open now');
    await readTwice(`/businesses/${SHOP}`);
    await t.directory.search.hour();
    await readThrough(`/businesses/${SHOP}`);
    await readTwice(`/businesses/${SHOP}`);
  });

  it('replay a check result and its badge until the check is written, and a business page naming it', async () => {
    const result = await readTwice(`/b/${SITE}`);
    const badge = await readTwice(`/b/${SITE}/badge.svg`);
    expect(badge.headers['content-type']).toContain('image/svg+xml');
    const business = await readTwice(`/businesses/${SITE}`);
    expect(business.body.toString()).toContain(`href="/b/${SITE}"`);

    const store = t.directory.store;
    const check = (await store.checks.get(SITE))!;
    await store.checks.put({ ...check, state: 'checking', leaseUntil: t.clock.now() + MINUTE });
    const checking = await readThrough(`/b/${SITE}`);
    expect(checking.body.toString()).toContain('The crawler is reading the site now');
    expect(checking.headers.etag).not.toBe(result.headers.etag);
    await readThrough(`/b/${SITE}/badge.svg`);
    const named = await readThrough(`/businesses/${SITE}`);
    expect(named.body.equals(business.body)).toBe(false);
    await readTwice(`/b/${SITE}`);
    await store.checks.put(check);
  });

  it('send a request carrying a cookie, a validator or an origin through the framework', async () => {
    await readTwice(`/businesses/${SHOP}`);
    const pt = await readThrough(`/businesses/${SHOP}`, { cookie: 'svc_lang=pt' });
    expect(pt.body.toString()).toContain('<html lang="pt"');
    const tagged = await raw(`/businesses/${SHOP}`);
    expect((await readThrough(`/businesses/${SHOP}`, { 'if-none-match': String(tagged.headers.etag) })).status).toBe(304);
    expect((await readThrough(`/businesses/${SHOP}`, { origin: 'https://elsewhere.example' })).status).toBe(200);
  });
});
