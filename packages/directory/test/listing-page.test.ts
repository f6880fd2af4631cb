/**
 * Pre-rendered search-result pages (domain/listings/listing-page.ts): the assembled text must be
 * byte for byte the plain view (JSON.stringify(listingView(...))) for every kind of listing and
 * moment, pages must follow every write, and a missing or stale page must never be served.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRows } from '../../../test-support/test-database.js';
import { listingPageRenderer } from '../src/app.js';
import { etagOf } from '../src/doors/rest/etag.js';
import { generateListings } from '../src/demo/listing-generator.js';
import { taxonomyCategoryPicker } from '../src/demo/seed-directory.js';
import type { ListingRecord } from '../src/domain/listings/listing.js';
import { JsonBytes, PAGE_FORMAT, StoredListingPage, assembleListingBytes, type ListingPageInputs } from '../src/domain/listings/listing-page.js';
import { listingView, type MomentViewOptions } from '../src/domain/listings/listing-view.js';
import { isListed } from '../src/domain/listings/regulated.js';
import type { PlacementFacts } from '../src/domain/ranking/hourly-order.js';
import { rulesByVersion } from '../src/domain/ranking/rules.js';
import { isOpenAt } from '../src/domain/search/hours.js';
import { renderedAnswer } from '../src/domain/search/rendered-answer.js';
import { categoryPath } from '../src/domain/vocab/vocabulary-hooks.js';
import { AFTER_RULES_7, DAY, EVERY_DAY, HOUR, MONDAY, door, hours, listing, member, type Fixture } from './support/fixtures.js';
import { HARNESS_BASE_URL as BASE_URL, TestClock, startDirectory, type TestDirectory } from './support/harness.js';

/** Hand-made listings reaching every branch of the view. */
function handMade(): Fixture[] {
  return [
    member('answering.example', { name: 'Padaria "Aurora" \u0001 ☕', city: 'Lisboa', country: 'PT', geo: { lat: 38.7223, lng: -9.1393 }, address: { street: 'Rua A 1', locality: 'Lisboa', postalCode: '1100-001', country: 'PT' } }),
    member('silent.example', { lastPingAt: MONDAY - 3 * DAY, receipts: { issued: 4, acknowledged: 3, customers: 2, lastAt: MONDAY - DAY } }),
    member('never-pinged.example', { lastPingAt: null }),
    member('unverified.example', { lastPingAt: null, verifiedAt: null }),
    listing('registered.example', {
      source: 'registered',
      claimed: true,
      description: 'Line\u2028separator and </script>',
      address: { street: 'Main St 5', locality: 'Porto', postalCode: '4000-001', country: 'PT' },
      geo: { lat: 41.14961, lng: -8.61099 },
      doors: [door('mcp', 'bookable', ['ask', 'book'], { protocol: 'mcp/2025-06-18', checkedAt: '2026-11-20T10:00:00.000Z' }), door('platform:shopify', 'payable', ['order', 'pay'], { status: 'failing' })],
      payments: ['card', 'mbway'],
      attributes: { wheelchair: { v: true, src: 'declared' }, not_a_known_key: { v: 'x', src: 'seen' } },
      hours: hours('Europe/Lisbon', { [EVERY_DAY]: [['09:00', '13:00'], ['22:00', '02:00']] }, [
        { from: '2026-11-01', to: '2026-11-02' },
        { from: '2026-12-24', to: '2026-12-26' },
      ]),
    }),
    listing('found.example', {
      geo: { lat: -33.868_82, lng: 151.209_29 },
      address: { street: 'Hidden 9', locality: 'Sydney', postalCode: '2000', country: 'AU' },
      place: { kind: ['service_area', 'online'], locality: 'Sydney', region: 'NSW', country: 'AU', serviceArea: { radiusKm: 25, countries: ['AU', 'NZ'] }, shipsTo: ['AU'] },
      hours: hours('Australia/Sydney', { 'mon-fri': [['08:00', '17:00']] }),
      facts: [{ field: 'phone', v: '+61 2 0000 0000', src: 'seen', at: '2026-11-01T00:00:00.000Z' }],
      tags: ['flat white', 'Café'],
    }),
    listing('software.example', {
      kind: 'software_and_ai',
      categories: ['software-ai'],
      software: { version: '2.1.0', runtime: 'python' },
      protocols: { mcp: 'https://software.example/mcp' },
      hours: hours('Not/AZone', { [EVERY_DAY]: [['00:00', '24:00']] }),
    }),
    // Scored by a nightly snapshot: its reputation is part of its page, under the rules it was computed by.
    member('scored.example', {
      receipts: { issued: 40, acknowledged: 31, customers: 12, lastAt: MONDAY - 2 * HOUR },
      outcomes: { 'booking.completed': 18, 'booking.cancelled_by_business': 1 },
      reputation: { score: 0.832284, ranked: true, tier: 'trusted', kept: 18, broken: 1, customers: 12, verifiedShare: 0.7125, rules: 6, asOf: MONDAY - 10 * HOUR - 15 * 60_000 },
    }),
  ];
}

/** A listing's view as assembled from its page for an answer, as text. */
function assembleListingView(fixed: string, inputsText: string, moment: MomentViewOptions): string {
  const out = new JsonBytes();
  const fixedBytes = Buffer.from(fixed, 'utf8');
  assembleListingBytes(fixedBytes, new StoredListingPage(inputsText, fixedBytes), moment, out);
  return out.toBuffer().toString('utf8');
}

const roundTrip = (l: Fixture, seq: number): ListingRecord => ({ ...(JSON.parse(JSON.stringify(l)) as Fixture), seq });

/** What an hour's order may have placed a listing by. */
function placedBy(l: ListingRecord, answering: boolean, shuffle: string): PlacementFacts {
  const member = l.source === 'member';
  return { member, answering: member && answering, reach: member && answering ? 1 : 2, standing: { ranked: false, scoreInt: 0 }, shuffle };
}

function moments(l: ListingRecord, seq: number): MomentViewOptions[] {
  const at = [MONDAY, AFTER_RULES_7 + 7 * HOUR, MONDAY + 40 * DAY + 11 * HOUR];
  return at.flatMap((nowMs, i) => {
    const rules = rulesByVersion(i === 1 ? 7 : 6)!;
    const base = {
      nowMs,
      answeringHours: rules.numbers.answeringHours,
      rulesVersion: rules.version,
      rulesUrl: `http://127.0.0.1/v1/ranking?version=${rules.version}`,
      openNow: isOpenAt(l.hours, nowMs),
    };
    return [
      // placed as answering and as not answering at :00, so both the why of a member unchanged since and of one changed are written
      { ...base, placement: { rankPos: seq, shuffle: '0123456789abcdef', facts: placedBy(l, true, '0123456789abcdef') } },
      { ...base, placement: { rankPos: seq + 1, shuffle: 'fedcba9876543210', facts: placedBy(l, false, 'fedcba9876543210') }, distanceKm: seq / 7 },
      { ...base, distanceKm: 0 },
    ];
  });
}

describe('a pre-rendered page', () => {
  const renderer = listingPageRenderer(BASE_URL);
  const generated = [...generateListings({ count: 1_000, seed: 917, nowMs: MONDAY, placeCategoryOf: taxonomyCategoryPicker() })];
  const all = [...handMade(), ...generated].map((l, i) => roundTrip(l, i + 1));

  it('assembles byte for byte the plain view, for every kind of listing and moment', () => {
    const sources = new Set(all.map((l) => l.source));
    expect([...sources].sort()).toEqual(['found', 'member', 'registered']);
    let compared = 0;
    for (const l of all) {
      const page = renderer.render(l);
      for (const moment of moments(l, l.seq)) {
        const plain = JSON.stringify(listingView(l, { categoryPath, detail: false, baseUrl: BASE_URL, ...moment }));
        expect(assembleListingView(page.fixed, page.inputs, moment)).toBe(plain);
        compared++;
      }
    }
    expect(compared).toBe(all.length * 9);
  });

  it('keeps the rank inputs the order reads', () => {
    const inputs = JSON.parse(renderer.render(all[4]!).inputs) as ListingPageInputs;
    expect(inputs).toMatchObject({ id: all[4]!.id, source: 'registered', level: 3, agentDoor: true });
    expect(JSON.parse(renderer.render(all[0]!).inputs)).toMatchObject({ source: 'member', level: 2, agentDoor: false });
  });

  it(`renders exactly as format ${PAGE_FORMAT} did (a change of output needs a new PAGE_FORMAT)`, () => {
    const hash = createHash('sha256');
    for (const l of handMade().map((f, i) => roundTrip(f, i + 1))) {
      const page = renderer.render(l);
      hash.update(page.inputs).update('\n').update(page.fixed).update('\n');
    }
    // When the view's fixed sections change on purpose: bump PAGE_FORMAT and put the new fingerprint here.
    expect({ format: PAGE_FORMAT, fingerprint: hash.digest('hex').slice(0, 16) }).toEqual({ format: 8, fingerprint: 'ea36995b4c81ae1d' });
  });

  it('is read back as an answer whose JSON is the assembled text', () => {
    const json = '{"businesses":[{"domain":"a.example","name":"A"}],"next_cursor":"abc"}';
    const answer = renderedAnswer(Buffer.from(json, 'utf8'));
    expect(JSON.stringify(answer)).toBe(json);
    expect(answer.businesses[0]).toEqual({ domain: 'a.example', name: 'A' });
    expect(answer.next_cursor).toBe('abc');
  });
});

describe('an answer written as bytes', () => {
  it('encodes text and copies stored bytes exactly as UTF-8 of the whole, past its first capacity', () => {
    const pieces: (string | Buffer)[] = [];
    const samples = ['{', '"open_now":true', 'Café ☕', '😀 pair', 'x'.repeat(64), 'é'.repeat(65), '\u2028 line', '"a":"b"'];
    for (let i = 0; i < 400; i++) {
      const text = samples[i % samples.length] as string;
      pieces.push(i % 3 === 0 ? Buffer.from(`[${text}]`, 'utf8') : text);
    }
    const write = (capacity?: number) => {
      const out = new JsonBytes(capacity);
      for (const piece of pieces) {
        if (typeof piece === 'string') out.text(piece);
        else out.bytes(Buffer.concat([Buffer.from('zz'), piece, Buffer.from('zz')]), 2, piece.length + 2);
      }
      return out;
    };
    const expected = Buffer.from(pieces.map((p) => (typeof p === 'string' ? p : p.toString('utf8'))).join(''), 'utf8');
    const answer = write(16).toBuffer();
    expect(answer.toString('utf8')).toBe(expected.toString('utf8'));
    expect(answer.equals(expected)).toBe(true);
    // The copy moved to another thread: the same bytes, in a buffer of exactly their size.
    const owned = write().toOwnedBytes();
    expect(owned.buffer.byteLength).toBe(owned.length);
    expect(Buffer.from(owned).equals(expected)).toBe(true);
  });

  it('keeps every answer intact while the next ones are written in the buffer it was written in', () => {
    const answers: Buffer[] = [];
    for (let i = 0; i < 5; i++) {
      const out = new JsonBytes();
      out.text(`{"answer":${i},"text":"${String(i).repeat(3_000 * (5 - i))}"}`);
      answers.push(out.toBuffer());
    }
    answers.forEach((answer, i) => expect(JSON.parse(answer.toString('utf8'))).toEqual({ answer: i, text: String(i).repeat(3_000 * (5 - i)) }));
    // Two answers written at once each get a buffer of their own.
    const first = new JsonBytes();
    const second = new JsonBytes();
    first.text('{"first":true}');
    second.text('{"second":true}');
    expect(first.toBuffer().toString('utf8')).toBe('{"first":true}');
    expect(second.toBuffer().toString('utf8')).toBe('{"second":true}');
  });

  it('refuses to be read or written once its bytes are handed over', () => {
    const out = new JsonBytes();
    out.text('{}');
    expect(out.toBuffer().toString('utf8')).toBe('{}');
    expect(() => out.toBuffer()).toThrow(/already finished/);
    expect(() => out.toOwnedBytes()).toThrow(/already finished/);
    expect(() => out.text('more')).toThrow(/already finished/);
    // The next answer is unharmed.
    const next = new JsonBytes();
    next.text('{"next":1}');
    expect(next.toBuffer().toString('utf8')).toBe('{"next":1}');
  });
});

describe('pages over HTTP', () => {
  let t: TestDirectory;
  const clock = new TestClock(MONDAY);
  const generated = [...generateListings({ count: 300, seed: 4242, nowMs: MONDAY, placeCategoryOf: taxonomyCategoryPicker() })];
  const listings = [...handMade(), ...generated];
  const listed = listings.filter(isListed);

  beforeAll(async () => {
    t = await startDirectory({ listings, clock });
    await t.directory.pagesReady;
    await t.directory.search.hour();
  });
  afterAll(async () => {
    await t.close();
  });

  const searches = [
    '/v1/businesses?limit=100',
    '/v1/businesses?limit=100&source=member,registered',
    '/v1/businesses?q=cafe&limit=50',
    '/v1/businesses?open_now=true&limit=100',
    '/v1/businesses?near=38.7223,-9.1393&radius_km=1000&limit=100',
    '/v1/businesses?category=software-ai',
  ];

  async function bodies(paths: string[]): Promise<string[]> {
    const out: string[] = [];
    for (const path of paths) {
      // Identity coding: the tag names these very bytes (a compressed answer's tag names its coding).
      const response = await fetch(`${t.baseUrl}${path}`, { headers: { 'accept-encoding': 'identity' } });
      expect(response.status, path).toBe(200);
      const text = await response.text();
      expect(response.headers.get('etag')).toBe(etagOf(Buffer.from(text, 'utf8')));
      out.push(text);
    }
    return out;
  }

  // On either engine's database (the PostgreSQL run gives the folder its own).
  const pageCount = async () => Number((await rawRows('directory', t.dataDir, 'SELECT count(*) AS n FROM listing_pages WHERE version = ?', [listingPageRenderer(BASE_URL).version]))[0]!.n);

  it('gives every listing a current page when it is written', async () => {
    expect(await pageCount()).toBe(listings.length);
  });

  // Every page rendered again twice, in batches of seven: a transaction each, round trips on PostgreSQL.
  it('answers the same bytes from pages as from documents, and renders missing and stale pages again', { timeout: 120_000 }, async () => {
    for (const at of [MONDAY, AFTER_RULES_7 + 3 * HOUR]) {
      clock.nowMs = at;
      const nearest = at >= AFTER_RULES_7 ? ['/v1/businesses?near=41.15,-8.61&radius_km=1000&order=nearest&limit=30'] : [];
      const paths = [...searches, ...nearest];
      const fromPages = await bodies(paths);
      expect(fromPages.some((b) => b.includes('"distance_km"'))).toBe(true);
      // Without current pages every listing is rendered from its document by listingView.
      await rawRows('directory', t.dataDir, "UPDATE listing_pages SET version = 'older', fixed = 'not served' WHERE seq % 2 = 0");
      await rawRows('directory', t.dataDir, 'DELETE FROM listing_pages WHERE seq % 2 = 1');
      expect(await pageCount()).toBe(0);
      expect(await bodies(paths)).toEqual(fromPages);
      // Pages are rendered again for every listed business (not for a non-member in a regulated category).
      // Seven pages a transaction, and on the second round thirteen seqs a look (ranges with and without stale pages).
      expect(await t.directory.store.listings.refreshPages(at === MONDAY ? { batchSize: 7 } : { batchSize: 7, span: 13 })).toBe(listed.length);
      expect(await pageCount()).toBe(listed.length);
      expect(await bodies(paths)).toEqual(fromPages);
    }
    clock.nowMs = MONDAY;
  });

  it('follows a ping and a new version of a listing', async () => {
    const domain = 'silent.example';
    const find = async () => {
      const body = JSON.parse((await bodies(['/v1/businesses?source=member&limit=100']))[0]!) as { businesses: Record<string, unknown>[] };
      return body.businesses.find((b) => b.domain === domain)!;
    };
    expect(await find()).toMatchObject({ answering: false, last_ping_at: new Date(MONDAY - 3 * DAY).toISOString() });
    await t.directory.store.listings.recordPing(domain, MONDAY - 60_000, { version: '0.5.0', runtime: 'node' });
    expect(await find()).toMatchObject({ answering: true, last_ping_at: new Date(MONDAY - 60_000).toISOString(), software: { version: '0.5.0', runtime: 'node' } });
    const { seq: _seq, ...record } = (await t.directory.store.listings.byDomain(domain))!;
    await t.directory.store.listings.upsert({ ...record, name: 'Silent No More', updatedAt: MONDAY });
    expect(await find()).toMatchObject({ name: 'Silent No More', answering: true });
    expect(await pageCount()).toBe(listed.length);
  });
});
