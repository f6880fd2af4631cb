import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildInbox, type Inbox } from '@svc/inbox';
import { TestClock, startDirectory, type TestDirectory } from './support/harness.js';
import { testDatabaseUrl } from '../../../test-support/test-database.js';
import { scheduleNetworkRegistrations } from '../../inbox/src/networks/network-jobs.js';
import { newKey, signAck } from './support/signed-inbox.js';

/** A real inbox registers with a real directory over HTTP on 127.0.0.1 and is listed. */
describe('an inbox registering itself with the directory', () => {
  let directory: TestDirectory;
  let inbox: Inbox;
  let inboxDir: string;
  let domain: string;
  // A moment with a fraction of a second, as a real clock reads: the signed calls' times are seconds
  // with a fraction, which PostgreSQL refused to compare with a bigint (every registration answered 500).
  const clock = new TestClock('2026-11-23T10:15:00.386Z');

  beforeAll(async () => {
    directory = await startDirectory({ clock, allowLocalInboxes: true, publicAtListenAddress: true });
    inboxDir = mkdtempSync(join(tmpdir(), 'e2e-inbox-'));
    // The inbox must know its own public URL before it listens, so it gets a fixed free port.
    const probe = await buildInbox({ dataDir: inboxDir, databaseUrl: await testDatabaseUrl('inbox', inboxDir), publicBaseUrl: 'http://127.0.0.1', logLevel: 'silent', runJobs: false });
    const address = await probe.http.listen({ host: '127.0.0.1', port: 0 });
    const port = new URL(address).port;
    await probe.close();
    inbox = await buildInbox({ dataDir: inboxDir, databaseUrl: await testDatabaseUrl('inbox', inboxDir), publicBaseUrl: `http://127.0.0.1:${port}`, logLevel: 'silent', runJobs: false, allowLocalNetworks: true, clock });
    await inbox.http.listen({ host: '127.0.0.1', port: Number(port) });
    domain = `127.0.0.1:${port}`;
    const origin = new URL(directory.baseUrl).origin;
    const owner = await import('@svc/inbox').then((m) => m.createOwnerKey(inbox.store, 'e2e', clock.now()));
    const put = await fetch(`http://127.0.0.1:${port}/v1/owner/settings`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${owner.value}`, 'content-type': 'application/json' },
      body: JSON.stringify({ settings: { networks: { [origin]: { enabled: true } } } }),
    });
    expect(put.status).toBe(200);
  });

  afterAll(async () => {
    await inbox.close();
    await directory.close();
    rmSync(inboxDir, { recursive: true, force: true });
  });

  /** The inbox's owner view of this network (get_networks). */
  const networkEntry = async () => {
    const owner = await import('@svc/inbox').then((m) => m.createOwnerKey(inbox.store, `e2e-${clock.now()}`, clock.now()));
    const r = await fetch(`http://${domain}/v1/owner/networks`, { headers: { authorization: `Bearer ${owner.value}` } });
    const body = (await r.json()) as { networks: { origin: string; [k: string]: any }[] };
    return body.networks.find((n) => n.origin === new URL(directory.baseUrl).origin)!;
  };

  it('registers signed by its own job, is verified from its manifest, pings signed and keeps the standing answered, and appears in the next hour\'s order', async () => {
    // The inbox's registration job signs with the inbox's own key; the directory's job fetches the manifest.
    expect(await scheduleNetworkRegistrations(inbox.store, clock.now())).toBe(1);
    await inbox.jobs.runDue();
    expect((await directory.get(`/v1/instances/${domain}/status`)).body.status).toBe('pending');
    await directory.directory.jobs.runDue();
    const status = await directory.get(`/v1/instances/${domain}/status`);
    expect(status.body).toMatchObject({ domain, status: 'verified', listed: true });

    // The first ping follows two seconds after registration: signed, answered 200 with the standing.
    clock.advance(3_000);
    await inbox.jobs.runDue();
    const entry = await networkEntry();
    expect(entry).toMatchObject({ verification: 'verified', last_error: null, rules: expect.any(Number), ping_signature: { state: 'verified' } });
    expect(entry.standing).toMatchObject({ tier: 'new', score: 0, ranked: false, kept: 0, broken: 0, customers: 0, as_of: null });
    expect(entry.last_ping_at).toBe(new Date(clock.now()).toISOString());
    const listing = await directory.get(`/v1/businesses/${domain}`);
    expect(listing.status).toBe(200);
    expect(listing.body).toMatchObject({ source: 'member', answering: true, has_inbox: true, item_types: expect.arrayContaining(['booking']) });

    clock.advance(3_600_000);
    const page = await directory.get('/v1/businesses?source=member');
    expect(page.body.businesses.map((b: { domain: string }) => b.domain)).toContain(domain);
  });

  it('a booking confirmed and completed at the inbox: its receipts, published signed with an acknowledgement, show on the listing, and the snapshot scores them as the rules say', async () => {
    const owner = await import('@svc/inbox').then((m) => m.createOwnerKey(inbox.store, 'e2e-receipts', clock.now()));
    const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = { authorization: `Bearer ${owner.value}` }) => {
      const r = await fetch(`http://${domain}${path}`, { method, headers: { ...headers, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      return { status: r.status, body: (await r.json()) as any };
    };
    expect((await call('PATCH', '/v1/owner/profile', { profile: { name: 'Salão E2E', timeZone: 'Europe/Lisbon' } })).status).toBe(200);
    const everyDay = [1, 2, 3, 4, 5, 6, 7].map((dayOfWeek) => ({ dayOfWeek, opens: '06:00', closes: '23:00' }));
    expect((await call('PUT', '/v1/owner/availability/hours', { openingHours: everyDay })).status).toBe(200);
    const service = await call('POST', '/v1/owner/services', { service: { id: 'corte', name: 'Corte', durationMinutes: 30, priceModel: 'fixed', price: 2_000 } });
    expect(service.status, JSON.stringify(service.body)).toBe(201);

    // A customer books; the business confirms, and completes it once it has started.
    clock.set('2026-11-23T12:00:00.386Z');
    const booked = await call('POST', '/v1/bookings', { payload: { serviceId: 'corte', startTime: '2026-11-24T10:00:00Z' }, contact: { name: 'Ana Silva', email: 'ana@example.com' } }, {});
    expect(booked.status, JSON.stringify(booked.body)).toBe(201);
    expect((await call('POST', `/v1/owner/items/${booked.body.id}/transitions`, { event: 'confirm' })).status).toBe(200);
    clock.set('2026-11-24T11:00:00.386Z');
    expect((await call('POST', `/v1/owner/items/${booked.body.id}/transitions`, { event: 'complete' })).status).toBe(200);
    const receipts = (await call('GET', `/v1/owner/items/${booked.body.id}`)).body.receipts as { receipt_id: string; jws: string; kind: string }[];
    expect(receipts.map((r) => r.kind)).toEqual(['confirmed', 'outcome']);

    // The inbox's publication job sends both, signed with its own key.
    clock.set('2026-11-24T11:05:00.386Z');
    while ((await inbox.jobs.runDue()) > 0);
    // The listing follows its tally a moment later (listing-sync.ts), at once at the job runner's pass.
    await directory.directory.jobs.runDue();
    expect((await directory.get(`/v1/businesses/${domain}`)).body.receipts).toMatchObject({ issued: 2, acknowledged: 0, customers: 1 });

    // The customer's agent acknowledges the outcome at the inbox; the inbox publishes it again with its acknowledgement.
    const agent = newKey();
    const outcome = receipts.find((r) => r.kind === 'outcome')!;
    const acked = await call('POST', `/v1/items/${booked.body.id}/receipt-ack`, { ack: signAck(agent, outcome.jws, Math.floor(clock.now() / 1000)) }, { 'x-access-token': booked.body.accessToken });
    expect(acked.status, JSON.stringify(acked.body)).toBe(200);
    while ((await inbox.jobs.runDue()) > 0);
    await directory.directory.jobs.runDue();
    const shown = (await directory.get(`/v1/businesses/${domain}`)).body;
    expect(shown.receipts).toEqual({ issued: 2, acknowledged: 1, customers: 1, last_at: new Date(clock.now()).toISOString() });
    expect(shown.outcomes).toEqual({ 'booking.completed': 1 });
    expect((await networkEntry()).receipts).toMatchObject({ published: 2, waiting: 0, held: 0, refused: 0, acknowledgements_sent: 1 });

    // The night 30 days after verification: one piece, kept, acknowledged, unpaid (e = 0.7), fresh (t = 1),
    // one customer (r = 1): K = 0.7, n = 0.7 (within the release of 30 units), p = 1 → n / (n + z²).
    clock.set('2026-12-24T00:00:00.386Z');
    while ((await inbox.jobs.runDue()) > 0);
    while ((await directory.directory.jobs.runDue()) > 0);
    const expected = Math.round((0.7 / (0.7 + 1.2816 ** 2)) * 1e6) / 1e6;
    expect((await directory.get(`/v1/businesses/${domain}`)).body.reputation).toEqual({
      ranked: false,
      score: expected,
      tier: 'new',
      kept: 1,
      broken: 0,
      customers: 1,
      verified_share: 1,
      rules: 7,
      rules_url: `${directory.publicUrl}/v1/ranking?version=7`,
    });
    // The inbox's next hourly ping brings the night's standing home.
    clock.advance(3_600_000);
    while ((await inbox.jobs.runDue()) > 0);
    const entry = await networkEntry();
    expect(entry.standing).toMatchObject({ tier: 'new', score: expected, kept: 1, customers: 1, as_of: '2026-12-24T00:00:00.000Z' });
    expect(entry.receipts.network_says).toMatchObject({ accepted: 2, acknowledged: 1 });
    expect(entry.rules).toBe(7);
  });
});
