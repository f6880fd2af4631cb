/**
 * A member's change seen in minutes (issue 38): the owner changes Saturday to close at 14:00, adds a
 * closure on 8 December and a new service; the inbox applied all three at once, but the directory
 * re-read members every six hours, so its page and JSON kept the old hours. Now the write queues a
 * change notice in its own transaction (a durable job, one per window however many changes), the
 * notice is a signed ping naming the new manifest's hash, and the directory reads the manifest again,
 * at most once a minute per member. A real inbox and a real directory over HTTP on 127.0.0.1, on
 * SQLite or PostgreSQL (TEST_POSTGRES_URL), with one clock both read.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildInbox, createOwnerKey, type Inbox } from '@svc/inbox';
import { TestClock, startDirectory, type TestDirectory } from './support/harness.js';
import { testDatabaseUrl } from '../../../test-support/test-database.js';
import { signInToApp } from '../../inbox/test/support/owner-app.js';
import { ACTIVITY_CHECK_EVERY_MS, CHANGE_JOB, scheduleNetworkRegistrations } from '../../inbox/src/networks/network-jobs.js';
import { CHANGE_WINDOW_MS } from '../../inbox/src/domain/publishing/published-change.js';
import { REREAD_AT_MOST_EVERY_MS, VERIFY_JOB } from '../src/domain/registration/instances.js';

const FIVE_MINUTES = 5 * 60_000;

describe('a member\'s change reaches the directory within minutes', () => {
  let directory: TestDirectory;
  let inbox: Inbox;
  let inboxDir: string;
  let domain: string;
  let owner: string;
  const clock = new TestClock('2026-11-23T10:15:07Z');

  const call = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(`http://${domain}${path}`, {
      method,
      headers: { authorization: `Bearer ${owner}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: r.status, body: (await r.json()) as any };
  };
  const networkEntry = async () => {
    const body = (await call('GET', '/v1/owner/networks')).body as { networks: { origin: string; [k: string]: any }[] };
    return body.networks.find((n) => n.origin === new URL(directory.baseUrl).origin)!;
  };
  const pendingJobs = async (kind: string) => (await inbox.store.jobs.list(kind)).filter((j) => j.status === 'pending');
  /** Runs both services' due jobs until neither has any left. */
  const runEverything = async () => {
    for (let round = 0; round < 10; round++) {
      const ran = (await inbox.jobs.runDue()) + (await directory.directory.jobs.runDue());
      if (ran === 0) return;
    }
  };
  const saturday = (listing: any) => listing.hours?.weekly?.sat;

  beforeAll(async () => {
    directory = await startDirectory({ clock, allowLocalInboxes: true, publicAtListenAddress: true });
    inboxDir = mkdtempSync(join(tmpdir(), 'changes-inbox-'));
    const probe = await buildInbox({ dataDir: inboxDir, databaseUrl: await testDatabaseUrl('inbox', inboxDir), publicBaseUrl: 'http://127.0.0.1', logLevel: 'silent', runJobs: false });
    const address = await probe.http.listen({ host: '127.0.0.1', port: 0 });
    const port = new URL(address).port;
    await probe.close();
    inbox = await buildInbox({ dataDir: inboxDir, databaseUrl: await testDatabaseUrl('inbox', inboxDir), publicBaseUrl: `http://127.0.0.1:${port}`, logLevel: 'silent', runJobs: false, allowLocalNetworks: true, clock });
    await inbox.http.listen({ host: '127.0.0.1', port: Number(port) });
    domain = `127.0.0.1:${port}`;
    owner = (await createOwnerKey(inbox.store, 'changes', clock.now())).value;

    // The salon as it stood: open Tuesday to Saturday, Saturday until 17:00, two services.
    expect((await call('PATCH', '/v1/owner/profile', { profile: { name: 'Salão Mudança', timeZone: 'Europe/Lisbon' } })).status).toBe(200);
    const week = [2, 3, 4, 5].map((dayOfWeek) => ({ dayOfWeek, opens: '09:30', closes: '19:30' }));
    expect((await call('PUT', '/v1/owner/availability/hours', { openingHours: [...week, { dayOfWeek: 6, opens: '09:00', closes: '17:00' }] })).status).toBe(200);
    expect((await call('POST', '/v1/owner/services', { service: { id: 'corte', name: 'Corte', durationMinutes: 30, priceModel: 'fixed', price: 2_000 } })).status).toBe(201);
    expect((await call('PUT', '/v1/owner/availability/closures', { closures: [{ startDate: '2026-12-24', endDate: '2026-12-26' }] })).status).toBe(200);
    // Changes made before any network is on tell nobody.
    expect(await pendingJobs(CHANGE_JOB)).toEqual([]);

    const put = await call('PUT', '/v1/owner/settings', { settings: { networks: { [new URL(directory.baseUrl).origin]: { enabled: true } } } });
    expect(put.status).toBe(200);
    await scheduleNetworkRegistrations(inbox.store, clock.now());
    await runEverything();
    clock.advance(3_000);
    await runEverything();
    expect((await directory.get(`/v1/instances/${domain}/status`)).body).toMatchObject({ status: 'verified', listed: true });
  }, 60_000);

  afterAll(async () => {
    await inbox?.close();
    await directory?.close();
    rmSync(inboxDir, { recursive: true, force: true });
  });

  it('shows the new hours, the new closure and the new service on the directory within five minutes, and the owner sees when it read them', async () => {
    const before = (await directory.get(`/v1/businesses/${domain}`)).body;
    expect(saturday(before)).toEqual([['09:00', '17:00']]);
    expect(before.hours.closures).toEqual([{ from: '2026-12-24', to: '2026-12-26' }]);
    // The first read was moments ago: a change now waits for the once-a-minute bound.
    const changedAt = clock.now();

    // Three changes in a row, as the owner makes them: one notice per network.
    const week = [2, 3, 4, 5].map((dayOfWeek) => ({ dayOfWeek, opens: '09:30', closes: '19:30' }));
    expect((await call('PUT', '/v1/owner/availability/hours', { openingHours: [...week, { dayOfWeek: 6, opens: '09:00', closes: '14:00' }] })).status).toBe(200);
    expect((await call('PUT', '/v1/owner/availability/closures', { closures: [{ startDate: '2026-12-08', endDate: '2026-12-08' }, { startDate: '2026-12-24', endDate: '2026-12-26' }] })).status).toBe(200);
    expect((await call('POST', '/v1/owner/services', { service: { id: 'madeixas', name: 'Madeixas', durationMinutes: 90, priceModel: 'from', price: 4_500 } })).status).toBe(201);
    const notices = await pendingJobs(CHANGE_JOB);
    expect(notices).toHaveLength(1);
    // The owner's writes sent nothing: the directory still shows the old hours.
    expect(saturday((await directory.get(`/v1/businesses/${domain}`)).body)).toEqual([['09:00', '17:00']]);
    expect(notices[0]!.runAt - changedAt).toBeLessThanOrEqual(CHANGE_WINDOW_MS);

    // The window ends: the notice goes (a signed ping with the new manifest's hash); the directory
    // answers when it reads the manifest again.
    clock.nowMs = notices[0]!.runAt;
    await inbox.jobs.runDue();
    const waiting = await networkEntry();
    expect(waiting).toMatchObject({ up_to_date: false, change_sent_at: new Date(clock.now()).toISOString() });
    expect(waiting.gets).toContain('change_notices');
    const reread = (await directory.directory.store.jobs.list(VERIFY_JOB)).find((j) => j.status === 'pending')!;
    expect(reread.runAt).toBeLessThanOrEqual(changedAt + REREAD_AT_MOST_EVERY_MS);

    // The directory reads it at its time; the inbox asks again just after and learns when.
    while (clock.now() < changedAt + FIVE_MINUTES) {
      clock.advance(5_000);
      await runEverything();
      if (saturday((await directory.get(`/v1/businesses/${domain}`)).body)?.[0]?.[1] === '14:00') break;
    }
    const seenAt = clock.now();
    expect(seenAt - changedAt).toBeLessThan(FIVE_MINUTES);
    const after = (await directory.get(`/v1/businesses/${domain}`)).body;
    expect(saturday(after)).toEqual([['09:00', '14:00']]);
    expect(after.hours.closures).toEqual([
      { from: '2026-12-08', to: '2026-12-08' },
      { from: '2026-12-24', to: '2026-12-26' },
    ]);
    expect(after.services.map((s: { name: string }) => s.name)).toEqual(['Corte', 'Madeixas']);
    // The page a person reads says the same.
    const page = await (await fetch(`${directory.baseUrl}/businesses/${encodeURIComponent(domain)}`)).text();
    expect(page).toContain('09:00–14:00');
    expect(page).toContain('Madeixas');

    clock.advance(10_000);
    await runEverything();
    const entry = await networkEntry();
    expect(entry.up_to_date).toBe(true);
    expect(Date.parse(entry.last_read_at)).toBeGreaterThanOrEqual(changedAt);
    expect(Date.parse(entry.last_read_at)).toBeLessThanOrEqual(seenAt);
    const status = (await directory.get(`/v1/instances/${domain}/status`)).body;
    expect(status.last_checked_at).toBe(entry.last_read_at);
    // The owner app says it in words, on the networks screen.
    const app = await signInToApp(`http://${domain}`, owner);
    const screen = await app.get('/app/setup/networks');
    expect(screen.status).toBe(200);
    expect(screen.text).toContain('Last read your business');
    expect(screen.text).toContain('up to date');
    expect(screen.text).toContain('Last change sent');
  });

  it('reads a member\'s manifest at most once a minute however often it pings another hash, and never for a ping naming the one it holds', async () => {
    const jobs = directory.directory.store.jobs;
    const verifyAt = async () => (await jobs.list(VERIFY_JOB)).find((j) => j.status === 'pending')!.runAt;
    // Settled: the pending job is the six-hourly refresh.
    const settled = await verifyAt();
    expect(settled - clock.now()).toBeGreaterThan(60 * 60_000);
    // Another change: the ping names a new hash; the read waits for a minute after the last.
    expect((await call('POST', '/v1/owner/services', { service: { id: 'brushing', name: 'Brushing', durationMinutes: 30, priceModel: 'fixed', price: 1_500 } })).status).toBe(201);
    const lastRead = (await directory.directory.store.instances.get(domain))!.lastCheckedAt as number;
    clock.nowMs = (await pendingJobs(CHANGE_JOB)).find((j) => j.payload.followUp === undefined)!.runAt;
    await inbox.jobs.runDue();
    expect(await verifyAt()).toBe(Math.max(clock.now(), lastRead + REREAD_AT_MOST_EVERY_MS));
    const first = await verifyAt();
    // More notices in the same minute do not bring it forward.
    for (let i = 0; i < 3; i++) {
      expect((await call('POST', '/v1/owner/services', { service: { id: `extra-${i}`, name: `Extra ${i}`, durationMinutes: 30, priceModel: 'fixed', price: 1_000 } })).status).toBe(201);
      clock.advance(CHANGE_WINDOW_MS);
      await inbox.jobs.runDue();
      expect(await verifyAt()).toBe(first);
    }
    await runEverything();
  });

  it('counts the member\'s bookings of the last day within minutes, and the statistics page says what each count counts', async () => {
    await runEverything();
    const before = (await directory.get('/v1/stats')).body;
    // Thirteen bookings, as a customer's agent makes them (public REST, no key).
    for (let i = 0; i < 13; i++) {
      const start = new Date(Date.parse('2026-12-01T09:30:00Z') + i * 30 * 60_000).toISOString();
      const r = await fetch(`http://${domain}/v1/bookings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ payload: { serviceId: 'corte', startTime: start }, contact: { name: `Cliente ${i}`, email: `cliente${i}@example.com` } }),
      });
      expect(r.status, await r.text()).toBe(201);
    }
    // Within the inbox's activity check (five minutes), it pings with the day's counts.
    clock.advance(ACTIVITY_CHECK_EVERY_MS);
    await runEverything();
    const stats = (await directory.get('/v1/stats')).body;
    expect(stats.activity_24h.bookings - before.activity_24h.bookings).toBe(13);
    expect(stats.activity_24h.bookings).toBe(13);
    // The page shows the same numbers, each in words; no raw keys, no ISO instants.
    for (const lang of ['en', 'pt']) {
      const page = await (await fetch(`${directory.baseUrl}/stats${lang === 'pt' ? '?lang=pt' : ''}`)).text();
      expect(page).toMatch(/data-json="activity_24h\.bookings">13</);
      expect(page).toMatch(lang === 'en' ? /Bookings asked for/ : /Marcações pedidas/);
      expect(page).not.toMatch(/Api ok|>Mcp<|>Activity 24h<|\d{4}-\d\d-\d\dT\d\d:/);
      expect(page).toMatch(new RegExp(`data-json="instances_online">${stats.instances_online}<`));
    }
  });
});
