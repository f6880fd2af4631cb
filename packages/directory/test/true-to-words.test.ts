/**
 * Search answers true to their own words (issue 20, part A), over REST and the MCP door, which share
 * the operations: every parameter only leaves businesses out, so `q` beside `category` still has to
 * match; the kind of a search and the name rule agree (q=cloud is one kind); and more below.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp } from '../../../test-support/mcp-client.js';
import { rawRows } from '../../../test-support/test-database.js';
import { seedDemoDirectory } from '../src/demo/seed-directory.js';
import { DAY, HOUR, domainsOf, hours, listing, member, MONDAY, type Fixture } from './support/fixtures.js';
import { TestClock, startDirectory, type ApiResponse } from './support/harness.js';

type Params = Record<string, string | number | boolean>;
const MINUTE = 60_000;

function path(params: Params): string {
  return `/v1/businesses?${new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)])).toString()}`;
}

/** A directory with its MCP door open; `search` asks both doors and checks they give the same page. */
async function open(listings: Fixture[], clock = new TestClock(MONDAY), options: { cacheAnswers?: boolean } = {}) {
  const t = await startDirectory({ listings, clock, answerWorkers: 0, ...options });
  await t.directory.search.hour();
  const mcp = await connectMcp(`${t.baseUrl}/mcp`);
  async function search(params: Params): Promise<any[]> {
    const rest = await t.get(path({ limit: 100, ...params }));
    expect(rest.status, `${JSON.stringify(params)}: ${JSON.stringify(rest.body)}`).toBe(200);
    const tool = await mcp.client.callTool({ name: 'search_businesses', arguments: { limit: 100, ...params } });
    expect(tool.isError, JSON.stringify(tool.structuredContent)).toBeFalsy();
    expect(tool.structuredContent, JSON.stringify(params)).toEqual(rest.body);
    return rest.body.businesses;
  }
  async function found(params: Params): Promise<string[]> {
    return domainsOf({ businesses: await search(params) }).sort();
  }
  async function detail(domain: string): Promise<any> {
    const rest = await t.get(`/v1/businesses/${domain}`);
    const tool = await mcp.client.callTool({ name: 'get_business', arguments: { domain } });
    if (rest.status === 200) expect(tool.structuredContent).toEqual(rest.body);
    else expect((tool.structuredContent as { error: unknown }).error).toEqual(rest.body);
    return rest;
  }
  return {
    t,
    search,
    found,
    detail,
    async close() {
      await mcp.close();
      await t.close();
    },
  };
}

type Opened = Awaited<ReturnType<typeof open>>;

describe('q beside category: a word that names a kind still has to match', () => {
  let d: Opened;
  beforeAll(async () => {
    d = await open([
      listing('plain-cafe.example', { name: 'Plain Café', city: 'Lisboa', categories: ['cafe'] }),
      listing('founders-cafe.example', { name: 'Founders Café', city: 'Lisboa', categories: ['cafe'], description: 'Coffee and desks for SaaS founders' }),
      listing('trattoria.example', { name: 'Trattoria Roma', city: 'Lisboa', categories: ['restaurant'] }),
      listing('ai-sushi.example', { name: 'Ai Sushi', city: 'Lisboa', categories: ['restaurant'] }),
      listing('corner-bakery.example', { name: 'Corner Bakery', city: 'Lisboa', categories: ['bakery'] }),
      listing('invoicer.example', { name: 'Invoicer', kind: 'software_and_ai', categories: ['software-ai'], description: 'Invoicing for small firms' }),
    ]);
  });
  afterAll(() => d.close());

  it('q=saas&category=cafe is the cafés that say saas, not every café', async () => {
    expect(await d.found({ category: 'cafe' })).toEqual(['founders-cafe.example', 'plain-cafe.example']);
    expect(await d.found({ q: 'saas', category: 'cafe' })).toEqual(['founders-cafe.example']);
  });

  it('q=ai&category=restaurant and q=api&category=bakery leave out what does not say the word', async () => {
    expect(await d.found({ q: 'ai', category: 'restaurant' })).toEqual(['ai-sushi.example']);
    expect(await d.found({ q: 'api', category: 'bakery' })).toEqual([]);
  });

  it('a kind word alone still chooses software and AI, and is matched there too', async () => {
    expect(await d.found({ q: 'saas' })).toEqual(['invoicer.example']);
    expect(await d.found({ q: 'saas invoicing' })).toEqual(['invoicer.example']);
    expect(await d.found({ q: 'saas', category: 'software-ai' })).toEqual(['invoicer.example']);
    expect(await d.found({ q: 'cafe', category: 'software-ai' })).toEqual([]);
  });

  it('adding q to a category never adds a business', async () => {
    for (const [category, q] of [
      ['cafe', 'saas'],
      ['cafe', 'coffee'],
      ['restaurant', 'ai'],
      ['bakery', 'api'],
      ['software-ai', 'saas'],
    ] as const) {
      const wide = await d.found({ category });
      const narrow = await d.found({ category, q });
      for (const domain of narrow) expect(wide, `${category} + q=${q}`).toContain(domain);
    }
  });
});

describe('the kind of a search and the name rule agree: one kind on a page for q=cloud', () => {
  let d: Opened;
  beforeAll(async () => {
    d = await open([
      listing('cloud-it.example', { name: 'Harbour IT Support', city: 'Porto', categories: ['it-services'], tags: ['it support', 'cloud', 'backup'] }),
      listing('lumen-cloud.example', { name: 'Lumen Cloud', kind: 'software_and_ai', categories: ['software-ai'], placeCategory: { id: 'software_and_ai.saas', label: 'Software as a service', src: 'declared' } }),
      listing('nimbus.example', { name: 'Nimbus Agents', kind: 'software_and_ai', categories: ['software-ai'] }),
      listing('estate.example', { name: 'Prime Estate Agents', city: 'Faro', categories: ['consulting'] }),
    ]);
  });
  afterAll(() => d.close());

  it('q=cloud is local businesses only: cloud is a word of the software kind, not a software business\'s own name', async () => {
    const page = await d.search({ q: 'cloud' });
    expect(domainsOf({ businesses: page })).toEqual(['cloud-it.example']);
  });

  it('a software business is still found by its own name, its kind words beside', async () => {
    expect(await d.found({ q: 'lumen cloud' })).toEqual(['lumen-cloud.example']);
    expect(await d.found({ q: 'lumen' })).toEqual(['lumen-cloud.example']);
    expect(await d.found({ q: 'nimbus' })).toEqual(['nimbus.example']);
    // agents alone names the software kind's vocabulary: the estate agents, not Nimbus Agents
    expect(await d.found({ q: 'agents' })).toEqual(['estate.example']);
  });

  it('cloud within software and AI: by category, or beside a word that names the kind', async () => {
    expect(await d.found({ q: 'cloud', category: 'software-ai' })).toEqual(['lumen-cloud.example', 'nimbus.example']);
    expect(await d.found({ q: 'cloud saas' })).toEqual(['lumen-cloud.example', 'nimbus.example']);
  });

  it('no page of these searches holds both kinds', async () => {
    const kinds = new Map([
      ['cloud-it.example', 'local'],
      ['estate.example', 'local'],
      ['lumen-cloud.example', 'software'],
      ['nimbus.example', 'software'],
    ]);
    for (const q of ['cloud', 'agents', 'cloud saas', 'lumen cloud', 'support', 'nuvem', 'nube']) {
      const page = await d.found({ q });
      expect(new Set(page.map((domain) => kinds.get(domain))).size, `q=${q}: ${page.join(', ')}`).toBeLessThanOrEqual(1);
    }
  });
});

describe('an unclaimed place is no more precise than it is shown', () => {
  // Found on its own site, never claimed: it shows its town and a point to two decimals.
  const HIDDEN = { lat: 38.71634, lng: -9.14372 };
  const SHOWN = { lat: 38.72, lng: -9.14 };
  const CLAIMED = { lat: 38.70468, lng: -9.16012 };
  let d: Opened;
  beforeAll(async () => {
    d = await open([
      listing('found-bakery.example', { name: 'Found Bakery', city: 'Lisboa', categories: ['bakery'], geo: HIDDEN }),
      listing('claimed-bakery.example', { name: 'Claimed Bakery', city: 'Lisboa', categories: ['bakery'], geo: CLAIMED, source: 'registered', claimed: true }),
    ]);
  });
  afterAll(() => d.close());

  const RAD = Math.PI / 180;
  const EARTH_KM = 6371.0088;
  function km(a: { lat: number; lng: number }, b: { lat: number; lng: number }): number {
    const s1 = Math.sin(((b.lat - a.lat) * RAD) / 2);
    const s2 = Math.sin(((b.lng - a.lng) * RAD) / 2);
    return 2 * EARTH_KM * Math.asin(Math.sqrt(s1 * s1 + Math.cos(a.lat * RAD) * Math.cos(b.lat * RAD) * s2 * s2));
  }

  /** The point at these distances from three centres (flat around the first: a few km, metres of error). */
  function trilaterate(centres: { lat: number; lng: number }[], distances: number[]): { lat: number; lng: number } {
    const o = centres[0]!;
    const kx = EARTH_KM * RAD * Math.cos(o.lat * RAD);
    const ky = EARTH_KM * RAD;
    const xy = centres.map((c) => [(c.lng - o.lng) * kx, (c.lat - o.lat) * ky] as const);
    const [[x1, y1], [x2, y2], [x3, y3]] = xy as [readonly [number, number], readonly [number, number], readonly [number, number]];
    const [r1, r2, r3] = distances as [number, number, number];
    // subtracting the circles' equations leaves two lines
    const a1 = 2 * (x2 - x1), b1 = 2 * (y2 - y1), c1 = r1 ** 2 - r2 ** 2 - x1 ** 2 + x2 ** 2 - y1 ** 2 + y2 ** 2;
    const a2 = 2 * (x3 - x1), b2 = 2 * (y3 - y1), c2 = r1 ** 2 - r3 ** 2 - x1 ** 2 + x3 ** 2 - y1 ** 2 + y3 ** 2;
    const det = a1 * b2 - a2 * b1;
    const x = (c1 * b2 - c2 * b1) / det;
    const y = (a1 * c2 - a2 * c1) / det;
    return { lat: o.lat + y / ky, lng: o.lng + x / kx };
  }

  const CENTRES = [
    { lat: 38.74, lng: -9.16 },
    { lat: 38.69, lng: -9.15 },
    { lat: 38.72, lng: -9.1 },
  ];

  it('three near searches trilaterate to the shown point, not the hidden one', async () => {
    const distances: number[] = [];
    for (const c of CENTRES) {
      const page = await d.search({ near: `${c.lat},${c.lng}`, radius_km: 10 });
      const b = page.find((x) => x.domain === 'found-bakery.example');
      expect(b.geo).toEqual(SHOWN);
      expect(b.distance_km).toBeCloseTo(km(c, SHOWN), 3);
      distances.push(b.distance_km);
    }
    const at = trilaterate(CENTRES, distances);
    expect(km(at, SHOWN)).toBeLessThan(0.02);
    expect(km(at, HIDDEN)).toBeGreaterThan(0.3);
    expect((await d.detail('found-bakery.example')).body.geo).toEqual(SHOWN);
  });

  it('radius_km keeps or leaves it out by the shown point too', async () => {
    const c = CENTRES[2]!;
    const toShown = km(c, SHOWN);
    const toHidden = km(c, HIDDEN);
    expect(Math.abs(toShown - toHidden)).toBeGreaterThan(0.1);
    const near = async (radius: number) => (await d.found({ near: `${c.lat},${c.lng}`, radius_km: radius, category: 'bakery' })).includes('found-bakery.example');
    expect(await near(toShown + 0.01)).toBe(true);
    expect(await near(toShown - 0.01)).toBe(false);
  });

  it('a claimed entry shows, and is measured from, its own point', async () => {
    const c = CENTRES[0]!;
    const page = await d.search({ near: `${c.lat},${c.lng}`, radius_km: 10 });
    const b = page.find((x) => x.domain === 'claimed-bakery.example');
    expect(b.geo).toEqual(CLAIMED);
    expect(b.distance_km).toBeCloseTo(km(c, CLAIMED), 3);
  });
});

describe('regulated categories list only members, as their category page says', () => {
  const DOCTORS = { id: 'amenity.doctors.general', label: 'General Practitioner', src: 'declared' as const };
  const FIXTURES = [
    member('member-clinic.example', { name: 'Member Clinic', city: 'Lisboa', categories: ['health'], placeCategory: DOCTORS }),
    listing('found-clinic.example', { name: 'Found Clinic', city: 'Lisboa', categories: ['health'], placeCategory: DOCTORS }),
    listing('found-lawyer.example', { name: 'Found Lawyer', city: 'Lisboa', categories: ['legal'], placeCategory: { id: 'office.lawyer', label: 'Law Office', src: 'declared' }, source: 'registered', claimed: true }),
    // In a regulated category only as an alternate: still a regulated category it would be listed in.
    listing('found-spa.example', { name: 'Found Spa Clinic', city: 'Lisboa', categories: ['wellness'], placeAlternates: [{ id: 'healthcare.physiotherapist', label: 'Physiotherapist', src: 'seen' }] }),
    listing('found-bakery.example', { name: 'Found Bakery Clinic', city: 'Lisboa', categories: ['bakery'] }),
  ];
  let d: Opened;
  beforeAll(async () => {
    d = await open(FIXTURES);
  });
  afterAll(() => d.close());

  it('the category page says only members are listed there, and the search follows it', async () => {
    const page = await d.t.get('/c/amenity.doctors');
    expect(page.status).toBe(200);
    expect(page.body.regulated).toMatch(/only members/);
    expect(await d.found({ category: 'amenity.doctors' })).toEqual(['member-clinic.example']);
    expect(await d.found({ category: 'health' })).toEqual(['member-clinic.example']);
    expect(await d.found({ category: 'office.lawyer' })).toEqual([]);
    expect(await d.found({ category: 'healthcare.physiotherapist' })).toEqual([]);
  });

  it('nor does any other search list them: not by q, not unfiltered', async () => {
    expect(await d.found({ q: 'clinic' })).toEqual(['found-bakery.example', 'member-clinic.example']);
    expect(await d.found({})).toEqual(['found-bakery.example', 'member-clinic.example']);
    expect(await d.found({ q: 'lawyer' })).toEqual([]);
  });

  it('their own page answers 404 and says why, over REST and MCP', async () => {
    for (const [domain, why] of [
      ['found-clinic.example', /regulated profession/],
      ['found-lawyer.example', /Legal advice/],
      ['found-spa.example', /healthcare\.physiotherapist/],
    ] as const) {
      const r = await d.detail(domain);
      expect(r.status, domain).toBe(404);
      expect(r.body.detail).toMatch(/only members are listed/);
      expect(r.body.detail).toMatch(why);
    }
    expect((await d.detail('member-clinic.example')).status).toBe(200);
  });

  it('the counts leave them out too', async () => {
    const stats = await d.t.get('/v1/stats');
    expect(stats.body.businesses_listed).toBe(2);
  });

  it('a directory stored before the rule sets them aside when it opens', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'directory-regulated-'));
    let t = await startDirectory({ listings: FIXTURES, dataDir, answerWorkers: 0 });
    await t.close({ removeData: false });
    // As written before the rule: every row listed, the migration (and those after it) not yet run.
    await rawRows('directory', dataDir, 'UPDATE listings SET listed = 1');
    await rawRows('directory', dataDir, "DELETE FROM kysely_migration WHERE name >= '0003-members-only-categories'");
    t = await startDirectory({ dataDir, answerWorkers: 0 });
    try {
      const r = await t.get('/v1/businesses?limit=100');
      expect(domainsOf(r.body).sort()).toEqual(['found-bakery.example', 'member-clinic.example']);
    } finally {
      await t.close();
    }
  });
});

describe('an update of a listing reaches search at once: one business, one answer', () => {
  const WEEKENDS = hours('Europe/Lisbon', { 'sat,sun': [['10:00', '14:00']] });
  const ALL_DAY = hours('Europe/Lisbon', { 'mon-sun': [['00:00', '24:00']] });
  const LISBON = { lat: 38.7223, lng: -9.1393 };
  let d: Opened;
  let clock: TestClock;
  beforeAll(async () => {
    clock = new TestClock(MONDAY);
    d = await open(
      [
        member('changing-hours.example', { name: 'Changing Hours Café', city: 'Lisboa', categories: ['cafe'], hours: WEEKENDS, geo: LISBON }),
        member('steady.example', { name: 'Steady Café', city: 'Lisboa', categories: ['cafe'], hours: ALL_DAY, geo: { lat: 38.73, lng: -9.14 } }),
        ...['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot'].map((w, i) => listing(`${w}.example`, { name: `${w} Café`, city: 'Lisboa', categories: ['cafe'], geo: { lat: 38.7 + i / 100, lng: -9.15 } })),
      ],
      clock,
      { cacheAnswers: true },
    );
  });
  afterAll(() => d.close());

  /** The way a manifest checked again writes its listing (instances.ts verification commit). */
  async function rewrite(domain: string, change: Partial<Fixture>): Promise<void> {
    const { seq: _seq, ...record } = (await d.t.directory.store.listings.byDomain(domain))!;
    await d.t.directory.store.listings.upsert({ ...record, ...change, updatedAt: clock.now() });
  }

  it('new hours: the detail view at once, open_now=true within its minute, every page within the cache\'s few minutes', async () => {
    const openNow = async () => (await d.found({ open_now: true })).includes('changing-hours.example');
    const inPlain = async () => (await d.search({})).find((b) => b.domain === 'changing-hours.example');
    expect(await openNow()).toBe(false);
    expect((await inPlain()).open_now).toBe(false);
    expect((await d.detail('changing-hours.example')).body.open_now).toBe(false);

    await rewrite('changing-hours.example', { hours: ALL_DAY });
    expect((await d.detail('changing-hours.example')).body).toMatchObject({ open_now: true, hours: { weekly: { mon: [['00:00', '24:00']] } } });

    clock.advance(61_000); // the open_now answer may be a minute old, no more
    expect(await openNow()).toBe(true);
    const shown = (await d.search({ open_now: true })).find((b) => b.domain === 'changing-hours.example');
    expect(shown).toMatchObject({ open_now: true, hours: { weekly: { mon: [['00:00', '24:00']] } } });
    clock.advance(120_000); // any other answer a few minutes
    expect(await inPlain()).toMatchObject({ open_now: true, hours: { weekly: { sun: [['00:00', '24:00']] } } });
    // and it stays so for the rest of the hour (the issue saw it wrong 11 and 40 minutes later)
    for (const minutes of [11, 40]) {
      clock.nowMs = MONDAY + minutes * 60_000;
      if (Math.floor(clock.nowMs / 3_600_000) !== Math.floor(MONDAY / 3_600_000)) break;
      expect(await openNow()).toBe(true);
      expect((await d.detail('changing-hours.example')).body.open_now).toBe(true);
    }
  });

  it('keeps its place in the hour\'s order, and every walk meets each business once, in order', async () => {
    clock.nowMs = MONDAY + 44 * 60_000;
    const before = domainsOf({ businesses: await d.search({ q: 'cafe' }) });
    await rewrite('charlie.example', { name: 'Charlie Renamed Café' });
    await rewrite('alpha.example', { description: 'Now with pastries' });
    clock.advance(181_000);
    const after = await d.search({ q: 'cafe' });
    expect(domainsOf({ businesses: after })).toEqual(before);
    expect(after.find((b) => b.domain === 'charlie.example').name).toBe('Charlie Renamed Café');
    expect(domainsOf({ businesses: await d.search({ q: 'renamed' }) })).toEqual(['charlie.example']);
    expect(domainsOf({ businesses: await d.search({ q: 'pastries' }) })).toEqual(['alpha.example']);
    // walked two at a time, ranked and nearest
    const walks: Params[] = [{ q: 'cafe' }, { near: '38.72,-9.14', radius_km: 20, order: 'rank' }];
    for (const params of walks) {
      const seen: any[] = [];
      let cursor: string | null = null;
      do {
        const r: ApiResponse = await d.t.get(path({ ...params, limit: 2, ...(cursor ? { cursor } : {}) }));
        expect(r.status).toBe(200);
        seen.push(...r.body.businesses);
        cursor = r.body.next_cursor;
      } while (cursor);
      expect(seen.map((b) => b.domain)).toEqual(before);
      const positions = seen.map((b) => b.rank_pos);
      expect(positions).toEqual([...positions].sort((a, b) => a - b));
    }
  });

  it('a listing that left is gone from every answer, and one added comes after the hour\'s order', async () => {
    clock.nowMs = MONDAY + 50 * 60_000;
    await rewrite('bravo.example', { delistedAt: clock.now() });
    const added = listing('golf.example', { name: 'Golf Café', city: 'Lisboa', categories: ['cafe'], geo: { lat: 38.721, lng: -9.139 } }, clock.now());
    await d.t.directory.store.listings.upsert(added);
    clock.advance(181_000);
    const page = await d.search({ q: 'cafe' });
    expect(domainsOf({ businesses: page })).not.toContain('bravo.example');
    expect(page[page.length - 1]).toMatchObject({ domain: 'golf.example' });
    expect(page[page.length - 1].rank_pos).toBeGreaterThan(page[page.length - 2].rank_pos);
    expect((await d.detail('golf.example')).body.rank_pos).toBe(page[page.length - 1].rank_pos);
    expect((await d.detail('bravo.example')).status).toBe(404);
  });
});

describe('why, doors and levels follow whether a member answers now', () => {
  const HOUR_START = Date.parse('2026-11-23T10:00:00Z');
  let d: Opened;
  let clock: TestClock;
  beforeAll(async () => {
    clock = new TestClock(MONDAY); // 10:15, the hour's order made at 10:00
    d = await open(
      [
        // answered 23h50 before the order: answering at 10:00, silent from 10:10
        member('fading.example', { name: 'Fading Salon', city: 'Lisboa', itemTypes: ['booking', 'message'], lastPingAt: HOUR_START - 23 * HOUR - 50 * MINUTE }),
        member('silent.example', { name: 'Silent Salon', city: 'Lisboa', itemTypes: ['booking', 'message'], lastPingAt: MONDAY - 4 * DAY }),
        member('steady.example', { name: 'Steady Salon', city: 'Lisboa', itemTypes: ['booking', 'message'], lastPingAt: MONDAY - HOUR }),
      ],
      clock,
    );
  });
  afterAll(() => d.close());

  const bookable = async () => d.found({ level: 'bookable' });
  const shown = async (domain: string) => (await d.search({})).find((b) => b.domain === domain);

  it('a member whose inbox stopped answering after the hour\'s order is not said to have answered', async () => {
    for (const b of [await shown('fading.example'), (await d.detail('fading.example')).body]) {
      expect(b).toMatchObject({ answering: false, online: false, level: 'listed', has_inbox: false, requestable: [], accepts: { kinds: [] } });
      expect(b.not_answering_since).toBe(new Date(HOUR_START - 23 * HOUR - 50 * MINUTE + DAY).toISOString());
      expect(b.doors).toEqual([expect.objectContaining({ type: 'inbox', status: 'failing', level: 'bookable' })]);
      expect(b.why).not.toMatch(/inbox answered in the last day/);
      expect(b.why).toMatch(/has not answered in the last day/);
      expect(b.why).toMatch(/made \(10:00 UTC\), while its inbox still counted as answering/);
      // its place stays the one the hour's order gave it: among the members that answered
      expect(b.rank_pos).toBeLessThan((await shown('silent.example')).rank_pos);
    }
    expect(await bookable()).toEqual(['steady.example']);
    expect(await d.found({ has_inbox: true })).toEqual(['steady.example']);
    expect(await d.found({ has_inbox: false })).toEqual(['fading.example', 'silent.example']);
    expect(await d.found({ door_type: 'inbox' })).toEqual(['steady.example']);
    expect(await d.found({ accepts: 'book' })).toEqual(['steady.example']);
  });

  it('a member silent for days keeps no live door and no bookable level', async () => {
    const b = await shown('silent.example');
    expect(b).toMatchObject({ answering: false, level: 'listed', has_inbox: false, doors: [expect.objectContaining({ status: 'failing' })] });
    expect(b.why).toMatch(/has not answered in the last day/);
    expect(b.why).not.toMatch(/place was set/);
    const steady = await shown('steady.example');
    expect(steady).toMatchObject({ answering: true, level: 'bookable', has_inbox: true, doors: [expect.objectContaining({ status: 'live' })] });
    expect(steady.why).toMatch(/inbox answered in the last day/);
  });

  it('a ping brings it back at once: answering, a live inbox, bookable, and words that say so', async () => {
    clock.nowMs = MONDAY + 20 * MINUTE;
    await d.t.directory.store.listings.recordPing('silent.example', clock.now(), { version: '0.5.0', runtime: 'node' });
    const b = (await d.detail('silent.example')).body;
    expect(b).toMatchObject({ answering: true, level: 'bookable', has_inbox: true, not_answering_since: null });
    expect(b.why).toMatch(/inbox answered in the last day/);
    expect(b.why).toMatch(/before its inbox answered again/);
    expect(await shown('silent.example')).toMatchObject({ answering: true, level: 'bookable', why: b.why });
    expect(await bookable()).toEqual(['silent.example', 'steady.example']);
  });

  it('a member whose manifest check failed is not answering, though it pings', async () => {
    clock.nowMs = MONDAY + 30 * MINUTE;
    const failedAt = new Date(clock.now()).toISOString();
    const { seq: _seq, ...record } = (await d.t.directory.store.listings.byDomain('steady.example'))!;
    // as instances.ts records a failed check of a verified inbox
    await d.t.directory.store.listings.upsert({ ...record, doors: record.doors.map((door) => ({ ...door, status: 'failing' as const, checkedAt: failedAt })), updatedAt: clock.now() });
    await d.t.directory.store.listings.recordPing('steady.example', clock.now(), record.software);
    const b = (await d.detail('steady.example')).body;
    expect(b).toMatchObject({ answering: false, level: 'listed', has_inbox: false, not_answering_since: failedAt });
    expect(b.why).not.toMatch(/inbox answered in the last day/);
    expect(b.why).toMatch(/could not read its inbox.s manifest/);
    expect(await shown('steady.example')).toMatchObject({ answering: false, level: 'listed', why: b.why });
    expect(await bookable()).toEqual(['silent.example']);
  });
});

describe('on the demo data, every listing\'s words and doors say what its fields say', () => {
  let t: Awaited<ReturnType<typeof startDirectory>>;
  beforeAll(async () => {
    const clock = new TestClock(MONDAY);
    t = await startDirectory({ clock, answerWorkers: 1 });
    await seedDemoDirectory(t.directory.store, 3000, MONDAY);
    await t.directory.search.hour();
    clock.nowMs = MONDAY + 40 * MINUTE; // the order is 40 minutes old: some members stopped answering since
    // 3,000 demo listings stored: on PostgreSQL a round trip for every statement.
  }, 180_000);
  afterAll(() => t.close());

  it('answering, not_answering_since, doors, level, has_inbox and why agree for every listing of every page', async () => {
    const rank = { listed: 0, readable: 1, askable: 2, bookable: 3, payable: 4 } as const;
    let cursor: string | null = null;
    let seen = 0;
    let changedSince = 0;
    do {
      const r: ApiResponse = await t.get(path({ limit: 100, ...(cursor ? { cursor } : {}) }));
      expect(r.status).toBe(200);
      for (const b of r.body.businesses) {
        seen++;
        const live = (b.doors as { type: string; status: string; level: keyof typeof rank }[]).filter((x) => x.status === 'live');
        expect(b.level, b.domain).toBe(Object.keys(rank)[Math.max(0, ...live.map((x) => rank[x.level]))]);
        expect(b.has_inbox, b.domain).toBe(live.some((x) => x.type === 'inbox'));
        if (b.source !== 'member') continue;
        expect(b.answering, b.domain).toBe(live.some((x) => x.type === 'inbox'));
        expect(b.not_answering_since === null, b.domain).toBe(b.answering);
        expect(/inbox answered in the last day/.test(b.why), `${b.domain}: ${b.why}`).toBe(b.answering);
        if (/place was set/.test(b.why)) changedSince++;
      }
      cursor = r.body.next_cursor;
    } while (cursor);
    expect(seen).toBeGreaterThan(2600);
    expect(changedSince, 'some members stopped answering in the 40 minutes').toBeGreaterThan(0);
  }, 60_000);
});
