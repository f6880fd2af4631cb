/**
 * Passes end to end (issue 15, docs/identity.md), both services over real HTTP on 127.0.0.1: a first
 * booking with an address makes the network issue a key by mail; the agent gives the key and keeps the
 * pass it became; the pass presented on the next booking shows the owner the person's standing; an
 * outcome receipt moves it; delegated pass references work only signed; revocation; failures fail open.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { dropTestDatabase, testDatabaseUrl } from '../../../test-support/test-database.js';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildInbox, createOwnerKey, type Inbox } from '@svc/inbox';
import { generateEd25519Key, parsePersonToken, svcPassHeader, signAgentRequest, type Mailer, type OutboundMail } from '@svc/shared';
import { buildDirectory, type Directory } from '../src/app.js';
import { TestClock } from './support/harness.js';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The network's mail, caught in memory. */
function catchingMailer(): Mailer & { sent: OutboundMail[] } {
  const sent: OutboundMail[] = [];
  return { kind: 'smtp', describe: 'caught in the test', sent, send: async (mail) => (sent.push(mail), { messageId: `m${sent.length}@test`, via: 'test' }), close: () => undefined };
}

describe('passes from a network, end to end', () => {
  const clock = new TestClock('2026-11-23T10:00:00Z');
  const dirs: string[] = [];
  let directory: Directory;
  let inbox: Inbox;
  let networkOrigin: string;
  let inboxOrigin: string;
  let ownerKey: string;
  const mail = catchingMailer();

  const call = async (method: string, path: string, options: { body?: unknown; headers?: Record<string, string>; owner?: boolean } = {}) => {
    const response = await fetch(`${inboxOrigin}${path}`, {
      method,
      headers: { ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}), ...(options.owner ? { authorization: `Bearer ${ownerKey}` } : {}), ...(options.headers ?? {}) },
      ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  };
  /** How often the network was shown the pass (its presentations). */
  const countPresentations = async (pass: string) => (await directory.store.persons.recentUse(parsePersonToken(pass)!.id, 0)).presentations;
  const booking = (time: string, extra: Record<string, unknown> = {}) => ({ payload: { serviceId: 'haircut', startTime: time }, contact: { name: 'Ana', email: 'ana@example.com' }, ...extra });

  beforeAll(async () => {
    const networkPort = await freePort();
    const inboxPort = await freePort();
    networkOrigin = `http://127.0.0.1:${networkPort}`;
    inboxOrigin = `http://127.0.0.1:${inboxPort}`;
    const directoryDir = mkdtempSync(join(tmpdir(), 'e2e-net-'));
    const inboxDir = mkdtempSync(join(tmpdir(), 'e2e-inbox-'));
    dirs.push(directoryDir, inboxDir);
    directory = await buildDirectory({ dataDir: directoryDir, databaseUrl: await testDatabaseUrl('directory', directoryDir), baseUrl: networkOrigin, allowLocalInboxes: true, clock, logLevel: 'silent', runJobs: false, hourlyTimer: false, answerWorkers: 0, mailer: mail });
    await directory.http.listen({ host: '127.0.0.1', port: networkPort });
    inbox = await buildInbox({ dataDir: inboxDir, databaseUrl: await testDatabaseUrl('inbox', inboxDir), publicBaseUrl: inboxOrigin, logLevel: 'silent', runJobs: false, allowLocalNetworks: true, clock });
    await inbox.http.listen({ host: '127.0.0.1', port: inboxPort });
    const { seedDemoBusiness } = await import('../../inbox/src/demo/seed-demo.js');
    await seedDemoBusiness({ store: inbox.store as never, clock });
    ownerKey = (await createOwnerKey(inbox.store, 'e2e', clock.now())).value;
    const put = await call('PUT', '/v1/owner/settings', { owner: true, body: { settings: { networks: { [networkOrigin]: { enabled: true, issue: true } } } } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    // Register, be verified from the manifest.
    const { scheduleNetworkRegistrations } = await import('../../inbox/src/networks/network-jobs.js');
    await scheduleNetworkRegistrations(inbox.store as never, clock.now());
    await inbox.jobs.runDue();
    await directory.jobs.runDue();
    expect((await directory.store.instances.get(`127.0.0.1:${inboxPort}`))?.status).toBe('verified');
  });

  afterAll(async () => {
    await inbox?.close();
    await directory?.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    await dropTestDatabase('directory', dirs[0]!);
    await dropTestDatabase('inbox', dirs[1]!);
  });

  let key = '';
  let pass = '';

  it('a first booking with an address asks the network for a key, which is mailed; nothing waits', async () => {
    const first = await call('POST', '/v1/bookings', { body: booking('2026-11-24T10:00:00Z') });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body.identity).toMatchObject({ recognised: 'none', passes: [], networks: { [networkOrigin]: 'pending' } });
    expect(mail.sent).toHaveLength(0);
    await inbox.jobs.runDue();
    expect(mail.sent).toHaveLength(1);
    expect(mail.sent[0]!.to).toBe('ana@example.com');
    key = /(svckey1_\S+)/.exec(mail.sent[0]!.text)?.[1] as string;
    expect(key).toMatch(new RegExp(`^svckey1_127\\.0\\.0\\.1:\\d+_[a-z2-7]{16}_[a-z2-7]{32}$`));
    const status = await call('GET', `/v1/items/${first.body.id}`, { headers: { 'x-access-token': first.body.accessToken } });
    expect(status.body.identity.networks[networkOrigin]).toBe('issued');
    // The same address again: the person exists, no second key goes out.
    const again = await call('POST', '/v1/bookings', { body: booking('2026-11-24T11:00:00Z') });
    await inbox.jobs.runDue();
    expect(mail.sent).toHaveLength(1);
    const againStatus = await call('GET', `/v1/items/${again.body.id}`, { headers: { 'x-access-token': again.body.accessToken } });
    expect(againStatus.body.identity.networks[networkOrigin]).toBe('person_exists');
  });

  it('the key given once becomes a pass; the owner sees the person\'s standing', async () => {
    const second = await call('POST', '/v1/bookings', { body: booking('2026-11-24T14:00:00Z', { key }) });
    expect(second.status, JSON.stringify(second.body)).toBe(201);
    expect(second.body.identity.networks[networkOrigin]).toBe('presented');
    expect(second.body.identity.passes).toHaveLength(1);
    pass = second.body.identity.passes[0].pass;
    expect(pass).toMatch(/^svcpass1_127\.0\.0\.1:\d+_[a-z2-7]{16}_[a-z2-7]{32}$/);
    const owner = await call('GET', `/v1/owner/items/${second.body.id}`, { owner: true });
    expect(owner.body.customer.persons).toEqual([
      {
        network: networkOrigin,
        tier: 'new',
        score: 0.5,
        kept: 0,
        broken: 0,
        businesses: 1,
        since: '2026-11-23',
        email_proven: true,
        unusual_use: false,
        presented: 'with_this_request',
        presented_at: expect.any(String),
      },
    ]);
  });

  it('the pass in Svc-Pass opens the item without its token; a completed booking\'s receipt moves the standing', async () => {
    const third = await call('POST', '/v1/bookings', { body: booking('2026-11-25T10:00:00Z'), headers: { 'svc-pass': svcPassHeader([pass]) } });
    expect(third.body.identity.networks[networkOrigin]).toBe('presented');
    expect(third.body.identity.passes).toEqual([]);
    const read = await call('GET', `/v1/items/${third.body.id}`, { headers: { 'svc-pass': `"${pass}"` } });
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    expect((await call('GET', `/v1/items/${third.body.id}`)).status).toBe(401);
    // Never from a URL (inbox spec §4): the same pass in the query opens nothing and reaches no network.
    const presentations = await countPresentations(pass);
    for (const query of [`pass=${pass}`, `key=${pass}`, `pass=${encodeURIComponent(`"${pass}"`)}`]) {
      const inUrl = await call('GET', `/v1/items/${third.body.id}?${query}`);
      expect(inUrl.status, query).toBe(422);
      expect(inUrl.body).toMatchObject({ code: 'invalid_input', fields: [{ path: query.slice(0, query.indexOf('=')) }] });
      expect(inUrl.body.detail).toMatch(/Svc-Pass/);
      expect(inUrl.body).not.toHaveProperty('payload');
    }
    expect(await countPresentations(pass)).toBe(presentations);

    // The business confirms and the booking happens: its outcome receipt goes to the network.
    expect((await call('POST', `/v1/owner/items/${third.body.id}/transitions`, { owner: true, body: { event: 'confirm' } })).status).toBe(200);
    clock.set('2026-11-25T12:00:00Z');
    const done = await call('POST', `/v1/owner/items/${third.body.id}/transitions`, { owner: true, body: { event: 'complete' } });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    await inbox.jobs.runDue();
    const fourth = await call('POST', '/v1/bookings', { body: booking('2026-11-26T10:00:00Z', { pass }) });
    const owner = await call('GET', `/v1/owner/items/${fourth.body.id}`, { owner: true });
    expect(owner.body.customer.persons[0]).toMatchObject({ kept: 1, broken: 0, presented: 'with_this_request' });
  });

  it('a pass reference works only signed by the agent key it is delegated to', async () => {
    const agent = generateEd25519Key();
    const delegated = await fetch(`${networkOrigin}/v1/passes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key, delegate_jkt: agent.kid }) });
    expect(delegated.status).toBe(201);
    const { pass_ref: passRef } = (await delegated.json()) as { pass_ref: string };
    const svcPass = svcPassHeader([passRef]);
    const body = JSON.stringify(booking('2026-11-27T10:00:00Z'));
    const signed = (extra: Record<string, string> = {}, privateJwk = agent.privateJwk) =>
      signAgentRequest({ method: 'POST', url: `${inboxOrigin}/v1/bookings`, body, privateJwk, now: () => clock.now(), extraHeaders: { 'svc-pass': svcPass, ...extra } });
    const send = (headers: Record<string, string>) => fetch(`${inboxOrigin}/v1/bookings`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body }).then((r) => r.json() as Promise<any>);

    expect((await send({ 'svc-pass': svcPass })).identity.networks[networkOrigin]).toBe('pass_requires_signature');
    expect((await send(signed())).identity.networks[networkOrigin]).toBe('presented');
    // Another agent's signature: the network refuses the reference.
    expect((await send(signed({}, generateEd25519Key().privateJwk))).identity.networks[networkOrigin]).toBe('pass_requires_signature');
    // Covering a header that is not allowed (the access token) keeps it from being forwarded.
    expect((await send({ ...signed({ 'x-access-token': 'svc_tok_secret' }) })).identity.networks[networkOrigin]).toBe('carries_secret');
    // A full pass in Svc-Pass of a signed request is a secret there.
    const withFull = signAgentRequest({ method: 'POST', url: `${inboxOrigin}/v1/bookings`, body, privateJwk: agent.privateJwk, now: () => clock.now(), extraHeaders: { 'svc-pass': `"${pass}"` } });
    expect((await send(withFull)).identity.networks[networkOrigin]).toBe('carries_secret');
  });

  it('forged passes, passes of other networks, too many passes; revocation', async () => {
    const forged = pass.replace(/_[a-z2-7]{32}$/, `_${'a'.repeat(32)}`);
    expect((await call('POST', '/v1/bookings', { body: booking('2026-12-02T10:00:00Z', { pass: forged }) })).body.identity.networks[networkOrigin]).toBe('unknown_pass');
    const foreign = 'svcpass1_other.example_abcdefghijklmnop_abcdefghijklmnopqrstuvwxyz234567';
    expect((await call('POST', '/v1/bookings', { body: booking('2026-12-02T11:00:00Z', { pass: foreign }) })).body.identity.networks['https://other.example']).toBe('not_enabled');
    const nine = await call('POST', '/v1/bookings', { body: booking('2026-12-02T12:00:00Z', { pass: Array(9).fill(pass).join(' ') }) });
    expect(nine.status).toBe(422);
    expect((await call('POST', '/v1/bookings', { body: booking('2026-12-02T12:00:00Z', { pass: 'not-a-pass' }) })).status).toBe(422);

    const revoked = await fetch(`${networkOrigin}/v1/passes/revoke`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key, pass }) });
    expect(revoked.status).toBe(200);
    expect((await call('POST', '/v1/bookings', { body: booking('2026-12-02T14:00:00Z', { pass }) })).body.identity.networks[networkOrigin]).toBe('revoked');
    // The network's own doors hold nothing about persons for a public read.
    expect((await fetch(`${networkOrigin}/v1/persons`)).status).toBe(405);
    expect((await fetch(`${networkOrigin}/v1/presentations`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ pass }) })).status).toBe(401);
  });

  it('a network that is down never refuses the customer', async () => {
    const started = Date.now();
    await directory.http.close();
    const r = await call('POST', '/v1/bookings', { body: booking('2026-12-03T10:00:00Z', { pass }) });
    expect(r.status).toBe(201);
    expect(r.body.identity.networks[networkOrigin]).toBe('unreachable');
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
