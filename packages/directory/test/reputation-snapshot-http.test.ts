/**
 * Reputation end to end at the directory (issue 13): verified inboxes publish signed receipts with
 * their customers' acknowledgements; nothing moves until the nightly snapshot at 00:00 UTC, driven by
 * the test's clock; then each listing (REST and MCP) shows the reputation the published arithmetic
 * gives (hand-computed below, as in reputation-arithmetic.test.ts), the signed ping answers it, and
 * the hour's order moves as the published rules say. The snapshot is durable, resumable and
 * idempotent per night: a run stopped halfway goes on to the same scores, a night is computed once,
 * and receipts that arrive after a midnight count from the next.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { receiptSha256, type ReceiptClaims } from '@svc/shared';
import type { HeldReceipt } from '../src/domain/receipts/held-receipt.js';
import { recordReceipt } from '../src/domain/receipts/intake.js';
import { SNAPSHOT_BATCH } from '../src/domain/reputation/snapshot.js';
import { DAY, HOUR, MONDAY } from './support/fixtures.js';
import { TestClock, startDirectory, type TestDirectory } from './support/harness.js';
import { closeSignedInboxes, newKey, pingPath, receiptClaims, registerVerified, signAck, signReceipt, signed, signedInbox, type SignedInbox } from './support/signed-inbox.js';

const agent = newKey();
const clock = new TestClock(MONDAY);
let t: TestDirectory;
/** Strong: 20 promises kept for 20 customers, acknowledged and paid. Weak: one customer, 4 kept and 1 broken. Quiet: no receipts. */
let strong: SignedInbox;
let weak: SignedInbox;
let quiet: SignedInbox;

const nowSec = () => Math.floor(clock.now() / 1000);
const publish = (inbox: SignedInbox, receipt: string, ack?: string) => signed(t, inbox, 'POST', '/v1/receipts', ack ? { receipt, ack } : { receipt });

/** A promise made and closed: its receipt, then its outcome with the customer's acknowledgement, published as they happen. */
async function closePromise(inbox: SignedInbox, customer: string, out: string, options: { paid?: boolean } = {}): Promise<void> {
  const itm = `item-${Math.random().toString(36).slice(2)}`;
  const typ = out.split('.')[0] as 'booking' | 'order';
  const promise = receiptClaims(inbox, clock.now(), { sub: customer, itm, typ, knd: typ === 'booking' ? 'confirmed' : 'accepted', evt: `${typ}.${typ === 'booking' ? 'confirmed' : 'accepted'}`, ...(typ === 'order' ? { end: undefined } : {}) });
  expect((await publish(inbox, signReceipt(inbox.key, promise))).status).toBe(201);
  clock.advance(60_000);
  const outcome = signReceipt(inbox.key, receiptClaims(inbox, clock.now(), { sub: customer, itm, typ, knd: 'outcome', out: out as ReceiptClaims['out'], ref: promise.nonce, evt: out, due: promise.due, ...(typ === 'order' ? { end: undefined } : { end: promise.end }), ...(options.paid ? { pay: 1 } : {}) }));
  const r = await publish(inbox, outcome, signAck(agent, outcome, nowSec()));
  expect(r.status, JSON.stringify(r.body)).toBe(201);
}

const detail = async (inbox: SignedInbox) => (await t.get(`/v1/businesses/${encodeURIComponent(inbox.domain)}`)).body;
const pingAnswer = async (inbox: SignedInbox) => (await signed(t, inbox, 'POST', pingPath(inbox.domain), {})).body;
const memberOrder = async () => ((await t.get('/v1/businesses?source=member')).body.businesses as { domain: string; rank_pos: number; reputation: any; why: string }[]).filter((b) => [strong, weak, quiet].some((i) => i.domain === b.domain));

beforeAll(async () => {
  t = await startDirectory({ clock, allowLocalInboxes: true, answerWorkers: 0 });
  [strong, weak, quiet] = [await signedInbox(), await signedInbox(), await signedInbox()];
  for (const inbox of [strong, weak, quiet]) await registerVerified(t, inbox);
  // Past the hold after verification (30 days, then 30 units a month until day 90), in the afternoon.
  clock.set('2027-02-26T15:00:00Z');
  for (let i = 0; i < 20; i++) await closePromise(strong, `customer-${i}`, 'booking.completed', { paid: true });
  for (let i = 0; i < 4; i++) await closePromise(weak, 'the-one', 'booking.completed', { paid: true });
  await closePromise(weak, 'the-one', 'order.not_fulfilled', { paid: true });
  await t.directory.jobs.runDue();
}, 120_000);
afterAll(async () => {
  await t.close();
  await closeSignedInboxes();
});

function answerAll(): Promise<void> {
  return Promise.all([strong, weak, quiet].map((inbox) => signed(t, inbox, 'POST', pingPath(inbox.domain), {}))).then(() => undefined);
}

describe('before the snapshot', () => {
  it('receipts show at once; reputation waits for the night: as of the last midnight (before them), nobody ranked', async () => {
    await answerAll();
    const s = await detail(strong);
    expect(s.receipts).toMatchObject({ issued: 40, acknowledged: 20, customers: 20 });
    expect(s.outcomes).toEqual({ 'booking.completed': 20 });
    expect(s.reputation).toMatchObject({ ranked: false, score: 0, tier: 'new', kept: 0, rules: 7 });
    expect((await detail(weak)).outcomes).toEqual({ 'booking.completed': 4, 'order.not_fulfilled': 1 });
    // The job that was due ran the last midnight's night (the nights missed while nobody ran it are skipped).
    expect((await pingAnswer(strong)).standing).toEqual({ tier: 'new', score: 0, ranked: false, kept: 0, broken: 0, customers: 0, as_of: '2027-02-26T00:00:00.000Z' });
    expect(await t.directory.store.reputation.night('2026-11-24')).toBeNull();
    const stats = (await t.get('/v1/stats')).body;
    expect(stats).toMatchObject({ receipts_issued: 50, receipts_acknowledged: 25 });
  });
});

describe('after the nightly snapshot at 00:00 UTC', () => {
  let beforeOrder: { domain: string }[];
  beforeAll(async () => {
    beforeOrder = await memberOrder();
    // The night's job, scheduled by the last run for the next midnight, runs when it comes.
    clock.set('2027-02-27T00:00:00Z');
    await answerAll();
    while ((await t.directory.jobs.runDue()) > 0);
  });

  it('the night is computed once and published, members scored', async () => {
    const night = await t.directory.store.reputation.night('2027-02-27');
    expect(night).toMatchObject({ status: 'published', members: 3, rulesVersion: 7, scoringTime: Date.parse('2027-02-27T00:00:00Z') });
    expect(beforeOrder).toHaveLength(3);
  });

  it('each listing shows the published arithmetic: 20 of 20 → 0.924108 trusted; 4 kept and 1 broken of one customer → 0.286826 new', async () => {
    expect((await detail(strong)).reputation).toEqual({
      ranked: true,
      score: 0.924108,
      tier: 'trusted',
      kept: 20,
      broken: 0,
      customers: 20,
      verified_share: 1,
      rules: 7,
      rules_url: 'http://127.0.0.1/v1/ranking?version=7',
    });
    expect((await detail(weak)).reputation).toEqual({
      ranked: false,
      score: 0.286826,
      tier: 'new',
      kept: 4,
      broken: 1,
      customers: 1,
      verified_share: 1,
      rules: 7,
      rules_url: 'http://127.0.0.1/v1/ranking?version=7',
    });
    expect((await detail(quiet)).reputation).toMatchObject({ ranked: false, score: 0, tier: 'new', kept: 0, customers: 0, rules: 7 });
  });

  it('the signed ping answers the same standing, as of the snapshot', async () => {
    expect(await pingAnswer(strong)).toEqual({
      ok: true,
      standing: { tier: 'trusted', score: 0.924108, ranked: true, kept: 20, broken: 0, customers: 20, as_of: '2027-02-27T00:00:00.000Z' },
      receipts: { accepted: 40, acknowledged: 20 },
      rules: 7,
      // A ping naming no manifest hash: the manifest read at verification stands.
      manifest: { current: true, read_at: '2027-02-27T00:00:00.000Z', read_after: null },
    });
  });

  it('the order moves as the published rules say: the ranked business first, by its score; the others by the day\'s shuffle', async () => {
    const order = await memberOrder();
    expect(order[0]).toMatchObject({ domain: strong.domain, reputation: { ranked: true, score: 0.924108 } });
    expect(order[0]!.why).toMatch(/Ranked by its reputation \(score 0\.9241\)/);
    const rest = order.slice(1);
    expect(rest.map((b) => b.reputation.ranked)).toEqual([false, false]);
    expect(rest[0]!.why).toMatch(/placed by today's shuffle/);
    // Between the unranked ones, the shuffle decides (rank_shuffle ascending), as the rules document says.
    const shuffles = (await t.get('/v1/businesses?source=member')).body.businesses.filter((b: any) => rest.some((r) => r.domain === b.domain)).map((b: any) => b.rank_shuffle);
    expect([...shuffles].sort()).toEqual(shuffles);
    // The rules document names every number used.
    const rules = (await t.get('/v1/ranking')).body;
    expect(rules.version).toBe(7);
    expect(rules.score).toMatchObject({ z: 1.2816, ranked_from: 0.4, ranked_from_int: 4000, word_cap_units: 50, evidence_weight: { acknowledged_paid: 1, acknowledged_unpaid: 0.7, unacknowledged: 0.4 }, snapshot: { nightly: '00:00 UTC' } });
    expect(rules.text_revisions.map((r: any) => r.at)).toContain('2026-11-26');
  });

  it('the same through MCP', async () => {
    const client = new Client({ name: 'reputation-test', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`)));
    try {
      const one = (await client.callTool({ name: 'get_business', arguments: { domain: strong.domain } })).structuredContent as any;
      expect(one.reputation).toEqual((await detail(strong)).reputation);
      const page = (await client.callTool({ name: 'search_businesses', arguments: { source: 'member' } })).structuredContent as any;
      expect(page.businesses.find((b: any) => b.domain === strong.domain).rank_pos).toBe(1);
    } finally {
      await client.close();
    }
  });

  it('receipts after the midnight count from the next night; running the night again changes nothing', async () => {
    clock.advance(2 * HOUR);
    for (let i = 0; i < 3; i++) await closePromise(weak, 'the-one', 'order.not_fulfilled');
    await t.directory.jobs.runDue();
    const night = await t.directory.snapshots.ensure('2027-02-27');
    expect(night.status).toBe('published');
    expect((await detail(weak)).reputation).toMatchObject({ score: 0.286826, broken: 1 });
    expect((await detail(weak)).receipts.issued).toBe(16);
    // The next midnight takes them in: one customer, 4 kept (r = 1.75/4 each, K = 1.75) and 4 broken (the
    // three new ones unpaid, e = 0.7: B = (1 + 3 × 0.7) × 1.75/4 = 1.35625), n = 3.10625, p = 0.5634
    clock.set('2027-02-28T00:00:00Z');
    await answerAll();
    while ((await t.directory.jobs.runDue()) > 0);
    const later = (await detail(weak)).reputation;
    expect(later).toMatchObject({ broken: 4, kept: 4, tier: 'new', ranked: false, customers: 1 });
    const K = 1.75;
    const B = 3.1 * (1.75 / 4);
    const n = K + B;
    const p = K / n;
    const z2 = 1.2816 ** 2;
    const wilson = (p + z2 / (2 * n) - 1.2816 * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / (1 + z2 / n);
    expect(later.score).toBe(Math.round(wilson * 1e6) / 1e6);
  });
});

describe('a snapshot stopped halfway', () => {
  it('goes on from where it stopped to the scores a whole run gives', async () => {
    const own = new TestClock('2026-11-23T10:15:00Z');
    const d = await startDirectory({ clock: own, allowLocalInboxes: true, answerWorkers: 0 });
    try {
      // More members than one batch, so a run takes several transactions; each with its own record.
      const key = newKey();
      const domains: string[] = [];
      await d.directory.store.transaction(async (tx) => {
        for (let i = 0; i < SNAPSHOT_BATCH + 5; i++) {
          const domain = `member-${String(i).padStart(3, '0')}.example`;
          domains.push(domain);
          await tx.instances.put(verifiedInstance(domain, own.now() - 200 * DAY));
          const issuer = { origin: `https://${domain}` };
          for (let k = 0; k < (i % 7) + (i % 3); k++) {
            const claims = receiptClaims(issuer, own.now() - k * HOUR, { sub: `c-${k % 4}`, knd: 'outcome', out: k < i % 7 ? 'booking.completed' : 'booking.cancelled_by_business', ref: `${String(k).padStart(2, '0')}${'0'.repeat(30)}`, evt: 'booking.completed' });
            const jws = signReceipt(key, claims);
            await recordReceipt(tx, heldFrom(domain, jws, claims, own.now(), k % 2 === 0), own.now());
          }
        }
      });
      const night = '2026-11-24';
      own.set('2026-11-24T00:00:05Z');
      const whole = await d.directory.snapshots.ensure(night);
      expect(whole).toMatchObject({ status: 'published', members: SNAPSHOT_BATCH + 5 });
      const wholeScores = await d.directory.store.reputation.scores(night, null, 1_000);
      expect(new Set(wholeScores.map((s) => s.score)).size).toBeGreaterThan(3);

      // The same night as a run that stopped after its first batch left it: that batch's scores and its cursor.
      await d.directory.store.reputation.prune('2026-11-25');
      expect(await d.directory.store.reputation.night(night)).toBeNull();
      await d.directory.store.reputation.putScores(night, wholeScores.slice(0, SNAPSHOT_BATCH));
      await d.directory.store.reputation.putNight({ ...whole, status: 'computing', cursor: domains[SNAPSHOT_BATCH - 1]!, members: SNAPSHOT_BATCH, computedAt: null, publishedAt: null });
      const resumed = await d.directory.snapshots.ensure(night);
      expect(resumed).toMatchObject({ status: 'published', members: SNAPSHOT_BATCH + 5 });
      expect(await d.directory.store.reputation.scores(night, null, 1_000)).toEqual(wholeScores);
      // A night done is not done again.
      expect(await d.directory.snapshots.ensure(night)).toEqual(resumed);
    } finally {
      await d.close();
    }
  });
});

function verifiedInstance(domain: string, verifiedAt: number) {
  return {
    domain,
    origin: `https://${domain}`,
    status: 'verified' as const,
    manifest: null,
    manifestUrl: `https://${domain}/.well-known/agent-inbox.json`,
    listingId: null,
    registeredAt: verifiedAt,
    verifiedAt,
    lastCheckedAt: verifiedAt,
    lastPingAt: null,
    failCount: 0,
    attempts: 1,
    nextAttemptAt: null,
    lastError: null,
    delistedAt: null,
    dormantSince: null,
    software: null,
    counts: null,
  };
}

function heldFrom(domain: string, jws: string, c: ReceiptClaims, arrivedAt: number, acknowledged: boolean): HeldReceipt {
  return {
    iss: c.iss,
    receiptId: c.nonce,
    domain,
    kid: 'k',
    jws,
    sha256: receiptSha256(jws),
    typ: c.typ,
    knd: c.knd,
    out: c.out ?? null,
    ref: c.ref ?? null,
    prv: null,
    sub: c.sub,
    itm: c.itm,
    iat: c.iat,
    due: c.due,
    end: c.end ?? null,
    paid: false,
    aut: false,
    counted: true,
    arrivedAt,
    ack: acknowledged ? { jws: 'ack', jkt: 'agent', iat: c.iat, at: arrivedAt } : null,
  };
}
