/**
 * Signed instance calls over real HTTP (issue 13, issue 19 "counts nobody can inflate"): an inbox's
 * registration, pings and receipt publication are HTTP Message Signatures checked against the keys
 * its own manifest publishes. Forged, replayed (also after a restart), altered, out-of-window,
 * wrong-key and foreign calls are each refused with a precise problem and change nothing; a key
 * the directory does not know yet is read from the manifest again; signatures made by an RFC 9421
 * library nobody here wrote are taken.
 */
import { createSigner, httpbis } from 'http-message-signatures';
import { contentDigestHeader, ed25519PrivateKey } from '@svc/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY, MONDAY } from './support/fixtures.js';
import { TestClock, startDirectory, type ApiResponse, type TestDirectory } from './support/harness.js';
import { closeSignedInboxes, newKey, pingPath, registerVerified, serveManifest, signCall, signed, signedInbox, type SignedInbox } from './support/signed-inbox.js';

function expectProblem(r: ApiResponse, status: number, code: string, signatureError?: string): void {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(r.body).toMatchObject({ status, code, type: expect.stringMatching(new RegExp(`/problems/${code}$`)) });
  if (signatureError) expect(r.body.signature_error).toBe(signatureError);
}

const statusOf = async (t: TestDirectory, inbox: SignedInbox) => (await t.get(`/v1/instances/${encodeURIComponent(inbox.domain)}/status`)).body;

const clock = new TestClock(MONDAY);
let t: TestDirectory;
let inbox: SignedInbox;

beforeAll(async () => {
  t = await startDirectory({ clock, allowLocalInboxes: true, answerWorkers: 0 });
  inbox = await signedInbox();
  await registerVerified(t, inbox);
});
afterAll(async () => {
  await t.close();
  await closeSignedInboxes();
});

describe('a ping is signed by the instance itself', () => {
  it('unsigned: 401 with Accept-Signature, and it changes nothing', async () => {
    const before = await statusOf(t, inbox);
    clock.advance(60_000);
    const r = await t.request('POST', pingPath(inbox.domain), { body: { version: '9.9.9', counts: { bookings: 2_147_483_647 } } });
    expectProblem(r, 401, 'unauthorized', 'missing');
    expect(r.headers.get('accept-signature')).toBe('svc=("@method" "@authority" "@path" "content-digest" "svc-instance");tag="svc-instance";alg="ed25519"');
    expect(await statusOf(t, inbox)).toEqual(before);
    expect((await t.get('/v1/stats')).body.activity_24h.bookings).toBe(0);
  });

  it('signed: 200 with the standing, and it counts', async () => {
    const r = await signed(t, inbox, 'POST', pingPath(inbox.domain), { version: '1.2.3', runtime: 'node 20', counts: { bookings: 4 } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      ok: true,
      standing: { tier: 'new', score: 0, ranked: false, kept: 0, broken: 0, customers: 0, as_of: null },
      receipts: { accepted: 0, acknowledged: 0 },
      rules: 6,
      manifest: { current: true, read_at: expect.any(String), read_after: null },
    });
    expect((await statusOf(t, inbox)).last_ping_at).toBe(new Date(clock.now()).toISOString());
    expect((await t.get(`/v1/businesses/${encodeURIComponent(inbox.domain)}`)).body).toMatchObject({ answering: true, software: { version: '1.2.3' } });
  });

  it('a replay of the same signed ping: 401 replayed_signature, and nothing changes', async () => {
    const call = signCall(t, inbox, 'POST', pingPath(inbox.domain), { counts: { bookings: 5 } });
    const first = await t.request('POST', pingPath(inbox.domain), { headers: call.headers, rawBody: call.body! });
    expect(first.status).toBe(200);
    const at = (await statusOf(t, inbox)).last_ping_at;
    clock.advance(30_000);
    const again = await t.request('POST', pingPath(inbox.domain), { headers: call.headers, rawBody: call.body! });
    expectProblem(again, 401, 'replayed_signature', 'replayed');
    expect((await statusOf(t, inbox)).last_ping_at).toBe(at);
  });

  it('at a moment with a fraction of a second, as any real clock reads: taken, and its replay refused (PostgreSQL compared the fraction with a bigint and answered 500)', async () => {
    clock.advance(386);
    const call = signCall(t, inbox, 'POST', pingPath(inbox.domain), { counts: { bookings: 1 } });
    const first = await t.request('POST', pingPath(inbox.domain), { headers: call.headers, rawBody: call.body! });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect((await statusOf(t, inbox)).last_ping_at).toBe(new Date(clock.now()).toISOString());
    clock.advance(1_500);
    expectProblem(await t.request('POST', pingPath(inbox.domain), { headers: call.headers, rawBody: call.body! }), 401, 'replayed_signature', 'replayed');
    // Back on a whole second: the window's edges below are counted in whole seconds.
    clock.advance(114);
  });

  it('refuses clock skew beyond the window: created more than 60 s ahead, or expired more than 60 s ago', async () => {
    expectProblem(await signed(t, inbox, 'POST', pingPath(inbox.domain), {}, { now: clock.now() + 61_000 }), 401, 'unauthorized', 'too_far_in_future');
    // created 300 s before expires: 361 s ago is 61 s past its expiry
    expectProblem(await signed(t, inbox, 'POST', pingPath(inbox.domain), {}, { now: clock.now() - 361_000 }), 401, 'unauthorized', 'expired');
    // the edges are taken
    expect((await signed(t, inbox, 'POST', pingPath(inbox.domain), {}, { now: clock.now() + 60_000 })).status).toBe(200);
    expect((await signed(t, inbox, 'POST', pingPath(inbox.domain), {}, { now: clock.now() - 360_000 })).status).toBe(200);
  });

  it('refuses an altered body (digest), an altered path, a forged signature and a wrong key', async () => {
    const call = signCall(t, inbox, 'POST', pingPath(inbox.domain), { counts: { bookings: 1 } });
    expectProblem(await t.request('POST', pingPath(inbox.domain), { headers: call.headers, rawBody: call.body!.replace('1', '9') }), 400, 'bad_request', 'digest_mismatch');
    const altered = call.body!.replace('1', '9');
    expectProblem(
      await t.request('POST', pingPath(inbox.domain), { headers: { ...call.headers, 'Content-Digest': contentDigestHeader(altered) }, rawBody: altered }),
      401,
      'unauthorized',
      'bad_signature',
    );
    const forged = call.headers.Signature!.replace(/:(.)/, (_, c: string) => `:${c === 'A' ? 'B' : 'A'}`);
    expectProblem(await t.request('POST', pingPath(inbox.domain), { headers: { ...call.headers, Signature: forged }, rawBody: call.body! }), 401, 'unauthorized', 'bad_signature');
    // A key of its own making that its manifest does not publish.
    expectProblem(await signed(t, inbox, 'POST', pingPath(inbox.domain), {}, { key: newKey() }), 401, 'unauthorized', 'unknown_key');
    // Signed for another path of the same method.
    const other = signCall(t, inbox, 'POST', '/v1/instances', { counts: {} });
    expectProblem(await t.request('POST', pingPath(inbox.domain), { headers: other.headers, rawBody: other.body! }), 401, 'unauthorized', 'bad_signature');
  });

  it('refuses a ping signed by another inbox for this domain (403), and one claiming to be this inbox with another\'s key (401)', async () => {
    const other = await signedInbox();
    expectProblem(await signed(t, other, 'POST', pingPath(inbox.domain), {}), 403, 'not_allowed');
    expectProblem(await signed(t, other, 'POST', pingPath(inbox.domain), {}, { instance: inbox.origin }), 401, 'unauthorized', 'unknown_key');
  });

  it('a pending instance\'s signed ping is 409 and keeps nothing alive', async () => {
    const pending = await signedInbox();
    expect((await signed(t, pending, 'POST', '/v1/instances', { domain: pending.domain })).status).toBe(202);
    expectProblem(await signed(t, pending, 'POST', pingPath(pending.domain), { counts: { bookings: 7 } }), 409, 'wrong_state');
    expect((await statusOf(t, pending)).last_ping_at).toBeNull();
  });

  it('a key rotated in the manifest is read again at once (at most once a minute), and the old one keeps working while published', async () => {
    // The tests above asked about unknown keys within the minute: a minute later it may read the manifest again.
    clock.advance(61_000);
    const rotated = newKey();
    inbox.published = [rotated, inbox.key];
    const hits = inbox.hits.length;
    expect((await signed(t, inbox, 'POST', pingPath(inbox.domain), {}, { key: rotated })).status).toBe(200);
    expect(inbox.hits.length).toBe(hits + 1);
    expect((await signed(t, inbox, 'POST', pingPath(inbox.domain), {})).status).toBe(200);
    // An unknown key again within the minute: no second fetch, refused.
    expectProblem(await signed(t, inbox, 'POST', pingPath(inbox.domain), {}, { key: newKey() }), 401, 'unauthorized', 'unknown_key');
    expect(inbox.hits.length).toBe(hits + 1);
    inbox.key = rotated;
  });

  it('a signed ping brings a member set aside back', async () => {
    const listing = await t.directory.store.listings.byDomain(inbox.domain);
    const { seq: _seq, ...rest } = listing!;
    await t.directory.store.listings.upsert({ ...rest, dormantSince: clock.now() - DAY });
    const instance = await t.directory.store.instances.get(inbox.domain);
    await t.directory.store.instances.put({ ...instance!, dormantSince: clock.now() - DAY });
    expect((await t.get(`/v1/businesses/${encodeURIComponent(inbox.domain)}`)).status).toBe(404);
    expectProblem(await t.request('POST', pingPath(inbox.domain), { body: {} }), 401, 'unauthorized');
    expect((await t.get(`/v1/businesses/${encodeURIComponent(inbox.domain)}`)).status).toBe(404);
    expect((await signed(t, inbox, 'POST', pingPath(inbox.domain), {})).status).toBe(200);
    expect((await statusOf(t, inbox))).toMatchObject({ listed: true, dormant_since: null });
    expect((await t.get(`/v1/businesses/${encodeURIComponent(inbox.domain)}`)).status).toBe(200);
  });
});

describe('signatures made by http-message-signatures (an RFC 9421 library nobody here wrote)', () => {
  async function theirs(path: string, body: string, overrides: { nonce?: string } = {}) {
    const created = new Date(clock.now());
    const url = `${t.publicUrl}${path}`;
    const headers: Record<string, string> = { 'content-type': 'application/json', 'content-digest': contentDigestHeader(body), 'svc-instance': inbox.origin };
    const signedMessage = await httpbis.signMessage(
      {
        key: createSigner(ed25519PrivateKey(inbox.key.privateJwk), 'ed25519', inbox.key.kid),
        name: 'theirs',
        fields: ['@method', '@authority', '@path', 'content-digest', 'svc-instance'],
        params: ['created', 'expires', 'nonce', 'alg', 'keyid', 'tag'],
        paramValues: { created, expires: new Date(created.getTime() + 300_000), nonce: overrides.nonce ?? `theirs-${Math.random().toString(36).slice(2)}-nonce`, tag: 'svc-instance', alg: 'ed25519' },
      },
      { method: 'POST', url, headers },
    );
    return t.request('POST', path, { headers: signedMessage.headers as Record<string, string>, rawBody: body });
  }

  it('a ping signed by it is taken; the same signature again is a replay', async () => {
    const body = JSON.stringify({ version: '2.0.0', runtime: 'their-runtime' });
    const nonce = 'a-fixed-nonce-of-theirs-0001';
    const first = await theirs(pingPath(inbox.domain), body, { nonce });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect((await t.get(`/v1/businesses/${encodeURIComponent(inbox.domain)}`)).body.software).toEqual({ version: '2.0.0', runtime: 'their-runtime' });
    // Ed25519 is deterministic: the same inputs make the same signature bytes.
    expectProblem(await theirs(pingPath(inbox.domain), body, { nonce }), 401, 'replayed_signature', 'replayed');
  });

  it('a registration signed by it is taken', async () => {
    const r = await theirs('/v1/instances', JSON.stringify({ domain: inbox.domain }));
    expect(r.status).toBe(202);
    await t.directory.jobs.runDue();
  });
});

describe('calls about persons (issue 15) go through the same verifier', () => {
  it('unsigned 401 with Accept-Signature; a pending instance 409; signed by a member, answered; the same signature again 401 replayed_signature', async () => {
    const unsigned = await t.request('POST', '/v1/presentations', { body: { pass: 'not-a-pass' } });
    expectProblem(unsigned, 401, 'unauthorized', 'missing');
    expect(unsigned.headers.get('accept-signature')).toMatch(/tag="svc-instance"/);
    const pending = await signedInbox();
    expect((await signed(t, pending, 'POST', '/v1/instances', { domain: pending.domain })).status).toBe(202);
    expectProblem(await signed(t, pending, 'POST', '/v1/presentations', { pass: 'not-a-pass' }), 409, 'wrong_state');
    expectProblem(await signed(t, inbox, 'POST', '/v1/presentations', { pass: 'not-a-pass' }, { key: newKey() }), 401, 'unauthorized', 'unknown_key');

    const call = signCall(t, inbox, 'POST', '/v1/presentations', { pass: 'not-a-pass' });
    const first = await t.request('POST', '/v1/presentations', { headers: call.headers, rawBody: call.body! });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toEqual({ status: 'unknown_pass' });
    expectProblem(await t.request('POST', '/v1/presentations', { headers: call.headers, rawBody: call.body! }), 401, 'replayed_signature', 'replayed');
  });
});

describe('the replay store survives a restart', () => {
  it('a signature taken before a restart (a ping, a call about persons) is still refused after it, until its expiry plus a minute', async () => {
    const own = new TestClock(MONDAY);
    const first = await startDirectory({ clock: own, allowLocalInboxes: true, answerWorkers: 0 });
    const box = await signedInbox(serveManifest());
    await registerVerified(first, box);
    const call = signCall(first, box, 'POST', pingPath(box.domain), { counts: { bookings: 1 } });
    expect((await first.request('POST', pingPath(box.domain), { headers: call.headers, rawBody: call.body! })).status).toBe(200);
    // A call about persons is held in the same store.
    const persons = signCall(first, box, 'POST', '/v1/presentations', { pass: 'not-a-pass' });
    expect((await first.request('POST', '/v1/presentations', { headers: persons.headers, rawBody: persons.body! })).status).toBe(200);
    await first.close({ removeData: false });

    const second = await startDirectory({ clock: own, dataDir: first.dataDir, allowLocalInboxes: true, answerWorkers: 0 });
    try {
      own.advance(200_000);
      expectProblem(await second.request('POST', pingPath(box.domain), { headers: call.headers, rawBody: call.body! }), 401, 'replayed_signature', 'replayed');
      expectProblem(await second.request('POST', '/v1/presentations', { headers: persons.headers, rawBody: persons.body! }), 401, 'replayed_signature', 'replayed');
      // Past expires + 60 s it is refused as expired, never taken again.
      own.advance(170_000);
      expectProblem(await second.request('POST', pingPath(box.domain), { headers: call.headers, rawBody: call.body! }), 401, 'unauthorized', 'expired');
      // What was kept is forgotten once past its time (the job runner's chore), and the table stays small.
      expect(await second.directory.store.replays.prune(Math.floor(own.now() / 1000))).toBeGreaterThanOrEqual(1);
    } finally {
      await second.close();
    }
  });
});
