/**
 * get_networks (inbox spec §2 "Network entry", §4): per network in settings, on/off, `issue`, what
 * it gets, whether it verified this instance, the last ping and the last error in a few words, from
 * what the reporting jobs record. A fake directory network on 127.0.0.1 answers registration,
 * pings and status; jobs are driven by hand with the test clock.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { jsonClient } from '../../../test-support/http-client.js';
import { buildInbox, type Inbox } from '../src/app.js';
import { createOwnerKey } from '../src/domain/access/api-keys.js';
import { TestClock, type TestInbox } from './support/harness.js';
import { makeKey, setSecurity, withKey } from './support/integration-keys.js';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/** A directory network that answers as told and remembers what it was sent. */
class FakeNetwork {
  readonly calls: string[] = [];
  status: Record<string, unknown> = { status: 'pending', verified_at: null, listed: false };
  pingStatus = 204;
  #server: Server;
  constructor() {
    const handle: Handler = (request, response) => {
      this.calls.push(`${request.method} ${request.url}`);
      const send = (code: number, body?: unknown) => {
        response.writeHead(code, body === undefined ? {} : { 'content-type': 'application/json' });
        response.end(body === undefined ? undefined : JSON.stringify(body));
      };
      if (request.method === 'POST' && request.url === '/v1/instances') return send(202, { domain: '127.0.0.1', status: 'pending' });
      if (request.method === 'POST' && request.url?.endsWith('/ping')) return send(this.pingStatus);
      if (request.method === 'GET' && request.url?.endsWith('/status')) return send(200, { domain: '127.0.0.1', ...this.status });
      return send(404, { code: 'not_found' });
    };
    this.#server = createServer((request, response) => {
      request.resume();
      request.on('end', () => handle(request, response));
    });
  }
  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }
  close(): Promise<void> {
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}

describe('get_networks', () => {
  let inbox: Inbox;
  let dataDir: string;
  let clock: TestClock;
  let network: FakeNetwork;
  let origin: string;
  /** What the key helpers need: plain requests and the owner's. */
  let t: Pick<TestInbox, 'request' | 'owner' | 'baseUrl' | 'ownerKey'>;

  beforeEach(async () => {
    clock = new TestClock();
    dataDir = mkdtempSync(join(tmpdir(), 'inbox-networks-'));
    inbox = await buildInbox({ dataDir, publicBaseUrl: 'http://127.0.0.1', clock, logLevel: 'silent', runJobs: false, allowLocalNetworks: true });
    const ownerKey = (await createOwnerKey(inbox.store, 'owner', clock.now())).value;
    const baseUrl = await inbox.http.listen({ host: '127.0.0.1', port: 0 });
    const request = jsonClient(baseUrl);
    t = { request, owner: withKey({ request }, ownerKey), baseUrl, ownerKey };
    network = new FakeNetwork();
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
  const enable = async (entries: Record<string, unknown>) => {
    const r = await t.owner('PUT', '/v1/owner/settings', { body: { settings: { networks: entries } } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  };

  it('lists nothing before a network is set, and needs a key', async () => {
    expect(await networks()).toEqual([]);
    expect((await t.request('GET', '/v1/owner/networks')).status).toBe(401);
  });

  it('follows registration, pings and verification; unknown parts are null with a reason', async () => {
    await enable({ [origin]: { enabled: true, issue: true }, 'https://off.example': { enabled: false } });
    const before = await networks();
    expect(before.map((n) => n.origin)).toEqual([origin, 'https://off.example'].sort());
    const fresh = before.find((n) => n.origin === origin);
    expect(fresh).toMatchObject({
      enabled: true,
      issue: true,
      gets: ['registration', 'hourly_ping'],
      verification: null,
      verified: null,
      registered_at: null,
      last_ping_at: null,
      last_error: null,
      rules: null,
      standing: null,
      ping_signature: null,
      receipts: null,
    });
    for (const field of ['rules', 'standing', 'ping_signature', 'receipts']) expect(fresh.not_known[field]).toEqual(expect.any(String));
    expect(before.find((n) => n.origin === 'https://off.example')).toMatchObject({ enabled: false, issue: false, gets: [], verified: null });

    // Registration: the network says pending.
    await inbox.jobs.runDue();
    expect(network.calls).toEqual(['POST /v1/instances']);
    const registeredAt = new Date(clock.now()).toISOString();
    expect((await networks()).find((n) => n.origin === origin)).toMatchObject({ registered_at: registeredAt, verification: 'pending', verified: false, last_ping_at: null });

    // The first ping follows; the status read after it says verified.
    network.status = { status: 'verified', verified_at: '2026-11-23T10:00:01Z', listed: true };
    clock.advance(3_000);
    await inbox.jobs.runDue();
    expect(network.calls.slice(1)).toEqual(['POST /v1/instances/127.0.0.1/ping', 'GET /v1/instances/127.0.0.1/status']);
    const pingedAt = new Date(clock.now()).toISOString();
    expect((await networks()).find((n) => n.origin === origin)).toMatchObject({
      verification: 'verified',
      verified: true,
      verified_at: '2026-11-23T10:00:01.000Z',
      listed: true,
      status_checked_at: pingedAt,
      last_ping_at: pingedAt,
      last_error: null,
    });
  });

  it('keeps the last error in a few words, beside the last ping that went through', async () => {
    await enable({ [origin]: { enabled: true } });
    await inbox.jobs.runDue();
    clock.advance(3_000);
    await inbox.jobs.runDue();
    const goodPing = new Date(clock.now()).toISOString();

    network.pingStatus = 500;
    clock.advance(3_600_000);
    await inbox.jobs.runDue();
    const entry = (await networks()).find((n) => n.origin === origin);
    expect(entry.last_ping_at).toBe(goodPing);
    expect(entry.last_error).toEqual({ message: 'ping: the network answered HTTP 500', at: new Date(clock.now()).toISOString() });

    // A status it cannot read does not undo a ping that went through.
    network.pingStatus = 204;
    network.status = { status: 'something else' };
    clock.advance(3_600_000);
    await inbox.jobs.runDue();
    const after = (await networks()).find((n) => n.origin === origin);
    expect(after.last_ping_at).toBe(new Date(clock.now()).toISOString());
    expect(after.last_error.message).toBe('status: the network answered a status we could not read');
    expect(after.verification).toBe('pending');
  });

  it('a network that cannot be reached shows why', async () => {
    await network.close();
    await enable({ [origin]: { enabled: true } });
    await inbox.jobs.runDue();
    const entry = (await networks()).find((n) => n.origin === origin);
    expect(entry.registered_at).toBeNull();
    expect(entry.last_error.message).toMatch(/^registration: /);
    expect(entry.last_error.message.length).toBeLessThanOrEqual(200);
    network = new FakeNetwork();
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
