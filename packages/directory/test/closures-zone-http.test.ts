/**
 * A closure is judged in the business's own time zone on the directory's side too (issue 20): a
 * business in Pacific/Honolulu (UTC-10) closed for its local today is shown closed, keeps the closure
 * in its hours and is left out of open_now=true while the UTC date is already tomorrow; once its
 * local day ends it is open again. Over REST and MCP, and end to end from a real inbox's manifest.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildInbox, createOwnerKey, type Inbox } from '@svc/inbox';
import { EVERY_DAY, domainsOf, hours, member } from './support/fixtures.js';
import { signedAsInbox } from './support/real-inbox.js';
import { TestClock, startDirectory, type TestDirectory } from './support/harness.js';
import { dropTestDatabase, testDatabaseUrl } from '../../../test-support/test-database.js';

// Monday 2026-11-23 19:00 in Honolulu; already Tuesday 05:00 in UTC.
const EVENING = Date.parse('2026-11-24T05:00:00Z');
const CLOSED = 'closed-today.example';
const OPEN = 'open-today.example';

describe('a closure for the local today, in Pacific/Honolulu', () => {
  const clock = new TestClock(EVENING);
  let t: TestDirectory;
  let client: Client;

  beforeAll(async () => {
    const week = { [EVERY_DAY]: [['06:00', '23:00']] as [string, string][] };
    t = await startDirectory({
      clock,
      answerWorkers: 0,
      listings: [
        member(CLOSED, { name: 'Closed Today', hours: hours('Pacific/Honolulu', week, [{ from: '2026-11-23', to: '2026-11-23' }]) }, EVENING),
        member(OPEN, { name: 'Open Today', hours: hours('Pacific/Honolulu', week) }, EVENING),
      ],
    });
    client = new Client({ name: 'closures-zone-test', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`)));
  });

  afterAll(async () => {
    await client?.close();
    await t?.close();
  });

  it('is shown closed with the closure in its hours, on its page, in a search and through MCP', async () => {
    const detail = await t.get(`/v1/businesses/${CLOSED}`);
    expect(detail.body.open_now).toBe(false);
    expect(detail.body.hours.closures).toEqual([{ from: '2026-11-23', to: '2026-11-23' }]);
    const page = await t.get('/v1/businesses?limit=10');
    const shown = page.body.businesses.find((b: { domain: string }) => b.domain === CLOSED);
    expect(shown.open_now).toBe(false);
    expect(shown.hours.closures).toEqual([{ from: '2026-11-23', to: '2026-11-23' }]);
    expect(page.body.businesses.find((b: { domain: string }) => b.domain === OPEN).open_now).toBe(true);
    const tool = await client.callTool({ name: 'get_business', arguments: { domain: CLOSED } });
    expect(tool.structuredContent).toMatchObject({ open_now: false, hours: { closures: [{ from: '2026-11-23', to: '2026-11-23' }] } });
  });

  it('is left out of open_now=true', async () => {
    expect(domainsOf((await t.get('/v1/businesses?open_now=true')).body)).toEqual([OPEN]);
    const tool = await client.callTool({ name: 'search_businesses', arguments: { open_now: true } });
    expect(domainsOf(tool.structuredContent as { businesses: { domain: string }[] })).toEqual([OPEN]);
  });

  it('is open again once its local day has ended, and the closure is gone from its hours', async () => {
    clock.set('2026-11-24T09:59:00Z'); // 23:59 in Honolulu, past closing (23:00) anyway
    expect((await t.get(`/v1/businesses/${CLOSED}`)).body.hours.closures).toEqual([{ from: '2026-11-23', to: '2026-11-23' }]);
    clock.set('2026-11-24T16:30:00Z'); // Tuesday 06:30 in Honolulu
    const detail = await t.get(`/v1/businesses/${CLOSED}`);
    expect(detail.body.open_now).toBe(true);
    expect(detail.body.hours.closures).toEqual([]);
    expect(domainsOf((await t.get('/v1/businesses?open_now=true')).body).sort()).toEqual([CLOSED, OPEN]);
  });
});

/** A real inbox in Honolulu with a closure for its local today registers; the directory shows it closed. */
describe('from a real inbox\'s manifest to the directory', () => {
  const clock = new TestClock(EVENING);
  let directory: TestDirectory;
  let inbox: Inbox;
  let inboxDir: string;
  let domain: string;

  beforeAll(async () => {
    directory = await startDirectory({ clock, allowLocalInboxes: true, answerWorkers: 0, publicAtListenAddress: true });
    inboxDir = mkdtempSync(join(tmpdir(), 'closures-inbox-'));
    const databaseUrl = await testDatabaseUrl('inbox', inboxDir);
    const probe = await buildInbox({ dataDir: inboxDir, databaseUrl, publicBaseUrl: 'http://127.0.0.1', logLevel: 'silent', runJobs: false });
    const port = new URL(await probe.http.listen({ host: '127.0.0.1', port: 0 })).port;
    await probe.close();
    inbox = await buildInbox({ dataDir: inboxDir, databaseUrl, publicBaseUrl: `http://127.0.0.1:${port}`, logLevel: 'silent', runJobs: false, allowLocalNetworks: true, clock });
    await inbox.http.listen({ host: '127.0.0.1', port: Number(port) });
    domain = `127.0.0.1:${port}`;
    const owner = await createOwnerKey(inbox.store, 'closures', clock.now());
    const call = (method: string, path: string, body: unknown) =>
      fetch(`http://127.0.0.1:${port}${path}`, { method, headers: { authorization: `Bearer ${owner.value}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await call('PATCH', '/v1/owner/profile', { profile: { name: 'Aloha Salon', timeZone: 'Pacific/Honolulu' } })).status).toBe(200);
    const everyDay = [1, 2, 3, 4, 5, 6, 7].map((dayOfWeek) => ({ dayOfWeek, opens: '06:00', closes: '23:00' }));
    expect((await call('PUT', '/v1/owner/availability/hours', { openingHours: everyDay })).status).toBe(200);
    expect((await call('PUT', '/v1/owner/availability/closures', { closures: [{ startDate: '2026-11-23', endDate: '2026-11-23' }] })).status).toBe(200);
    const origin = new URL(directory.baseUrl).origin;
    expect((await call('PUT', '/v1/owner/settings', { settings: { networks: { [origin]: { enabled: true } } } })).status).toBe(200);
  });

  afterAll(async () => {
    await inbox?.close();
    await directory?.close();
    rmSync(inboxDir, { recursive: true, force: true });
    await dropTestDatabase('inbox', inboxDir);
  });

  it('lists it with the closure and open_now false, though the UTC date is already the next day', async () => {
    // Registered as its registration job does, signed with its own key.
    expect((await signedAsInbox(directory, inbox, `http://${domain}`, 'POST', '/v1/instances', { domain })).status).toBe(202);
    await directory.directory.jobs.runDue();
    expect((await directory.get(`/v1/instances/${domain}/status`)).body).toMatchObject({ status: 'verified', listed: true });
    const listing = await directory.get(`/v1/businesses/${domain}`);
    expect(listing.status).toBe(200);
    expect(listing.body.hours).toMatchObject({ timezone: 'Pacific/Honolulu', closures: [{ from: '2026-11-23', to: '2026-11-23' }] });
    expect(listing.body.open_now).toBe(false);
    expect(domainsOf((await directory.get('/v1/businesses?open_now=true')).body)).not.toContain(domain);
  });
});
