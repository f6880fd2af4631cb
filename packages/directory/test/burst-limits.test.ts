/**
 * Budgets for bursts on the directory (docs/security.md): searches and MCP reads share one budget
 * per address, writes (registrations, pings) another, receipts published a third; a refusal is 429 rate_limited with
 * Retry-After and RateLimit headers; health checks are never limited.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jsonClient } from '../../../test-support/http-client.js';
import { buildDirectory, type Directory } from '../src/app.js';
import { DIRECTORY_BUDGETS } from '../src/doors/rest/rate-budgets.js';
import { TestClock } from './support/harness.js';
import { dropTestDatabase, testDatabaseUrl } from '../../../test-support/test-database.js';

const SCALE = 0.01;
let running: { directory: Directory; dataDir: string } | undefined;

async function start(rateLimit: number) {
  const dataDir = mkdtempSync(join(tmpdir(), 'directory-bursts-'));
  const directory = await buildDirectory({ dataDir, databaseUrl: await testDatabaseUrl('directory', dataDir), baseUrl: 'http://127.0.0.1', clock: new TestClock(), logLevel: 'silent', runJobs: false, hourlyTimer: false, answerWorkers: 0, rateLimit });
  running = { directory, dataDir };
  return jsonClient(await directory.http.listen({ host: '127.0.0.1', port: 0 }));
}

afterEach(async () => {
  if (!running) return;
  await running.directory.close();
  rmSync(running.dataDir, { recursive: true, force: true });
  await dropTestDatabase('directory', running.dataDir);
  running = undefined;
});

const mcpHeaders = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };

describe('directory budgets', () => {
  it('cut a burst of searches off at the budget, REST and MCP together, and never health checks', async () => {
    const request = await start(SCALE);
    const quota = Math.round(DIRECTORY_BUDGETS.read.max * SCALE);
    for (let i = 0; i < quota - 1; i += 1) {
      const r = await request('GET', `/v1/businesses?q=cafe${i}`);
      expect(r.status).toBe(200);
      expect(r.headers.get('ratelimit-policy')).toBe(`"read";q=${quota};w=60`);
    }
    const viaMcp = await request('POST', '/mcp', { body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }, headers: mcpHeaders });
    expect(viaMcp.status).toBe(200);
    const refused = await request('GET', '/v1/businesses?q=more');
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ status: 429, code: 'rate_limited' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get('ratelimit')).toMatch(/^"read";r=0;t=\d+$/);
    expect((await request('GET', '/healthz')).status).toBe(200);
  });

  it('keep writes apart from reads', async () => {
    const request = await start(0.1);
    const quota = Math.round(DIRECTORY_BUDGETS.write.max * 0.1);
    const statuses: number[] = [];
    for (let i = 0; i < quota + 1; i += 1) statuses.push((await request('POST', `/v1/instances/flood${i}.example/ping`, { body: {} })).status);
    expect(statuses.slice(0, quota)).not.toContain(429);
    expect(statuses[quota]).toBe(429);
    expect((await request('GET', '/v1/businesses')).status).toBe(200);
  });

  it('count receipts published in a budget of their own, before any signature is checked', async () => {
    const request = await start(0.1);
    const quota = Math.round(DIRECTORY_BUDGETS.publish.max * 0.1);
    const statuses: number[] = [];
    for (let i = 0; i < quota + 1; i += 1) statuses.push((await request('POST', '/v1/receipts', { body: { receipt: 'x' } })).status);
    // Unsigned: refused for that, until the budget is spent.
    expect(new Set(statuses.slice(0, quota))).toEqual(new Set([401]));
    const refused = await request('POST', '/v1/receipts', { body: { receipt: 'x' } });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('ratelimit')).toMatch(/^"publish";r=0;t=\d+$/);
    // Registrations and pings keep their own budget.
    expect((await request('POST', '/v1/instances/shop.example/ping', { body: {} })).status).toBe(401);
  });
});
