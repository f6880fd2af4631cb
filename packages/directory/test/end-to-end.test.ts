import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildInbox, type Inbox } from '@svc/inbox';
import { TestClock, startDirectory, type TestDirectory } from './support/harness.js';
import { signedAsInbox } from './support/real-inbox.js';

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
});
