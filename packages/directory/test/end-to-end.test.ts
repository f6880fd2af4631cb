import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildInbox, type Inbox } from '@svc/inbox';
import { TestClock, startDirectory, type TestDirectory } from './support/harness.js';
import { signedAsInbox } from './support/real-inbox.js';
import { newKey, signAck } from './support/signed-inbox.js';

/** A real inbox registers with a real directory over HTTP on 127.0.0.1 and is listed. */
describe('an inbox registering itself with the directory', () => {
  let directory: TestDirectory;
  let inbox: Inbox;
  let inboxDir: string;
  let domain: string;
  const clock = new TestClock();

  beforeAll(async () => {
    directory = await startDirectory({ clock, allowLocalInboxes: true, publicAtListenAddress: true });
    inboxDir = mkdtempSync(join(tmpdir(), 'e2e-inbox-'));
    // The inbox must know its own public URL before it listens, so it gets a fixed free port.
    const probe = await buildInbox({ dataDir: inboxDir, publicBaseUrl: 'http://127.0.0.1', logLevel: 'silent', runJobs: false });
    const address = await probe.http.listen({ host: '127.0.0.1', port: 0 });
    const port = new URL(address).port;
    await probe.close();
    inbox = await buildInbox({ dataDir: inboxDir, publicBaseUrl: `http://127.0.0.1:${port}`, logLevel: 'silent', runJobs: false, allowLocalNetworks: true, clock });
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

  it('registers, is verified from its manifest, pings, and appears in the next hour\'s order', async () => {
    // The inbox registers, signing with its own key as its registration job does; the directory's job fetches the manifest.
    expect((await signedAsInbox(directory, inbox, `http://${domain}`, 'POST', '/v1/instances', { domain })).status).toBe(202);
    expect((await directory.get(`/v1/instances/${domain}/status`)).body.status).toBe('pending');
    await directory.directory.jobs.runDue();
    const status = await directory.get(`/v1/instances/${domain}/status`);
    expect(status.body).toMatchObject({ domain, status: 'verified', listed: true });

    clock.advance(3_000);
    const ping = await signedAsInbox(directory, inbox, `http://${domain}`, 'POST', `/v1/instances/${domain}/ping`, { version: '0.1.0', runtime: 'node' });
    expect(ping.status).toBe(200);
    expect(ping.body).toMatchObject({ ok: true, standing: { tier: 'new' }, receipts: { accepted: 0 } });
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
    clock.set('2026-11-23T12:00:00Z');
    const booked = await call('POST', '/v1/bookings', { payload: { serviceId: 'corte', startTime: '2026-11-24T10:00:00Z' }, contact: { name: 'Ana Silva', email: 'ana@example.com' } }, {});
    expect(booked.status, JSON.stringify(booked.body)).toBe(201);
    expect((await call('POST', `/v1/owner/items/${booked.body.id}/transitions`, { event: 'confirm' })).status).toBe(200);
    clock.set('2026-11-24T11:00:00Z');
    expect((await call('POST', `/v1/owner/items/${booked.body.id}/transitions`, { event: 'complete' })).status).toBe(200);
    const receipts = (await call('GET', `/v1/owner/items/${booked.body.id}`)).body.receipts as { receipt_id: string; jws: string; kind: string }[];
    expect(receipts.map((r) => r.kind)).toEqual(['confirmed', 'outcome']);

    // Published as the inbox publishes them, signed with its own key; the customer's agent acknowledged the outcome.
    clock.set('2026-11-24T11:05:00Z');
    const agent = newKey();
    for (const receipt of receipts) {
      const body = receipt.kind === 'outcome' ? { receipt: receipt.jws, ack: signAck(agent, receipt.jws, Math.floor(clock.now() / 1000)) } : { receipt: receipt.jws };
      const r = await signedAsInbox(directory, inbox, `http://${domain}`, 'POST', '/v1/receipts', body);
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      expect(r.body).toMatchObject({ receipt_id: receipt.receipt_id, counted: true, state: receipt.kind === 'outcome' ? 'acknowledged' : 'issued' });
    }
    await directory.directory.jobs.runDue();
    const shown = (await directory.get(`/v1/businesses/${domain}`)).body;
    expect(shown.receipts).toEqual({ issued: 2, acknowledged: 1, customers: 1, last_at: new Date(clock.now()).toISOString() });
    expect(shown.outcomes).toEqual({ 'booking.completed': 1 });

    // The night 30 days after verification: one piece, kept, acknowledged, unpaid (e = 0.7), fresh (t = 1),
    // one customer (r = 1): K = 0.7, n = 0.7 (within the release of 30 units), p = 1 → n / (n + z²).
    clock.set('2026-12-24T00:00:00Z');
    await signedAsInbox(directory, inbox, `http://${domain}`, 'POST', `/v1/instances/${domain}/ping`, {});
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
    const standing = await signedAsInbox(directory, inbox, `http://${domain}`, 'POST', `/v1/instances/${domain}/ping`, {});
    expect(standing.body.standing).toMatchObject({ tier: 'new', score: expected, kept: 1, as_of: '2026-12-24T00:00:00.000Z' });
    expect(standing.body.receipts).toEqual({ accepted: 2, acknowledged: 1 });
  });
});
