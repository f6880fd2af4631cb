/**
 * GET /v1/stats over real HTTP (directory spec §4): every field, the directory block's counts
 * (checked, agent_ready, software_and_ai, capabilities, doors, as_of), the degraded answer before any
 * count was taken, inboxes online and their activity, and never a name or a domain.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY, HOUR, MONDAY, door, listing, member } from './support/fixtures.js';
import { TestClock, startDirectory, type TestDirectory } from './support/harness.js';
import { ACTIVITY_CEILING_PER_INSTANCE } from '../src/domain/registration/instances.js';
import { closeSignedInboxes, pingPath, signed, signedInbox } from './support/signed-inbox.js';

const CAPABILITIES = ['message', 'book', 'order', 'cancel', 'change', 'negotiate', 'catalogue', 'availability', 'pay', 'track', 'return'];
const DOORS = ['inbox', 'mcp', 'a2a', 'openapi', 'ucp', 'acp', 'webmcp'];
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;

const fixtures = [
  member('answering-salon.example', { name: 'Answering Salon', itemTypes: ['booking', 'message'] }),
  member('quiet-member.example', { name: 'Quiet Member', itemTypes: ['message'], lastPingAt: MONDAY - 3 * DAY }),
  listing('found-cafe.example', { name: 'Found Cafe', doors: [door('mcp', 'askable', ['ask'])] }),
  listing('plain-shop.example', { name: 'Plain Shop' }),
  listing('registered-plumber.example', { source: 'registered', name: 'Registered Plumber', doors: [door('a2a', 'bookable', ['book', 'quote']), door('openapi', 'readable')] }),
  listing('agent-saas.example', { name: 'Agent Saas', kind: 'software_and_ai', categories: ['software-ai'], doors: [door('mcp', 'askable', ['ask'])] }),
  listing('failing-door.example', { name: 'Failing Door', doors: [door('ucp', 'payable', ['order', 'pay'], { status: 'failing' })] }),
  listing('gone.example', { name: 'Gone Away', doors: [door('acp', 'payable', ['pay'])], delistedAt: MONDAY - DAY }),
  member('dormant-member.example', { name: 'Dormant Member', dormantSince: MONDAY - 8 * DAY, lastPingAt: MONDAY - 10 * DAY }),
];

function expectShape(body: any): void {
  expect(Object.keys(body).sort()).toEqual(
    ['activity_24h', 'businesses_listed', 'directory', 'generated_at', 'instances_online', 'receipts_acknowledged', 'receipts_issued', 'reviews_published', 'status'].sort(),
  );
  for (const key of ['instances_online', 'businesses_listed', 'receipts_issued', 'receipts_acknowledged', 'reviews_published']) {
    expect(Number.isInteger(body[key]) && body[key] >= 0, key).toBe(true);
  }
  expect(Object.keys(body.activity_24h).sort()).toEqual(['bookings', 'messages', 'orders', 'quotes']);
  for (const v of Object.values<number>(body.activity_24h)) expect(Number.isInteger(v) && v >= 0).toBe(true);
  expect(['ok', 'degraded']).toContain(body.status.api);
  expect(typeof body.status.jobs_lag_seconds).toBe('number');
  expect(body.status.last_sweep_at === null || ISO.test(body.status.last_sweep_at)).toBe(true);
  const d = body.directory;
  expect(Number.isInteger(d.checked) && d.checked >= 0).toBe(true);
  expect(Number.isInteger(d.agent_ready) && d.agent_ready >= 0).toBe(true);
  if ('software_and_ai' in d) expect(Number.isInteger(d.software_and_ai) && d.software_and_ai >= 0).toBe(true);
  expect(Object.keys(d.capabilities).sort()).toEqual([...CAPABILITIES].sort());
  expect(Object.keys(d.doors).sort()).toEqual([...DOORS].sort());
  for (const v of [...Object.values<number>(d.capabilities), ...Object.values<number>(d.doors)]) expect(Number.isInteger(v) && v >= 0).toBe(true);
  expect(d.as_of).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/);
  expect(body.generated_at).toMatch(ISO);
}

let t: TestDirectory;
const clock = new TestClock(MONDAY);
beforeAll(async () => {
  t = await startDirectory({ listings: fixtures, clock, allowLocalInboxes: true });
});
afterAll(async () => {
  await t.close();
  await closeSignedInboxes();
});

describe('GET /v1/stats', () => {
  it('answers degraded with zero counts at the zero time before any count was taken, every key present', async () => {
    const r = await t.get('/v1/stats');
    expect(r.status).toBe(200);
    expectShape(r.body);
    expect(r.body.status).toEqual({ api: 'degraded', jobs_lag_seconds: 0, last_sweep_at: null });
    expect(r.body.directory.as_of).toBe('0001-01-01T00:00:00Z');
    expect(r.body.directory.checked).toBe(0);
    expect(r.body.directory.agent_ready).toBe(0);
    expect(Object.values(r.body.directory.doors).every((v) => v === 0)).toBe(true);
    expect(r.body.businesses_listed).toBe(7);
    expect(r.body.generated_at).toBe(new Date(MONDAY).toISOString());
  });

  it('counts the directory once the hour is prepared, from check results and members: listings that no check found count for nothing', async () => {
    await t.directory.search.hour();
    const r = await t.get('/v1/stats');
    expectShape(r.body);
    expect(r.body.status.api).toBe('ok');
    expect(r.body.status.last_sweep_at).toBe(new Date(MONDAY).toISOString());
    const d = r.body.directory;
    expect(d.as_of).toBe(new Date(MONDAY).toISOString());
    // No site was checked (these listings came with the data, not from checks: check-http.test.ts counts real results).
    expect(d.checked).toBe(0);
    // A member the directory lists is agent-ready: the two listed members (the dormant one is set aside).
    expect(d.agent_ready).toBe(2);
    expect(d.software_and_ai).toBe(0);
    // a member's inbox counts while it answers
    expect(d.doors).toEqual({ inbox: 1, mcp: 0, a2a: 0, openapi: 0, ucp: 0, acp: 0, webmcp: 0 });
    expect(d.capabilities).toMatchObject({ order: 0, pay: 0, track: 0, return: 0 });
    expect(d.capabilities.message).toBeGreaterThanOrEqual(1);
  });

  it('never names a business: no domain and no name anywhere in the answer', async () => {
    const text = JSON.stringify((await t.get('/v1/stats')).body);
    for (const f of fixtures) {
      expect(text).not.toContain(f.domain);
      expect(text).not.toContain(f.name);
    }
  });

  it('keeps the counts until they are taken again, at most every ten minutes', async () => {
    const before = (await t.get('/v1/stats')).body.directory;
    await t.directory.store.listings.upsert(listing('new-askable.example', { name: 'New Askable', doors: [door('mcp', 'askable', ['ask'])], updatedAt: MONDAY + 60_000 }));
    clock.advance(5 * 60_000);
    const after = await t.get('/v1/stats');
    expect(after.body.directory).toEqual(before);
    expect(after.body.businesses_listed).toBe(8);
    expect(after.body.generated_at).toBe(new Date(MONDAY + 5 * 60_000).toISOString());
    clock.set(new Date(MONDAY).toISOString());
  });

  it('counts inboxes that pinged in the last day and the activity they reported, and the jobs lag', async () => {
    const [live, waiting] = [await signedInbox(), await signedInbox()];
    for (const inbox of [live, waiting]) expect((await signed(t, inbox, 'POST', '/v1/instances', { domain: inbox.domain })).status).toBe(202);
    // Verified as the verification job would (the runner is not started in tests); the other stays pending.
    const registered = await t.directory.store.instances.get(live.domain);
    await t.directory.store.instances.put({ ...registered!, status: 'verified', verifiedAt: clock.now() });
    // Unsigned, a ping changes nothing and counts nothing, however large (issue 19).
    const unsigned = await t.request('POST', pingPath(live.domain), { body: { counts: { bookings: 2_147_483_647 } } });
    expect(unsigned.status).toBe(401);
    expect(unsigned.body.code).toBe('unauthorized');
    expect((await t.get('/v1/stats')).body.activity_24h).toEqual({ bookings: 0, orders: 0, quotes: 0, messages: 0 });
    const ping = await signed(t, live, 'POST', pingPath(live.domain), { version: '0.4.1', runtime: 'node', counts: { bookings: 3, messages: 2 } });
    expect(ping.status).toBe(200);
    // A pending instance's signed ping keeps nothing alive and counts nothing, however large.
    const pending = await signed(t, waiting, 'POST', pingPath(waiting.domain), { counts: { bookings: 2_147_483_647 } });
    expect(pending.status).toBe(409);
    expect(pending.body.code).toBe('wrong_state');
    clock.advance(90_000);
    const r = await t.get('/v1/stats');
    expectShape(r.body);
    expect(r.body.instances_online).toBe(1);
    expect(r.body.activity_24h).toEqual({ bookings: 3, orders: 0, quotes: 0, messages: 2 });

    // A verified instance's inflated counts are clipped to the published ceiling.
    expect((await signed(t, live, 'POST', pingPath(live.domain), { counts: { bookings: 2_147_483_647, orders: 1 } })).status).toBe(200);
    const clipped = await t.get('/v1/stats');
    expect(clipped.body.activity_24h).toMatchObject({ bookings: ACTIVITY_CEILING_PER_INSTANCE, orders: 1 });
    // two verification jobs have waited 90 seconds (the runner is not started in tests)
    expect(r.body.status.jobs_lag_seconds).toBe(90);
    expect(r.body.receipts_issued).toBe(0);

    clock.advance(25 * HOUR);
    const later = await t.get('/v1/stats');
    expect(later.body.instances_online).toBe(0);
    expect(later.body.activity_24h).toEqual({ bookings: 0, orders: 0, quotes: 0, messages: 0 });
  });

  it('answers 304 to its ETag', async () => {
    const r = await t.get('/v1/stats');
    expect(r.headers.get('cache-control')).toMatch(/max-age=\d+/);
    expect((await t.get('/v1/stats', { 'if-none-match': r.headers.get('etag')! })).status).toBe(304);
  });
});

describe('the directory counts of a later hour', () => {
  it('stop counting a member\'s inbox as a door once it has not answered for a day, though no listing changed', async () => {
    const later = new TestClock(MONDAY);
    const d = await startDirectory({ listings: fixtures, clock: later });
    try {
      await d.directory.search.hour();
      const first = (await d.get('/v1/stats')).body.directory;
      expect(first.doors.inbox).toBe(1);
      later.advance(2 * DAY);
      await d.directory.search.hour();
      const second = (await d.get('/v1/stats')).body.directory;
      expect(second.as_of).toBe(new Date(MONDAY + 2 * DAY).toISOString());
      expect(second.doors.inbox).toBe(0);
      expect(second).toMatchObject({ checked: first.checked, agent_ready: first.agent_ready, software_and_ai: first.software_and_ai });
      expect(second.doors.mcp).toBe(first.doors.mcp);
    } finally {
      await d.close();
    }
  });
});
