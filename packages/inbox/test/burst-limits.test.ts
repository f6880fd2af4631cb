/**
 * Budgets for bursts (docs/security.md): an anonymous flood of creates is cut off at its budget with
 * 429 rate_limited, Retry-After and the RateLimit headers, over REST and the public MCP alike; reads,
 * sign-in codes and the owner each have their own budget, so a flood never locks the owner out;
 * X-Forwarded-For counts only when TRUST_PROXY says a proxy is in front.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jsonClient } from '../../../test-support/http-client.js';
import { buildInbox, type Inbox } from '../src/app.js';
import { createOwnerKey } from '../src/domain/access/api-keys.js';
import { seedDemoBusiness } from '../src/demo/seed-demo.js';
import { INBOX_BUDGETS } from '../src/doors/rest/rate-budgets.js';
import { TestClock } from './support/harness.js';
import { dropTestDatabase, testDatabaseUrl } from '../../../test-support/test-database.js';

/** A tenth of the embedded budgets: 3 creates, 60 reads, 2 code requests and 120 owner calls a minute. */
const SCALE = 0.1;

interface Started {
  inbox: Inbox;
  request: ReturnType<typeof jsonClient>;
  ownerKey: string;
  dataDir: string;
}
let running: Started | undefined;

async function start(options: { rateLimit: number; trustProxy?: boolean }): Promise<Started> {
  const dataDir = mkdtempSync(join(tmpdir(), 'inbox-bursts-'));
  const clock = new TestClock();
  const inbox = await buildInbox({ dataDir, databaseUrl: await testDatabaseUrl('inbox', dataDir), publicBaseUrl: 'http://127.0.0.1', clock, logLevel: 'silent', runJobs: false, ...options });
  await seedDemoBusiness({ store: inbox.store, clock });
  const ownerKey = (await createOwnerKey(inbox.store, 'bursts', clock.now())).value;
  const base = await inbox.http.listen({ host: '127.0.0.1', port: 0 });
  running = { inbox, request: jsonClient(base), ownerKey, dataDir };
  return running;
}

afterEach(async () => {
  if (!running) return;
  await running.inbox.close();
  rmSync(running.dataDir, { recursive: true, force: true });
  await dropTestDatabase('inbox', running.dataDir);
  running = undefined;
});

const message = (n: number) => ({ body: { message: `Hello ${n}`, contact: { name: 'Flood' } } });
const mcpHeaders = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
const createQuota = Math.round(INBOX_BUDGETS.create.max * SCALE);

describe('anonymous creates', () => {
  it('are cut off at the budget with 429, Retry-After and RateLimit headers; nothing over it is stored', async () => {
    const s = await start({ rateLimit: SCALE });
    const statuses: number[] = [];
    let refusal;
    for (let i = 0; i < createQuota + 4; i += 1) {
      const r = await s.request('POST', '/v1/messages', message(i));
      statuses.push(r.status);
      if (r.status === 201) {
        expect(r.headers.get('ratelimit-policy')).toBe(`"create";q=${createQuota};w=60`);
        expect(r.headers.get('ratelimit')).toMatch(new RegExp(`^"create";r=${createQuota - 1 - i};t=\\d+$`));
      } else refusal ??= r;
    }
    expect(statuses).toEqual([...Array(createQuota).fill(201), ...Array(4).fill(429)]);
    expect(refusal?.headers.get('content-type')).toContain('application/problem+json');
    expect(refusal?.body).toMatchObject({ status: 429, code: 'rate_limited' });
    const retryAfter = Number(refusal?.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refusal?.headers.get('ratelimit')).toMatch(/^"create";r=0;t=\d+$/);

    const items = await s.request('GET', '/v1/owner/items?type=message', { headers: { authorization: `Bearer ${s.ownerKey}` } });
    expect(items.status).toBe(200);
    expect(items.body.items).toHaveLength(createQuota);
  });

  it('share one budget between REST and the public MCP, while reads go on', async () => {
    const s = await start({ rateLimit: SCALE });
    for (let i = 0; i < createQuota; i += 1) expect((await s.request('POST', '/v1/messages', message(i))).status).toBe(201);
    const viaMcp = await s.request('POST', '/mcp', {
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'send_message', arguments: { message: 'over MCP', contact: { name: 'Flood' } } } },
      headers: mcpHeaders,
    });
    expect(viaMcp.status).toBe(429);
    expect(viaMcp.body.code).toBe('rate_limited');
    const list = await s.request('POST', '/mcp', { body: { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }, headers: mcpHeaders });
    expect(list.status).toBe(200);
    expect((await s.request('GET', '/v1/services')).status).toBe(200);
  });

  it('never lock the owner out, nor a monitor', async () => {
    const s = await start({ rateLimit: SCALE });
    for (let i = 0; i < createQuota + 5; i += 1) await s.request('POST', '/v1/messages', message(i));
    const owner = await s.request('GET', '/v1/owner/items', { headers: { authorization: `Bearer ${s.ownerKey}` } });
    expect(owner.status).toBe(200);
    expect(owner.headers.get('ratelimit-policy')).toBe(`"owner";q=${INBOX_BUDGETS.owner.max * SCALE};w=60`);
    for (let i = 0; i < 20; i += 1) expect((await s.request('GET', '/healthz')).status).toBe(200);
  });
});

describe('other budgets', () => {
  it('limit sign-in and token requests per address', async () => {
    const s = await start({ rateLimit: SCALE });
    const quota = Math.round(INBOX_BUDGETS.codes.max * SCALE);
    const statuses: number[] = [];
    for (let i = 0; i < quota + 1; i += 1) {
      statuses.push((await s.request('POST', '/oauth/token', { rawBody: 'grant_type=authorization_code&code=nope', headers: { 'content-type': 'application/x-www-form-urlencoded' } })).status);
    }
    expect(statuses.slice(0, quota).every((status) => status !== 429)).toBe(true);
    expect(statuses[quota]).toBe(429);
  });

  it('limit reads per address, apart from creates', async () => {
    const s = await start({ rateLimit: 0.01 });
    const quota = Math.round(INBOX_BUDGETS.read.max * 0.01);
    const statuses: number[] = [];
    for (let i = 0; i < quota + 1; i += 1) statuses.push((await s.request('GET', '/v1/business')).status);
    expect(statuses).toEqual([...Array(quota).fill(200), 429]);
    expect((await s.request('POST', '/v1/messages', message(0))).status).toBe(201);
  });

  it('are off at scale 0: no refusals and no RateLimit headers', async () => {
    const s = await start({ rateLimit: 0 });
    for (let i = 0; i < createQuota + 3; i += 1) {
      const r = await s.request('POST', '/v1/messages', message(i));
      expect(r.status).toBe(201);
      expect(r.headers.get('ratelimit')).toBeNull();
    }
  });
});

describe('client addresses', () => {
  it('ignore X-Forwarded-For unless a proxy is trusted', async () => {
    const s = await start({ rateLimit: SCALE });
    const statuses: number[] = [];
    for (let i = 0; i < createQuota + 1; i += 1) {
      statuses.push((await s.request('POST', '/v1/messages', { ...message(i), headers: { 'x-forwarded-for': `203.0.113.${i}` } })).status);
    }
    expect(statuses.at(-1)).toBe(429);
  });

  it('count each forwarded client apart behind a trusted proxy', async () => {
    const s = await start({ rateLimit: SCALE, trustProxy: true });
    for (let i = 0; i < createQuota; i += 1) {
      expect((await s.request('POST', '/v1/messages', { ...message(i), headers: { 'x-forwarded-for': '203.0.113.7' } })).status).toBe(201);
    }
    expect((await s.request('POST', '/v1/messages', { ...message(99), headers: { 'x-forwarded-for': '203.0.113.7' } })).status).toBe(429);
    expect((await s.request('POST', '/v1/messages', { ...message(100), headers: { 'x-forwarded-for': '198.51.100.1' } })).status).toBe(201);
    // IPv6 clients are counted by /64: another address in the same /64 shares the budget.
    for (let i = 0; i < createQuota; i += 1) {
      expect((await s.request('POST', '/v1/messages', { ...message(i), headers: { 'x-forwarded-for': `2001:db8:1:2::${i + 1}` } })).status).toBe(201);
    }
    expect((await s.request('POST', '/v1/messages', { ...message(0), headers: { 'x-forwarded-for': '2001:db8:1:2:ffff::1' } })).status).toBe(429);
  });
});
