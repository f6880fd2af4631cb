/**
 * Inbox registration over real HTTP (directory spec §4 GET /v1/instances/{domain}/status, with the
 * POST /v1/instances and ping operations of the table): a tiny fake inbox on 127.0.0.1 serves its
 * manifest, the directory verifies it in a job (dev setting allowLocalInboxes), lists it in the next
 * hour's order, takes pings, and refuses manifests it cannot use, with retries. The SSRF guard of
 * publicFetch is tested on its own for addresses that are not public.
 */
import dns, { type LookupAddress } from 'node:dns';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { syncBuiltinESMExports } from 'node:module';
import type { AddressInfo } from 'node:net';
import { PublicFetchError, isPublicAddress, publicFetch, type PublicFetchOptions } from '@svc/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PENDING_ATTEMPTS, REFRESH_EVERY_MS, RETRY_DELAYS_MS } from '../src/domain/registration/instances.js';
import { HOUR, MONDAY, door, listing } from './support/fixtures.js';
import { TestClock, startDirectory, type ApiResponse, type TestDirectory } from './support/harness.js';
import { newKey, signCall, type SigningKey } from './support/signed-inbox.js';

/* ---------------------------------------------------------------------------------------------- */
/* a fake inbox                                                                                     */

type Respond = (req: IncomingMessage, res: ServerResponse, origin: string) => void;

interface FakeInbox {
  domain: string;
  origin: string;
  /** The key its manifest publishes and its calls are signed with. */
  key: SigningKey;
  hits: string[];
  respond: Respond;
  close(): Promise<void>;
}

const servers: Server[] = [];
/** Each fake inbox's signing key, by origin (its manifest publishes it in receipt_keys). */
const keysByOrigin = new Map<string, SigningKey>();

/** Ports fake inboxes have had in this file. */
const usedPorts = new Set<number>();

async function fakeInbox(respond: Respond): Promise<FakeInbox> {
  const box = { hits: [] as string[], respond, key: newKey() } as FakeInbox;
  const server = createServer((req, res) => {
    box.hits.push(`${req.method} ${req.url}`);
    box.respond(req, res, box.origin);
  });
  // Each fake inbox is a new domain: a port freed by an earlier one and handed out again would be a
  // domain the directory already knows, with that inbox's key cached (and refetched at most once a
  // minute of the test clock), so its registration would be refused.
  let port = 0;
  do {
    if (port !== 0) await new Promise<void>((resolve) => server.close(() => resolve()));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  } while (usedPorts.has(port));
  usedPorts.add(port);
  servers.push(server);
  box.domain = `127.0.0.1:${port}`;
  box.origin = `http://127.0.0.1:${port}`;
  keysByOrigin.set(box.origin, box.key);
  inboxes.set(box.domain, box);
  box.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return box;
}

function send(res: ServerResponse, status: number, body: string, type = 'application/json'): void {
  res.writeHead(status, { 'content-type': type });
  res.end(body);
}

function manifestOf(origin: string, overrides: Record<string, unknown> = {}) {
  return {
    spec: 'svc-inbox/0',
    instance: origin,
    software: { name: 'svc-inbox', version: '0.4.2' },
    item_types: ['booking', 'message'],
    protocols: { rest: `${origin}/v1`, openapi: `${origin}/openapi.json`, mcp_owner: `${origin}/mcp/owner`, mcp: 'javascript:alert(1)' },
    profile: {
      name: 'Salão Coimbra Norte',
      description: 'Cortes e barba no centro de Coimbra',
      categories: ['Cabeleireiro', 'hair-beauty', 'vegan-friendly'],
      address: { streetAddress: 'Rua Nova 3', addressLocality: 'Coimbra', postalCode: '3000-001', addressCountry: 'PT' },
      geo: { latitude: 40.2033, longitude: -8.4103 },
      languages: ['pt', 'en'],
      hours: { timezone: 'Europe/Lisbon', weekly: { mon: [['09:00', '18:00']], tue: [['09:00', '18:00']] }, closures: [] },
      services: [{ name: 'Corte e barba', type: 'booking' }],
      url: `${origin}/`,
    },
    receipt_keys: { keys: keysByOrigin.has(origin) ? [keysByOrigin.get(origin)!.publicJwk] : [] },
    ...overrides,
  };
}

const serveManifest =
  (overrides: Record<string, unknown> = {}): Respond =>
  (req, res, origin) => {
    if (req.url === '/.well-known/agent-inbox.json') send(res, 200, JSON.stringify(manifestOf(origin, overrides)));
    else send(res, 404, '{}');
  };

/* ---------------------------------------------------------------------------------------------- */
/* helpers                                                                                          */

function expectProblem(r: ApiResponse, status: number, code: string): void {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(r.body).toEqual(expect.objectContaining({ type: expect.any(String), title: expect.any(String), status, code }));
}

const statusPath = (domain: string) => `/v1/instances/${encodeURIComponent(domain)}/status`;
const pingPath = (domain: string) => `/v1/instances/${encodeURIComponent(domain)}/ping`;
const iso = (ms: number) => new Date(ms).toISOString();

const clock = new TestClock(MONDAY);
let t: TestDirectory;
beforeAll(async () => {
  t = await startDirectory({
    clock,
    allowLocalInboxes: true,
    listings: [listing('found-one.example', { name: 'Found One', doors: [door('mcp', 'askable', ['ask'])] }), listing('found-two.example', { name: 'Found Two' })],
  });
});
afterAll(async () => {
  await t.close();
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
});

/** A call signed by the inbox, as a real one signs it (svc-instance/1, the key of its manifest). */
async function signedBy(inbox: FakeInbox, method: string, path: string, body?: unknown, d: TestDirectory = t): Promise<ApiResponse> {
  const call = signCall(d, inbox, method, path, body);
  return d.request(method, path, { headers: call.headers, ...(call.body === undefined ? {} : { rawBody: call.body }) });
}

/** Registration of `domain`, signed by `signer` (the inbox itself unless a test says otherwise). */
async function register(domain: string, signer?: FakeInbox): Promise<ApiResponse> {
  const inbox = signer ?? inboxes.get(domain);
  if (!inbox) throw new Error(`no fake inbox signs for ${domain}`);
  return signedBy(inbox, 'POST', '/v1/instances', { domain });
}

/** Every fake inbox by domain (registration signs as the inbox of the domain registered). */
const inboxes = new Map<string, FakeInbox>();

/** A real inbox that signs calls about other domains (which the directory then refuses for what they say). */
let signerInbox: FakeInbox | null = null;
async function signer(): Promise<FakeInbox> {
  return (signerInbox ??= await fakeInbox(serveManifest()));
}

/* ---------------------------------------------------------------------------------------------- */

describe('registering an inbox that verifies', () => {
  let inbox: FakeInbox;
  beforeAll(async () => {
    inbox = await fakeInbox(serveManifest());
    await t.directory.search.hour();
  });

  it('answers 202 with the status URL and queues verification; the status is pending and not listed', async () => {
    const r = await register(inbox.domain);
    expect(r.status).toBe(202);
    expect(r.body).toEqual({
      domain: inbox.domain,
      status: 'pending',
      status_url: `http://127.0.0.1/v1/instances/${encodeURIComponent(inbox.domain)}/status`,
      manifest_url: `${inbox.origin}/.well-known/agent-inbox.json`,
      message: expect.any(String),
    });
    const status = await t.get(statusPath(inbox.domain));
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({
      domain: inbox.domain,
      status: 'pending',
      listed: false,
      manifest_url: `${inbox.origin}/.well-known/agent-inbox.json`,
      verified_at: null,
      last_checked_at: null,
      last_ping_at: null,
      delisted_at: null,
      dormant_since: null,
      fail_count: 0,
      verification: { attempts: 0, next_attempt_at: iso(clock.now()) },
    });
    // The manifest was read once, for the key that signed the registration.
    expect(inbox.hits).toEqual(['GET /.well-known/agent-inbox.json']);
    expectProblem(await t.get(`/v1/businesses/${inbox.domain}`), 404, 'not_found');
  });

  it('verifies the manifest in a job: status verified, listed, next check in six hours', async () => {
    expect(await t.directory.jobs.runDue()).toBe(1);
    expect(inbox.hits).toEqual(['GET /.well-known/agent-inbox.json', 'GET /.well-known/agent-inbox.json']);
    const status = await t.get(statusPath(inbox.domain));
    expect(status.body).toMatchObject({
      status: 'verified',
      listed: true,
      verified_at: iso(clock.now()),
      last_checked_at: iso(clock.now()),
      fail_count: 0,
      verification: { attempts: 1, next_attempt_at: iso(clock.now() + REFRESH_EVERY_MS) },
    });
    expect(status.body.verification).not.toHaveProperty('last_error');
    expect(await t.directory.jobs.runDue()).toBe(0);
  });

  it('lists the member with what its manifest published, and only customer protocols with clean URLs', async () => {
    const r = await t.get(`/v1/businesses/${inbox.domain}`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      domain: inbox.domain,
      name: 'Salão Coimbra Norte',
      description: 'Cortes e barba no centro de Coimbra',
      city: 'Coimbra',
      country: 'PT',
      address: { street: 'Rua Nova 3', locality: 'Coimbra', postal_code: '3000-001', country: 'PT' },
      geo: { lat: 40.2033, lng: -8.4103 },
      categories: ['hair-beauty'],
      category: { primary: { id: 'shop.hairdresser', src: 'declared' }, path: ['hair-beauty', 'shop.hairdresser'] },
      tags: ['vegan-friendly'],
      languages: ['pt', 'en'],
      item_types: ['booking', 'message'],
      services: [{ name: 'Corte e barba', type: 'booking' }],
      hours: { timezone: 'Europe/Lisbon', weekly: { mon: [['09:00', '18:00']] }, closures: [] },
      source: 'member',
      // Its inbox has not pinged yet: not answering, so its own inbox is no live door until it does.
      level: 'listed',
      has_inbox: false,
      manifest_url: `${inbox.origin}/.well-known/agent-inbox.json`,
      verified_at: iso(clock.now()),
      answering: false,
      url: `${inbox.origin}/`,
    });
    expect(r.body.protocols).toEqual({ rest: `${inbox.origin}/v1`, openapi: `${inbox.origin}/openapi.json` });
    expect(r.body.doors).toEqual([expect.objectContaining({ type: 'inbox', level: 'bookable', status: 'failing', kinds: expect.arrayContaining(['ask', 'book']) })]);
  });

  it('takes signed pings (200 with its standing): last_ping_at, answering, and the software it runs', async () => {
    clock.advance(60_000);
    const ping = await signedBy(inbox, 'POST', pingPath(inbox.domain), { version: '0.4.2', runtime: 'node 20' });
    expect(ping.status).toBe(200);
    expect(ping.body).toEqual({
      ok: true,
      standing: { tier: 'new', score: 0, ranked: false, kept: 0, broken: 0, customers: 0, as_of: null },
      receipts: { accepted: 0, acknowledged: 0 },
      rules: 6,
      // A ping that names no manifest hash: nothing to read again; the last read is the verification's.
      manifest: { current: true, read_at: expect.any(String), read_after: null },
    });
    const status = await t.get(statusPath(inbox.domain));
    expect(status.body.last_ping_at).toBe(iso(clock.now()));
    expect(ping.body.manifest.read_at).toBe(status.body.last_checked_at);
    const r = await t.get(`/v1/businesses/${inbox.domain}`);
    expect(r.body).toMatchObject({ answering: true, online: true, not_answering_since: null, last_ping_at: iso(clock.now()), software: { version: '0.4.2', runtime: 'node 20' } });
    // answering, its own inbox is a live door: bookable, with an inbox
    expect(r.body).toMatchObject({ level: 'bookable', has_inbox: true, requestable: ['ask'] });
    expect(r.body.doors).toEqual([expect.objectContaining({ type: 'inbox', status: 'live' })]);
    const bare = await signedBy(inbox, 'POST', pingPath(inbox.domain));
    expect(bare.status).toBe(200);
  });

  it('appears in the search at once, after the hour\'s order, and from the next hour\'s order first as the only member', async () => {
    // The hour's order was made before it was listed: it comes after every listing of that order.
    const now = await t.get('/v1/businesses?q=coimbra');
    expect(now.body.businesses.map((b: any) => b.domain)).toEqual([inbox.domain]);
    const plain = await t.get('/v1/businesses');
    expect(plain.body.businesses.map((b: any) => b.domain)).toHaveLength(3);
    expect(plain.body.businesses[2]).toMatchObject({ domain: inbox.domain, rank_pos: 3 });
    clock.advance(HOUR);
    const after = await t.get('/v1/businesses?q=coimbra');
    expect(after.body.businesses.map((b: any) => b.domain)).toEqual([inbox.domain]);
    const all = await t.get('/v1/businesses');
    expect(all.body.businesses[0]).toMatchObject({ domain: inbox.domain, rank_pos: 1, source: 'member', answering: true });
    expect(all.body.businesses.map((b: any) => b.domain).sort()).toEqual([inbox.domain, 'found-one.example', 'found-two.example'].sort());
  });

  it('registering again asks for a fresh check now', async () => {
    const r = await register(inbox.domain);
    expect(r.status).toBe(202);
    expect(r.body.status).toBe('verified');
    expect((await t.get(statusPath(inbox.domain))).body.verification.next_attempt_at).toBe(iso(clock.now()));
    expect(await t.directory.jobs.runDue()).toBe(1);
    // A verified manifest drops the keys cached from before (they may have been rotated): the second
    // registration read them again, and its check read the manifest once more.
    expect(inbox.hits).toHaveLength(4);
  });
});

describe('refusals', () => {
  it('answers 404 to the status of a domain never registered, and to a signed ping of one', async () => {
    expectProblem(await t.get(statusPath('never-registered.example')), 404, 'not_found');
    expectProblem(await t.get(statusPath('127.0.0.1:1')), 404, 'not_found');
    const stranger = await fakeInbox(serveManifest());
    expectProblem(await signedBy(stranger, 'POST', pingPath(stranger.domain)), 404, 'not_found');
    // Unsigned: refused for that first, whatever the domain.
    expectProblem(await t.request('POST', pingPath('never-registered.example')), 401, 'unauthorized');
    // Signed by one inbox for another's domain.
    expectProblem(await signedBy(stranger, 'POST', pingPath('never-registered.example')), 403, 'not_allowed');
  });

  it.each([
    ['not a domain'],
    ['http://shop.example'],
    ['shop.example/path'],
    ['10.0.0.1'],
    ['169.254.169.254'],
    ['[::1]'],
    ['localhost'],
    ['shop.local'],
    ['printer.internal'],
    ['a..b.example'],
    ['-shop.example'],
    ['shop.123'],
    ['nodot'],
    ['192.168.0.1:8080'],
    ['127.0.0.1:0'],
    ['127.0.0.1:70000'],
    ['127.0.0.1'],
    [''],
    [`${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(60)}.${'e'.repeat(60)}.example`],
    [`${'a'.repeat(64)}.example`],
  ])('refuses to register %j with 400 (signed, by a real inbox)', async (domain) => {
    expectProblem(await register(domain, await signer()), 400, 'bad_request');
  });

  it('refuses a body without a domain, and an invalid domain in the status path', async () => {
    const inbox = await signer();
    expectProblem(await signedBy(inbox, 'POST', '/v1/instances', {}), 400, 'bad_request');
    expectProblem(await signedBy(inbox, 'POST', '/v1/instances', { domain: 42 }), 400, 'bad_request');
    expectProblem(await t.get(statusPath('not_a_domain!')), 400, 'bad_request');
    expectProblem(await signedBy(inbox, 'POST', pingPath('10.0.0.1')), 400, 'bad_request');
  });

  it('refuses an unsigned registration (401, with Accept-Signature) and registers nothing', async () => {
    const inbox = await fakeInbox(serveManifest());
    const r = await t.request('POST', '/v1/instances', { body: { domain: inbox.domain } });
    expectProblem(r, 401, 'unauthorized');
    expect(r.body.signature_error).toBe('missing');
    expect(r.headers.get('accept-signature')).toMatch(/tag="svc-instance"/);
    expectProblem(await t.get(statusPath(inbox.domain)), 404, 'not_found');
    expect(inbox.hits).toEqual([]);
  });

  it('refuses a registration signed by another inbox (403) and registers nothing', async () => {
    const inbox = await fakeInbox(serveManifest());
    const other = await signer();
    const r = await register(inbox.domain, other);
    expectProblem(r, 403, 'not_allowed');
    expect(r.body.detail).toContain(other.origin);
    expectProblem(await t.get(statusPath(inbox.domain)), 404, 'not_found');
  });

  it('refuses a local address without the development setting, before fetching anything', async () => {
    const strict = await startDirectory();
    const inbox = await fakeInbox(serveManifest());
    try {
      for (const domain of [inbox.domain, `localhost:${inbox.domain.split(':')[1]}`]) {
        const r = await signedBy(inbox, 'POST', '/v1/instances', { domain }, strict);
        // Its signature names an http:// instance, which only the development setting takes.
        expectProblem(r, 401, 'unauthorized');
        expect(r.body.signature_error).toBe('profile_mismatch');
      }
      expect(inbox.hits).toEqual([]);
      expectProblem(await strict.get(statusPath('127.0.0.1:8080')), 400, 'bad_request');
    } finally {
      await strict.close();
    }
  });
});

describe('manifests that do not verify', () => {
  const cases: [string, Respond, RegExp][] = [
    ['names another instance', serveManifest({ instance: 'http://127.0.0.1:1' }), /instance is http:\/\/127\.0\.0\.1:1/],
    ['answers 500', (_req, res) => send(res, 500, '{"error":"boom"}'), /HTTP 500/],
    ['answers 404', (_req, res) => send(res, 404, 'not here', 'text/plain'), /HTTP 404/],
    ['redirects', (_req, res) => (res.writeHead(302, { location: 'https://elsewhere.example/manifest.json' }), res.end()), /redirect/],
    ['is not JSON', (_req, res) => send(res, 200, '<html><body>hello</body></html>', 'text/html'), /not valid JSON/],
    ['is a JSON array', (_req, res) => send(res, 200, '[1,2,3]'), /not a JSON object/],
    ['is another spec', serveManifest({ spec: 'other/1' }), /spec/],
    ['has no profile name', serveManifest({ profile: { description: 'nameless' } }), /no name/],
    ['is too large', (_req, res) => send(res, 200, JSON.stringify({ pad: 'x'.repeat(300 * 1024) })), /too_large/],
  ];

  it.each(cases)('a manifest that %s leaves the status pending with last_error, and schedules a retry', async (_what, respond, error) => {
    // Registered while its manifest held its key (the registration is signed), then the manifest went bad.
    const inbox = await fakeInbox(serveManifest());
    expect((await register(inbox.domain)).status).toBe(202);
    inbox.respond = respond;
    const registeredAt = clock.now();
    expect(await t.directory.jobs.runDue()).toBe(1);
    const status = await t.get(statusPath(inbox.domain));
    expect(status.body).toMatchObject({
      status: 'pending',
      listed: false,
      verified_at: null,
      last_checked_at: iso(registeredAt),
      fail_count: 1,
      verification: { attempts: 1, next_attempt_at: iso(registeredAt + RETRY_DELAYS_MS[0]), last_error: expect.stringMatching(error) },
    });
    expectProblem(await t.get(`/v1/businesses/${inbox.domain}`), 404, 'not_found');
    await inbox.close();
  });

  it('an inbox that does not answer at all fails with a network error', async () => {
    const inbox = await fakeInbox(serveManifest());
    expect((await register(inbox.domain)).status).toBe(202);
    await inbox.close();
    await t.directory.jobs.runDue();
    const status = await t.get(statusPath(inbox.domain));
    expect(status.body).toMatchObject({ status: 'pending', verification: { attempts: 1, last_error: expect.stringMatching(/network/) } });
  });

  it('retries with growing waits, and verifies once the manifest is fixed', async () => {
    const own = new TestClock(MONDAY);
    const d = await startDirectory({ clock: own, allowLocalInboxes: true });
    try {
      const inbox = await fakeInbox((_req, res) => send(res, 503, '{}'));
      // Its manifest is down: the registration cannot be signed with a key the directory can read yet, so it is signed while it answers.
      inbox.respond = serveManifest();
      expect((await signedBy(inbox, 'POST', '/v1/instances', { domain: inbox.domain }, d)).status).toBe(202);
      inbox.respond = (_req, res) => send(res, 503, '{}');
      inbox.hits.length = 0;
      expect(await d.directory.jobs.runDue()).toBe(1);
      expect((await d.get(statusPath(inbox.domain))).body.verification.next_attempt_at).toBe(iso(MONDAY + RETRY_DELAYS_MS[0]));

      own.advance(RETRY_DELAYS_MS[0] - 1_000);
      expect(await d.directory.jobs.runDue()).toBe(0);
      own.advance(1_000);
      expect(await d.directory.jobs.runDue()).toBe(1);
      const second = (await d.get(statusPath(inbox.domain))).body;
      expect(second).toMatchObject({
        status: 'pending',
        fail_count: 2,
        verification: { attempts: 2, next_attempt_at: iso(own.now() + RETRY_DELAYS_MS[1]), last_error: expect.stringMatching(/HTTP 503/) },
      });
      expect(inbox.hits).toHaveLength(2);

      inbox.respond = serveManifest();
      own.advance(RETRY_DELAYS_MS[1]);
      expect(await d.directory.jobs.runDue()).toBe(1);
      const verified = (await d.get(statusPath(inbox.domain))).body;
      expect(verified).toMatchObject({ status: 'verified', listed: true, fail_count: 0, verification: { attempts: 3 } });
      expect(verified.verification).not.toHaveProperty('last_error');
      expect(inbox.hits).toHaveLength(3);
    } finally {
      await d.close();
    }
  });

  it(`gives up a registration that never verified after ${MAX_PENDING_ATTEMPTS} attempts`, async () => {
    const own = new TestClock(MONDAY);
    const d = await startDirectory({ clock: own, allowLocalInboxes: true });
    try {
      const inbox = await fakeInbox(serveManifest());
      expect((await signedBy(inbox, 'POST', '/v1/instances', { domain: inbox.domain }, d)).status).toBe(202);
      inbox.respond = (_req, res) => send(res, 500, '{}');
      inbox.hits.length = 0;
      const longest = RETRY_DELAYS_MS[RETRY_DELAYS_MS.length - 1] as number;
      for (let i = 0; i < MAX_PENDING_ATTEMPTS; i++) {
        await d.directory.jobs.runDue();
        // One attempt each time (the nightly snapshot runs too when a midnight passed).
        expect(inbox.hits, `attempt ${i + 1}`).toHaveLength(i + 1);
        own.advance(longest);
      }
      const status = (await d.get(statusPath(inbox.domain))).body;
      expect(status).toMatchObject({ status: 'pending', listed: false, fail_count: MAX_PENDING_ATTEMPTS, verification: { attempts: MAX_PENDING_ATTEMPTS } });
      expect(status.verification).not.toHaveProperty('next_attempt_at');
      own.advance(longest);
      await d.directory.jobs.runDue();
      expect(inbox.hits).toHaveLength(MAX_PENDING_ATTEMPTS);
    } finally {
      await d.close();
    }
  });

  it('marks a verified inbox unreachable when a refresh fails, and its inbox door failing', async () => {
    const inbox = await fakeInbox(serveManifest());
    expect((await register(inbox.domain)).status).toBe(202);
    await t.directory.jobs.runDue();
    expect((await t.get(statusPath(inbox.domain))).body.status).toBe('verified');
    inbox.respond = (_req, res) => send(res, 500, '{}');
    clock.advance(REFRESH_EVERY_MS);
    expect(await t.directory.jobs.runDue()).toBeGreaterThanOrEqual(1);
    const status = (await t.get(statusPath(inbox.domain))).body;
    expect(status).toMatchObject({ status: 'unreachable', fail_count: 1, verification: { last_error: expect.stringMatching(/HTTP 500/) } });
    const listing = await t.get(`/v1/businesses/${inbox.domain}`);
    expect(listing.body.doors[0].status).toBe('failing');
    expect(listing.body.has_inbox).toBe(false);
  });
});

/* ---------------------------------------------------------------------------------------------- */
/* the SSRF guard                                                                                   */

const STRICT: PublicFetchOptions = { timeoutMs: 2_000, maxBytes: 64 * 1024, allowLoopback: false, allowHttp: true };

async function refusal(url: string, options: PublicFetchOptions = STRICT): Promise<PublicFetchError> {
  const error = await publicFetch(url, options).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error, url).toBeInstanceOf(PublicFetchError);
  return error as PublicFetchError;
}

describe('publicFetch: only public addresses', () => {
  it.each([
    ['http://10.0.0.1/'],
    ['http://169.254.169.254/latest/meta-data/'],
    ['http://[::1]/'],
    ['http://127.0.0.1/'],
    ['http://127.8.9.10:8080/'],
    ['http://0.0.0.0/'],
    ['http://[::]/'],
    ['http://[::ffff:127.0.0.1]/'],
    ['http://[::ffff:10.0.0.1]/'],
    ['http://[fd00::1]/'],
    ['http://[fe80::1]/'],
    ['http://100.64.0.1/'],
    ['http://172.16.5.4/'],
    ['http://192.168.1.1/'],
    ['http://2130706433/'],
    ['http://0x7f.1/'],
    ['https://10.0.0.1/'],
    ['http://[64:ff9b:1::a00:1]/'],
    ['http://[fec0::1]/'],
    ['http://[::a00:1]/'],
    ['http://[2002:a00:1::1]/'],
  ])('refuses %s as blocked_address before connecting', async (url) => {
    expect((await refusal(url)).reason).toBe('blocked_address');
  });

  it('tells public addresses from the others, IPv4 and IPv6 alike', () => {
    for (const address of ['1.1.1.1', '8.8.8.8', '93.184.215.14', '2606:4700:4700::1111', '2a00:1450:4003:80e::200e', '::ffff:1.1.1.1', '::ffff:101:101']) {
      expect(isPublicAddress(address), address).toBe(true);
    }
    for (const address of ['10.0.0.1', '127.0.0.1', '169.254.169.254', '192.168.0.1', '::1', '::', 'fd12::1', '::ffff:10.0.0.1', '::ffff:a00:1', '::ffff:7f00:1', 'not-an-ip']) {
      expect(isPublicAddress(address), address).toBe(false);
    }
  });

  it('refuses a host name that resolves to a loopback address (localhost)', async () => {
    const inbox = await fakeInbox(serveManifest());
    const port = inbox.domain.split(':')[1];
    expect((await refusal(`http://localhost:${port}/.well-known/agent-inbox.json`)).reason).toBe('blocked_address');
    expect(inbox.hits).toEqual([]);
    await inbox.close();
  });

  it('refuses plain http unless allowed, other schemes and credentials', async () => {
    expect((await refusal('http://example.com/', { ...STRICT, allowHttp: false })).reason).toBe('bad_url');
    expect((await refusal('ftp://example.com/')).reason).toBe('bad_url');
    expect((await refusal('file:///etc/passwd')).reason).toBe('bad_url');
    expect((await refusal('https://user:secret@example.com/')).reason).toBe('bad_url');
    expect((await refusal('not a url')).reason).toBe('bad_url');
  });

  it('with allowLoopback reaches 127.0.0.1, never follows a redirect, caps the size and times out', async () => {
    const open = { ...STRICT, allowLoopback: true };
    const inbox = await fakeInbox(serveManifest());
    const ok = await publicFetch(`${inbox.origin}/.well-known/agent-inbox.json`, open);
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body).instance).toBe(inbox.origin);
    expect((await refusal('http://10.0.0.1/', open)).reason).toBe('blocked_address');

    inbox.respond = (_req, res) => (res.writeHead(301, { location: 'http://10.0.0.1/' }), res.end());
    expect((await refusal(`${inbox.origin}/`, open)).reason).toBe('redirect');
    inbox.respond = (_req, res) => send(res, 200, 'x'.repeat(100 * 1024));
    expect((await refusal(`${inbox.origin}/`, open)).reason).toBe('too_large');
    inbox.respond = () => undefined;
    const started = Date.now();
    expect((await refusal(`${inbox.origin}/`, { ...open, timeoutMs: 200 })).reason).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(2_000);
    await inbox.close();
  });
});

describe('a public-looking domain that resolves to a private address', () => {
  const realLookup = dns.lookup;
  const answers: Record<string, LookupAddress[]> = {
    'loopback.example': [{ address: '127.0.0.1', family: 4 }],
    'mixed.example': [
      { address: '93.184.215.14', family: 4 },
      { address: '10.1.2.3', family: 4 },
    ],
    'metadata.example': [{ address: '169.254.169.254', family: 4 }],
    'public.example': [{ address: '192.0.43.10', family: 4 }],
  };
  beforeAll(() => {
    // A resolver that answers the names above: a DNS answer the directory must check before connecting.
    (dns as { lookup: unknown }).lookup = (hostname: string, options: unknown, callback: (...args: unknown[]) => void) => {
      const fixed = answers[hostname];
      if (!fixed) return (realLookup as (...args: unknown[]) => void)(hostname, options, callback);
      if (typeof options === 'object' && options !== null && (options as { all?: boolean }).all) return process.nextTick(callback, null, fixed);
      return process.nextTick(callback, null, fixed[0]!.address, fixed[0]!.family);
    };
    syncBuiltinESMExports();
  });
  afterAll(() => {
    (dns as { lookup: unknown }).lookup = realLookup;
    syncBuiltinESMExports();
  });

  it.each([['loopback.example'], ['mixed.example'], ['metadata.example']])('publicFetch refuses https://%s as blocked_address', async (host) => {
    const error = await refusal(`https://${host}/.well-known/agent-inbox.json`);
    expect(error.reason).toBe('blocked_address');
    expect(error.message).toContain(host);
  });

  it('publicFetch lets a name that resolves to a public address through to the connection', async () => {
    const error = await publicFetch('https://public.example/.well-known/agent-inbox.json', { ...STRICT, timeoutMs: 300 }).then(
      () => null,
      (e: unknown) => e,
    );
    // the sandbox may have no route out: whatever happens, it is not the address guard that refused
    if (error !== null) expect((error as PublicFetchError).reason).not.toBe('blocked_address');
  });

  it('a directory without the development setting never reads the keys of a name that resolves to a private address', async () => {
    const strict = await startDirectory({ clock: new TestClock(MONDAY) });
    try {
      const key = newKey();
      const call = signCall(strict, { origin: 'https://loopback.example', key }, 'POST', '/v1/instances', { domain: 'loopback.example' });
      const r = await strict.request('POST', '/v1/instances', { headers: call.headers, rawBody: call.body as string });
      expectProblem(r, 401, 'unauthorized');
      expect(r.body.signature_error).toBe('unknown_key');
      expect(r.body.detail).toMatch(/blocked_address/);
      expectProblem(await strict.get(statusPath('loopback.example')), 404, 'not_found');
    } finally {
      await strict.close();
    }
  });
});
