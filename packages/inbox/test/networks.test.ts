/**
 * Reporting to networks and get_networks (inbox spec §2 "Network entry", §4; docs/receipts.md
 * "Signed instance requests", "What get_networks shows"): registration and hourly pings are signed
 * with svc-instance/1 under the receipt key, which a fake network on 127.0.0.1 checks with the shared
 * verifier and with http-message-signatures; the standing a signed ping answers is kept and shown,
 * with what became of the ping's signature; failures are shown in a few words and never stop the
 * reporting. Jobs are driven by hand with the test clock.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { jsonClient } from '../../../test-support/http-client.js';
import { testDatabaseUrl } from '../../../test-support/test-database.js';
import { buildInbox, type Inbox } from '../src/app.js';
import { createOwnerKey } from '../src/domain/access/api-keys.js';
import { FakeNetwork } from './support/fake-network.js';
import { TestClock, type TestInbox } from './support/harness.js';
import { makeKey, setSecurity, withKey } from './support/integration-keys.js';

const HOUR = 3_600_000;

describe('get_networks and signed reporting', () => {
  let inbox: Inbox;
  let dataDir: string;
  let clock: TestClock;
  let network: FakeNetwork;
  let origin: string;
  let address: string;
  /** What the key helpers need: plain requests and the owner's. */
  let t: Pick<TestInbox, 'request' | 'owner' | 'baseUrl' | 'ownerKey'>;

  beforeEach(async () => {
    clock = new TestClock();
    dataDir = mkdtempSync(join(tmpdir(), 'inbox-networks-'));
    inbox = await buildInbox({ dataDir, databaseUrl: await testDatabaseUrl('inbox', dataDir), publicBaseUrl: 'http://127.0.0.1', clock, logLevel: 'silent', runJobs: false, allowLocalNetworks: true });
    const ownerKey = (await createOwnerKey(inbox.store, 'owner', clock.now())).value;
    address = await inbox.http.listen({ host: '127.0.0.1', port: 0 });
    const request = jsonClient(address);
    t = { request, owner: withKey({ request }, ownerKey), baseUrl: address, ownerKey };
    network = new FakeNetwork(() => address, () => clock.now());
    origin = await network.start();
  });
  afterEach(async () => {
    await inbox.close();
    await network.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const networks = async () => {
    const r = await t.owner('GET', '/v1/owner/networks');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.networks as any[];
  };
  const entry = async () => (await networks()).find((n) => n.origin === origin);
  const enable = async (entries: Record<string, unknown>) => {
    const r = await t.owner('PUT', '/v1/owner/settings', { body: { settings: { networks: entries } } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  };
  const activeKid = async () => (await t.owner('GET', '/v1/owner/signing-keys')).body.keys.find((k: any) => k.status === 'active').kid as string;

  it('lists nothing before a network is set, and needs a key', async () => {
    expect(await networks()).toEqual([]);
    expect((await t.request('GET', '/v1/owner/networks')).status).toBe(401);
  });

  it('registers and pings signed; shows verification, the standing and the ping signature; unknown parts null with a reason', async () => {
    await enable({ [origin]: { enabled: true, issue: true }, 'https://off.example': { enabled: false } });
    const before = await networks();
    expect(before.map((n) => n.origin)).toEqual([origin, 'https://off.example'].sort());
    const fresh = before.find((n) => n.origin === origin);
    expect(fresh).toMatchObject({
      enabled: true,
      issue: true,
      gets: ['registration', 'hourly_ping', 'change_notices', 'receipts', 'presented_passes', 'first_time_customer_addresses'],
      verification: null,
      verified: null,
      registered_at: null,
      last_ping_at: null,
      last_error: null,
      rules: null,
      standing: null,
      ping_signature: null,
      receipts: { published: 0, waiting: 0, held: 0, refused: 0, acknowledgements_sent: 0, last_published_at: null, last_refusal: null, next_attempt_at: null, network_says: null },
    });
    expect(Object.keys(fresh.not_known).sort()).toEqual(['ping_signature', 'rules', 'standing']);
    expect(before.find((n) => n.origin === 'https://off.example')).toMatchObject({ enabled: false, issue: false, gets: [], verified: null });

    // Registration, signed: the network says pending.
    await inbox.jobs.runDue();
    expect(network.paths()).toEqual(['POST /v1/instances']);
    const kid = await activeKid();
    expect(network.calls[0]).toMatchObject({ body: { domain: '127.0.0.1' }, shared: { ok: true, instance: 'http://127.0.0.1', keyid: kid }, library: true });
    const registeredAt = new Date(clock.now()).toISOString();
    expect(await entry()).toMatchObject({ registered_at: registeredAt, verification: 'pending', verified: false, last_ping_at: null });

    // The first ping follows, signed; it answers the standing; the status read after it says verified.
    network.status = { status: 'verified', verified_at: '2026-11-23T10:00:01Z', listed: true };
    clock.advance(3_000);
    await inbox.jobs.runDue();
    expect(network.paths().slice(1)).toEqual(['POST /v1/instances/127.0.0.1/ping', 'GET /v1/instances/127.0.0.1/status']);
    expect(network.calls[1]).toMatchObject({ body: { version: expect.any(String), counts: expect.any(Object) }, shared: { ok: true, keyid: kid }, library: true });
    const pingedAt = new Date(clock.now()).toISOString();
    const after = await entry();
    expect(after).toMatchObject({
      verification: 'verified',
      verified: true,
      verified_at: '2026-11-23T10:00:01.000Z',
      listed: true,
      status_checked_at: pingedAt,
      last_ping_at: pingedAt,
      last_error: null,
      rules: 7,
      standing: { tier: 'building', score: 0.42, ranked: false, kept: 3, broken: 0, customers: 2, as_of: '2026-11-23T03:00:00.000Z', reported_at: pingedAt },
      ping_signature: { state: 'verified', reason: null, at: pingedAt },
      receipts: { network_says: { accepted: 0, acknowledged: 0, at: pingedAt } },
    });
    expect(after.not_known).toEqual({});
  });

  it('signs with the key active at the moment: a rotation takes effect at the next ping', async () => {
    await enable({ [origin]: { enabled: true } });
    // A network that issues no customer keys is never sent a customer's address.
    expect((await networks())[0].gets).toEqual(['registration', 'hourly_ping', 'change_notices', 'receipts', 'presented_passes']);
    await inbox.jobs.runDue();
    clock.advance(3_000);
    await inbox.jobs.runDue();
    const first = await activeKid();
    const rotated = await t.owner('POST', '/v1/owner/signing-keys/rotate', { body: {} });
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
    const second = await activeKid();
    expect(second).not.toBe(first);
    clock.advance(HOUR);
    await inbox.jobs.runDue();
    const pings = network.calls.filter((c) => c.path.endsWith('/ping'));
    // The rotation changed the manifest (its keys): a change notice goes too, a ping like the hourly one; both with the new key.
    expect(pings[0]!.keyid).toBe(first);
    expect(pings.length).toBeGreaterThanOrEqual(2);
    expect(pings.slice(1).every((c) => c.keyid === second)).toBe(true);
    expect(pings.every((c) => c.shared.ok && c.library === true)).toBe(true);
  });

  it('keeps the standing until a signed ping says otherwise, and says what became of each signature', async () => {
    await enable({ [origin]: { enabled: true } });
    await inbox.jobs.runDue();
    clock.advance(3_000);
    await inbox.jobs.runDue();
    const reportedAt = new Date(clock.now()).toISOString();
    expect((await entry()).standing.reported_at).toBe(reportedAt);

    // A network that takes the ping as unsigned, and says why.
    network.pingSvcSignature = 'invalid; reason="expired"';
    clock.advance(HOUR);
    await inbox.jobs.runDue();
    let now = new Date(clock.now()).toISOString();
    expect(await entry()).toMatchObject({ last_ping_at: now, ping_signature: { state: 'invalid', reason: 'expired', at: now }, standing: { tier: 'building', reported_at: reportedAt } });

    // One that does not check signatures at all.
    network.pingSvcSignature = null;
    network.standing = null;
    clock.advance(HOUR);
    await inbox.jobs.runDue();
    now = new Date(clock.now()).toISOString();
    expect(await entry()).toMatchObject({ ping_signature: { state: 'not_checked', reason: null }, standing: { tier: 'building', reported_at: reportedAt } });

    // One that cannot find our key: the ping is refused (401) and does not count.
    network.standing = { tier: 'trusted', score: 0.9, ranked: true, kept: 40, broken: 1, customers: 30, as_of: '2026-11-23T03:00:00.000Z' };
    network.knowsKeys = false;
    const lastGoodPing = now;
    clock.advance(HOUR);
    await inbox.jobs.runDue();
    now = new Date(clock.now()).toISOString();
    const refused = await entry();
    expect(refused).toMatchObject({ last_ping_at: lastGoodPing, ping_signature: { state: 'refused', reason: 'unknown_key', at: now }, standing: { tier: 'building' } });
    expect(refused.last_error.message).toMatch(/^ping: the network answered HTTP 401 unauthorized/);

    // Once it finds the key again, the next ping (sooner than an hour: a failure is retried) brings the new standing.
    network.knowsKeys = true;
    clock.advance(HOUR);
    await inbox.jobs.runDue();
    expect(await entry()).toMatchObject({ ping_signature: { state: 'verified' }, standing: { tier: 'trusted', score: 0.9, ranked: true } });
  });

  it('keeps the last error in a few words beside the last ping that went through; failures never stop the pings', async () => {
    await enable({ [origin]: { enabled: true } });
    await inbox.jobs.runDue();
    clock.advance(3_000);
    await inbox.jobs.runDue();
    const goodPing = new Date(clock.now()).toISOString();

    network.pingFailure = 500;
    clock.advance(HOUR);
    await inbox.jobs.runDue();
    const failed = await entry();
    expect(failed.last_ping_at).toBe(goodPing);
    expect(failed.last_error).toEqual({ message: 'ping: the network answered HTTP 500 unavailable: Not now.', at: new Date(clock.now()).toISOString() });

    // Down for a day: the ping keeps coming back, at most an hour apart, and is never given up.
    const pingsBefore = network.calls.filter((c) => c.path.endsWith('/ping')).length;
    for (let hour = 0; hour < 24; hour += 1) {
      // The wait doubles up to an hour, and a tenth more at most.
      clock.advance(HOUR + 7 * 60_000);
      await inbox.jobs.runDue();
    }
    expect(network.calls.filter((c) => c.path.endsWith('/ping')).length - pingsBefore).toBeGreaterThanOrEqual(24);
    expect((await inbox.store.jobs.list('network.ping')).map((j) => j.status)).toEqual(['pending']);

    // A status it cannot read does not undo a ping that went through.
    network.pingFailure = null;
    network.status = { status: 'something else' };
    clock.advance(HOUR + 7 * 60_000);
    await inbox.jobs.runDue();
    const after = await entry();
    expect(after.last_ping_at).toBe(new Date(clock.now()).toISOString());
    expect(after.last_error.message).toBe('status: the network answered a status we could not read');
    expect(after.verification).toBe('pending');
  });

  it('a network that cannot be reached shows why, and registration is tried again', async () => {
    await network.close();
    await enable({ [origin]: { enabled: true } });
    await inbox.jobs.runDue();
    const down = await entry();
    expect(down.registered_at).toBeNull();
    expect(down.last_error.message).toMatch(/^registration: /);
    expect(down.last_error.message.length).toBeLessThanOrEqual(200);
    expect((await inbox.store.jobs.list('network.register')).map((j) => j.status)).toEqual(['pending']);

    // Back on the same port, after hours: registered.
    const port = Number(new URL(origin).port);
    network = new FakeNetwork(() => address, () => clock.now());
    await network.listenOn(port);
    for (let i = 0; i < 12; i += 1) {
      clock.advance(HOUR);
      await inbox.jobs.runDue();
    }
    expect((await entry()).registered_at).not.toBeNull();
    expect(network.paths()[0]).toBe('POST /v1/instances');
  });

  it('a network that forgot this inbox is registered with again', async () => {
    await enable({ [origin]: { enabled: true } });
    await inbox.jobs.runDue();
    clock.advance(3_000);
    await inbox.jobs.runDue();
    network.status = { status: 'unknown' };
    clock.advance(HOUR);
    await inbox.jobs.runDue();
    await inbox.jobs.runDue();
    expect(network.paths().slice(-2)).toEqual(['POST /v1/instances/127.0.0.1/ping', 'POST /v1/instances']);
    expect((await entry()).last_error.message).toMatch(/no longer knew this inbox/);
  });

  it('needs settings:read: recorded for a key without it, refused when scopes are enforced', async () => {
    const readOnly = await makeKey(t, 'read_only');
    const automation = await makeKey(t, 'automation');
    expect((await withKey(t, readOnly.key)('GET', '/v1/owner/networks')).status).toBe(200);
    expect((await withKey(t, automation.key)('GET', '/v1/owner/networks')).status).toBe(200);
    const misses = await inbox.store.apiKeys.listScopeMisses([readOnly.id, automation.id]);
    expect(misses).toEqual([expect.objectContaining({ principalId: automation.id, operation: 'get_networks', scope: 'settings:read', refused: 0 })]);
    await setSecurity(t, { enforceScopes: true });
    const refused = await withKey(t, automation.key)('GET', '/v1/owner/networks');
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'not_allowed', scope: 'settings:read' });
  });
});
