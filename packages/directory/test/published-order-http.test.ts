/**
 * A published order anyone can check (issue 20): from a search page's listing fields and the rules
 * document of GET /v1/ranking alone, a client recomputes every rank_shuffle (SHA-256 over the date and
 * the listing's id, which every listing now shows) and the page's order, key by published key, under
 * rules 6 and rules 7, over REST and MCP.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AFTER_RULES_7, DAY, HOUR, MONDAY, door, listing, member, type Fixture } from './support/fixtures.js';
import { TestClock, startDirectory, type TestDirectory } from './support/harness.js';

/** What a client reads of a listing: only fields every listing shows. */
interface Shown {
  domain: string;
  id: string;
  source: 'member' | 'registered' | 'found';
  last_ping_at?: string;
  level: 'listed' | 'readable' | 'askable' | 'bookable' | 'payable';
  doors: { type: string; status: string; level: string }[];
  reputation?: { ranked: boolean; score: number };
  rank_pos: number;
  rank_shuffle: string;
}

interface RulesDocument {
  version: number;
  order: { answering_hours: number; keys: { key: string; reads: string[]; sort: string }[]; rank_shuffle: string };
}

/* The client's side: written from the rules document's words, not from the directory's code. */

const LEVELS = ['listed', 'readable', 'askable', 'bookable', 'payable'];

function recomputedShuffle(snapshotMs: number, id: string): string {
  const date = new Date(snapshotMs).toISOString().slice(0, 10);
  return createHash('sha256').update(`${date}:${id.toLowerCase()}`, 'utf8').digest('hex').slice(0, 16);
}

function answering(l: Shown, snapshotMs: number, hours: number): boolean {
  return l.source === 'member' && l.last_ping_at !== undefined && Date.parse(l.last_ping_at) >= snapshotMs - hours * HOUR;
}

function reach(l: Shown, snapshotMs: number, hours: number): number {
  if (answering(l, snapshotMs, hours)) return 1;
  return l.doors.some((d) => d.status === 'live' && d.type !== 'inbox' && LEVELS.indexOf(d.level) >= LEVELS.indexOf('askable')) ? 2 : 3;
}

const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const scoreInt = (l: Shown) => (l.reputation?.ranked ? Math.floor(l.reputation.score * 10_000 + 0.5) : 0);

/** The comparator of each published key, by its name; a key the client does not know fails the test. */
function comparatorOf(key: string, snapshotMs: number, hours: number): (a: Shown, b: Shown) => number {
  switch (key) {
    case 'member':
      return (a, b) => Number(b.source === 'member') - Number(a.source === 'member');
    case 'answering':
      return (a, b) => Number(answering(b, snapshotMs, hours)) - Number(answering(a, snapshotMs, hours));
    case 'reach':
      return (a, b) => reach(a, snapshotMs, hours) - reach(b, snapshotMs, hours);
    case 'level':
      return (a, b) => (reach(a, snapshotMs, hours) === 2 && reach(b, snapshotMs, hours) === 2 ? LEVELS.indexOf(b.level) - LEVELS.indexOf(a.level) : 0);
    case 'reputation':
      return (a, b) => Number(b.reputation?.ranked ?? false) - Number(a.reputation?.ranked ?? false) || scoreInt(b) - scoreInt(a);
    case 'rank_shuffle':
      return (a, b) => byString(a.rank_shuffle, b.rank_shuffle);
    case 'id':
      return (a, b) => byString(a.id, b.id);
    default:
      throw new Error(`the rules name a key the client cannot read: ${key}`);
  }
}

function recomputedOrder(page: Shown[], rules: RulesDocument, nowMs: number): string[] {
  const snapshot = Math.floor(nowMs / HOUR) * HOUR;
  const keys = rules.order.keys.map((k) => comparatorOf(k.key, snapshot, rules.order.answering_hours));
  return [...page].sort((a, b) => keys.reduce((result, compare) => result || compare(a, b), 0)).map((l) => l.domain);
}

const inRankOrder = (page: Shown[]) => [...page].sort((a, b) => a.rank_pos - b.rank_pos).map((l) => l.domain);

/* The directory's side: businesses of every standing. */

function businesses(nowMs: number): Fixture[] {
  const found = (domain: string, overrides: Partial<Fixture> = {}) => listing(domain, { city: 'Lisboa', ...overrides }, nowMs);
  const checked = new Date(nowMs - DAY).toISOString();
  return [
    member('answering-a.example', { lastPingAt: nowMs - HOUR }, nowMs),
    member('answering-b.example', { lastPingAt: nowMs - 20 * HOUR }, nowMs),
    member('answering-c.example', { lastPingAt: nowMs - 2 * HOUR }, nowMs),
    member('silent-a.example', { lastPingAt: nowMs - 30 * HOUR }, nowMs),
    member('silent-b.example', { lastPingAt: nowMs - 3 * DAY }, nowMs),
    found('mcp-askable.example', { doors: [door('mcp', 'askable', ['ask'], { src: 'seen', checkedAt: checked })] }),
    found('api-bookable.example', { doors: [door('openapi', 'bookable', ['book'], { src: 'seen', checkedAt: checked })] }),
    found('ucp-payable.example', { source: 'registered', doors: [door('ucp', 'payable', ['order', 'pay'])] }),
    found('a2a-payable.example', { doors: [door('a2a', 'payable', ['ask', 'pay'], { src: 'seen', checkedAt: checked })] }),
    found('failing-door.example', { doors: [door('mcp', 'bookable', ['book'], { status: 'failing', src: 'seen', checkedAt: checked })] }),
    found('readable-only.example', { doors: [door('nlweb', 'readable', [], { src: 'seen', checkedAt: checked })] }),
    found('no-door-a.example'),
    found('no-door-b.example', { source: 'registered' }),
    found('no-door-c.example'),
    found('other-inbox.example', { doors: [door('inbox', 'bookable', ['book'], { src: 'seen', checkedAt: checked })] }),
  ];
}

describe.each([
  ['6', MONDAY],
  ['7', AFTER_RULES_7],
])('the order of rules %s, recomputed by a client', (version, nowMs) => {
  let t: TestDirectory;
  let client: Client;
  let rules: RulesDocument;
  let page: Shown[];

  beforeAll(async () => {
    t = await startDirectory({ clock: new TestClock(nowMs), listings: businesses(nowMs), answerWorkers: 0 });
    rules = (await t.get('/v1/ranking')).body;
    const r = await t.get('/v1/businesses?limit=100');
    expect(r.status).toBe(200);
    page = r.body.businesses;
    client = new Client({ name: 'published-order-test', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`)));
  });

  afterAll(async () => {
    await client?.close();
    await t?.close();
  });

  it(`is rules ${version}, and says which listing fields each key reads`, () => {
    expect(String(rules.version)).toBe(version);
    expect(rules.order.rank_shuffle).toMatch(/id field/);
    for (const key of rules.order.keys) {
      expect(key.reads.length, key.key).toBeGreaterThan(0);
      // A field the page shows (reputation and last_ping_at on members only).
      for (const field of key.reads) expect(page.some((l) => field.split('.')[0]! in l), `${key.key} reads ${field}`).toBe(true);
    }
  });

  it('shows every listing\'s id, and every rank_shuffle is SHA-256 over "<date>:<id>"', () => {
    expect(page).toHaveLength(15);
    for (const l of page) {
      expect(l.id, l.domain).toMatch(/^[0-9A-Z]{26}$/);
      expect(l.rank_shuffle, l.domain).toBe(recomputedShuffle(nowMs, l.id));
    }
  });

  it('the page is in the order the published keys give', () => {
    expect(page.map((l) => l.domain)).toEqual(inRankOrder(page));
    expect(recomputedOrder(page, rules, nowMs)).toEqual(page.map((l) => l.domain));
  });

  it('so is a filtered page, and each page of a walk', async () => {
    const filtered: Shown[] = (await t.get('/v1/businesses?source=found,registered&limit=100')).body.businesses;
    expect(filtered.length).toBeGreaterThan(5);
    expect(recomputedOrder(filtered, rules, nowMs)).toEqual(filtered.map((l) => l.domain));
    const first = await t.get('/v1/businesses?limit=4');
    const second = await t.get(`/v1/businesses?limit=4&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    const both: Shown[] = [...first.body.businesses, ...second.body.businesses];
    expect(recomputedOrder(both, rules, nowMs)).toEqual(both.map((l) => l.domain));
  });

  it('a page read through MCP recomputes the same way', async () => {
    const result = await client.callTool({ name: 'search_businesses', arguments: { limit: 100 } });
    const mcpPage = (result.structuredContent as { businesses: Shown[] }).businesses;
    expect(mcpPage.map((l) => l.domain)).toEqual(page.map((l) => l.domain));
    for (const l of mcpPage) expect(l.rank_shuffle).toBe(recomputedShuffle(nowMs, l.id));
    expect(recomputedOrder(mcpPage, rules, nowMs)).toEqual(mcpPage.map((l) => l.domain));
  });

  it('the detail view shows the same id and shuffle key', async () => {
    for (const l of page.slice(0, 5)) {
      const detail = (await t.get(`/v1/businesses/${l.domain}`)).body;
      expect([detail.id, detail.rank_shuffle, detail.rank_pos]).toEqual([l.id, l.rank_shuffle, l.rank_pos]);
    }
  });
});
