/**
 * Receipt intake over real HTTP (issue 13, PROTOCOL-13 §3): a verified inbox publishes receipts it
 * signed, with its customers' acknowledgements; the listing (REST and MCP), the stats and the ping
 * answer count exactly what was taken. Forged, altered, foreign, oversized, early, re-used and
 * wrongly acknowledged receipts are refused with precise problems, and nothing is counted or lost.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { RECEIPT_ACK_TYP, ed25519PrivateKey, signCompactJws } from '@svc/shared';
import { compactVerify, importJWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MONDAY } from './support/fixtures.js';
import { TestClock, startDirectory, type ApiResponse, type TestDirectory } from './support/harness.js';
import {
  closeSignedInboxes,
  newKey,
  pingPath,
  receiptClaims,
  registerVerified,
  signAck,
  signCall,
  signReceipt,
  signed,
  signedInbox,
  type SignedInbox,
} from './support/signed-inbox.js';

function expectProblem(r: ApiResponse, status: number, code: string, extension?: Record<string, string>): void {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(r.body).toMatchObject({ status, code, type: expect.stringMatching(new RegExp(`/problems/${code}$`)), detail: expect.any(String), ...(extension ?? {}) });
}

const clock = new TestClock(MONDAY);
let t: TestDirectory;
let inbox: SignedInbox;
let other: SignedInbox;
const agent = newKey();
const nowSec = () => Math.floor(clock.now() / 1000);

const publish = (body: Record<string, unknown>, as: SignedInbox = inbox) => signed(t, as, 'POST', '/v1/receipts', body);

/** What the network shows of the inbox: its detail view (after the listing job ran), the stats and its signed ping. */
async function shown() {
  await t.directory.jobs.runDue();
  const [detail, stats, ping] = [
    (await t.get(`/v1/businesses/${encodeURIComponent(inbox.domain)}`)).body,
    (await t.get('/v1/stats')).body,
    (await signed(t, inbox, 'POST', pingPath(inbox.domain), {})).body,
  ];
  return { receipts: detail.receipts, outcomes: detail.outcomes, stats: { issued: stats.receipts_issued, acknowledged: stats.receipts_acknowledged }, held: ping.receipts };
}

beforeAll(async () => {
  t = await startDirectory({ clock, allowLocalInboxes: true, answerWorkers: 0 });
  inbox = await signedInbox();
  other = await signedInbox();
  await registerVerified(t, inbox);
  await registerVerified(t, other);
});
afterAll(async () => {
  await t.close();
  await closeSignedInboxes();
});

const confirmed = signReceiptNow({ sub: 'customer-a', itm: 'booking-1', nonce: 'a'.repeat(32) });
function signReceiptNow(overrides: Record<string, unknown> = {}, key?: () => SignedInbox['key']) {
  return () => signReceipt((key ?? (() => inbox.key))(), receiptClaims(inbox, clock.now(), overrides));
}

describe('taking receipts', () => {
  let promise: string;

  it('a new receipt: 201 issued, counted; the listing, the stats and the ping answer say so', async () => {
    promise = confirmed();
    // Verified independently: the receipt is a valid compact JWS under the inbox's published key.
    const verified = await compactVerify(promise, await importJWK({ ...inbox.key.publicJwk }, 'EdDSA'));
    expect(verified.protectedHeader).toMatchObject({ alg: 'EdDSA', typ: 'svc-receipt+jws', kid: inbox.key.kid });
    const r = await publish({ receipt: promise });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body).toEqual({ ok: true, receipt_id: 'a'.repeat(32), state: 'issued', duplicate: false, counted: true });
    expect(await shown()).toEqual({
      receipts: { issued: 1, acknowledged: 0, customers: 1, last_at: new Date(clock.now()).toISOString() },
      outcomes: {},
      stats: { issued: 1, acknowledged: 0 },
      held: { accepted: 1, acknowledged: 0 },
    });
  });

  it('the same receipt again: 200 duplicate, counted once', async () => {
    const r = await publish({ receipt: promise });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ok: true, receipt_id: 'a'.repeat(32), state: 'issued', duplicate: true, counted: true });
    expect((await shown()).stats).toEqual({ issued: 1, acknowledged: 0 });
  });

  it('with the acknowledgement it lacked: 200, now acknowledged; an acknowledgement again is harmless', async () => {
    clock.advance(60_000);
    const ack = signAck(agent, promise, nowSec());
    const r = await publish({ receipt: promise, ack });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ state: 'acknowledged', duplicate: true, counted: true });
    const again = await publish({ receipt: promise, ack: signAck(agent, promise, nowSec()) });
    expect(again.body).toMatchObject({ state: 'acknowledged', duplicate: true });
    const now = await shown();
    expect(now.receipts).toMatchObject({ issued: 1, acknowledged: 1, customers: 1 });
    expect(now.stats).toEqual({ issued: 1, acknowledged: 1 });
    expect(now.held).toEqual({ accepted: 1, acknowledged: 1 });
  });

  it('an outcome with its acknowledgement: 201 acknowledged, and the detail counts the outcome of the promise', async () => {
    clock.advance(3 * 86_400_000);
    const outcome = signReceipt(inbox.key, receiptClaims(inbox, clock.now(), { sub: 'customer-a', itm: 'booking-1', knd: 'outcome', out: 'booking.completed', ref: 'a'.repeat(32), evt: 'booking.completed' }));
    const r = await publish({ receipt: outcome, ack: signAck(agent, outcome, nowSec()) });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ state: 'acknowledged', duplicate: false, counted: true });
    const now = await shown();
    expect(now.outcomes).toEqual({ 'booking.completed': 1 });
    expect(now.receipts).toMatchObject({ issued: 2, acknowledged: 2, customers: 1 });
  });

  it('a later outcome of the same promise replaces it; a business\'s broken outcome is final', async () => {
    const base = { sub: 'customer-b', itm: 'booking-2' };
    const promiseB = signReceipt(inbox.key, receiptClaims(inbox, clock.now(), { ...base, nonce: 'b'.repeat(32) }));
    expect((await publish({ receipt: promiseB })).status).toBe(201);
    const cancelled = signReceipt(inbox.key, receiptClaims(inbox, clock.now() + 1_000, { ...base, knd: 'outcome', out: 'booking.cancelled_by_business', ref: 'b'.repeat(32), evt: 'booking.cancelled' }));
    const completed = signReceipt(inbox.key, receiptClaims(inbox, clock.now() + 2_000, { ...base, knd: 'outcome', out: 'booking.completed', ref: 'b'.repeat(32), evt: 'booking.completed', prv: 'c'.repeat(32) }));
    expect((await publish({ receipt: cancelled })).status).toBe(201);
    expect((await publish({ receipt: completed })).status).toBe(201);
    const now = await shown();
    expect(now.outcomes).toEqual({ 'booking.completed': 1, 'booking.cancelled_by_business': 1 });
    expect(now.receipts).toMatchObject({ issued: 5, customers: 2 });
  });

  it('a sandbox receipt is held and counted for nothing', async () => {
    const before = await shown();
    const sandbox = signReceipt(inbox.key, receiptClaims(inbox, clock.now(), { sbx: 1, sub: 'tester' }));
    const r = await publish({ receipt: sandbox });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ counted: false, duplicate: false });
    expect((await publish({ receipt: sandbox })).body).toMatchObject({ counted: false, duplicate: true });
    const after = await shown();
    expect(after.receipts).toEqual(before.receipts);
    expect(after.stats).toEqual(before.stats);
    expect(after.held.accepted).toBe(before.held.accepted + 1);
  });

  it('the detail view through MCP shows the same receipts and outcomes', async () => {
    const client = new Client({ name: 'receipts-test', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`)));
    try {
      const result = await client.callTool({ name: 'get_business', arguments: { domain: inbox.domain } });
      const listing = result.structuredContent as { receipts: unknown; outcomes: unknown };
      const rest = (await t.get(`/v1/businesses/${encodeURIComponent(inbox.domain)}`)).body;
      expect(listing.receipts).toEqual(rest.receipts);
      expect(listing.outcomes).toEqual(rest.outcomes);
      expect(rest.receipts).toMatchObject({ issued: 5, acknowledged: 2, customers: 2 });
    } finally {
      await client.close();
    }
  });
});

describe('receipts arriving together', () => {
  it('forty at once, some duplicates and one replayed signature: each answered for itself, each receipt held and counted once', async () => {
    const before = await shown();
    const receipts = Array.from({ length: 30 }, (_, i) => signReceipt(inbox.key, receiptClaims(inbox, clock.now(), { sub: `crowd-${i % 7}`, itm: `crowd-${i}` })));
    const calls = [
      ...receipts.map((receipt) => signCall(t, inbox, 'POST', '/v1/receipts', { receipt })),
      // the same receipts again, signed anew: duplicates
      ...receipts.slice(0, 8).map((receipt) => signCall(t, inbox, 'POST', '/v1/receipts', { receipt })),
    ];
    // and one signed call sent twice
    const twice = signCall(t, inbox, 'POST', '/v1/receipts', { receipt: signReceipt(inbox.key, receiptClaims(inbox, clock.now(), { sub: 'crowd-twice' })) });
    const answers = await Promise.all([...calls, twice, twice].map((call) => t.request('POST', '/v1/receipts', { headers: call.headers, rawBody: call.body! })));
    const statuses = answers.map((a) => a.status);
    const [last, previous] = [statuses.pop()!, statuses.pop()!];
    expect([previous, last].sort()).toEqual([201, 401]);
    expect(answers.find((a) => a.status === 401)!.body.code).toBe('replayed_signature');
    // Each new receipt is 201 once and 200 (duplicate) for its other copy, whichever came first.
    const byReceipt = new Map<string, number[]>();
    answers.slice(0, calls.length).forEach((a) => byReceipt.set(a.body.receipt_id, [...(byReceipt.get(a.body.receipt_id) ?? []), a.status]));
    expect(byReceipt.size).toBe(30);
    for (const [, got] of byReceipt) expect(got.sort()).toEqual(got.length === 2 ? [200, 201] : [201]);
    const after = await shown();
    expect(after.receipts.issued).toBe(before.receipts.issued + 31);
    expect(after.stats.issued).toBe(before.stats.issued + 31);
    expect(after.held.accepted).toBe(before.held.accepted + 31);
    expect(after.receipts.customers).toBe(before.receipts.customers + 8);
  });
});

describe('refusals: precise problems, nothing counted, nothing lost', () => {
  let before: Awaited<ReturnType<typeof shown>>;
  beforeAll(async () => {
    before = await shown();
  });
  afterAll(async () => {
    const after = await shown();
    expect(after.receipts).toEqual(before.receipts);
    expect(after.outcomes).toEqual(before.outcomes);
    expect(after.stats).toEqual(before.stats);
    // The pings above each read the held count: nothing refused was held.
    expect(after.held).toEqual(before.held);
  });

  it('unsigned: 401; signed by nobody the network knows: 401', async () => {
    expectProblem(await t.request('POST', '/v1/receipts', { body: { receipt: confirmed() } }), 401, 'unauthorized', { signature_error: 'missing' });
    expectProblem(await signed(t, inbox, 'POST', '/v1/receipts', { receipt: confirmed() }, { key: newKey() }), 401, 'unauthorized', { signature_error: 'unknown_key' });
  });

  it('a replayed publication: 401 replayed_signature', async () => {
    const call = signCall(t, inbox, 'POST', '/v1/receipts', { receipt: promiseOf('d') });
    expect((await t.request('POST', '/v1/receipts', { headers: call.headers, rawBody: call.body! })).status).toBe(201);
    before = await shown();
    expectProblem(await t.request('POST', '/v1/receipts', { headers: call.headers, rawBody: call.body! }), 401, 'replayed_signature');
  });

  it('a forged receipt (its signature altered): 422 bad_receipt, bad_signature', async () => {
    const receipt = confirmed();
    const [h, p, s] = receipt.split('.') as [string, string, string];
    const forged = `${h}.${p}.${s.startsWith('A') ? 'B' : 'A'}${s.slice(1)}`;
    expectProblem(await publish({ receipt: forged }), 422, 'bad_receipt', { receipt_error: 'bad_signature' });
  });

  it('an altered receipt (its claims changed after signing): 422 bad_receipt, bad_signature', async () => {
    const [h, p, s] = confirmed().split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString('utf8'));
    const altered = Buffer.from(JSON.stringify({ ...claims, out: 'booking.completed', knd: 'outcome', ref: 'e'.repeat(32) })).toString('base64url');
    expectProblem(await publish({ receipt: `${h}.${altered}.${s}` }), 422, 'bad_receipt', { receipt_error: 'bad_signature' });
  });

  it('a receipt under a kid its manifest does not publish: 422 unknown_key', async () => {
    const stranger = newKey();
    expectProblem(await publish({ receipt: signReceipt(stranger, receiptClaims(inbox, clock.now())) }), 422, 'unknown_key', { receipt_error: 'unknown_key' });
  });

  it('a foreign receipt: another inbox\'s, published by this one (422 unknown_key), or signed by this one in another\'s name (403)', async () => {
    const theirs = signReceipt(other.key, receiptClaims(other, clock.now()));
    expectProblem(await publish({ receipt: theirs }), 422, 'unknown_key');
    const inTheirName = signReceipt(inbox.key, receiptClaims(other, clock.now()));
    expectProblem(await publish({ receipt: inTheirName }), 403, 'not_allowed');
    // The other inbox may publish its own (the network's totals count it).
    expect((await publish({ receipt: theirs }, other)).status).toBe(201);
    before = await shown();
  });

  it('claims that are not a receipt\'s, an acknowledgement posted as a receipt, another algorithm: 422 bad_receipt with the reason', async () => {
    expectProblem(await publish({ receipt: signReceipt(inbox.key, receiptClaims(inbox, clock.now(), { knd: 'outcome' })) }), 422, 'bad_receipt', { receipt_error: 'bad_payload' });
    expectProblem(await publish({ receipt: signReceipt(inbox.key, receiptClaims(inbox, clock.now()), { typ: RECEIPT_ACK_TYP }) }), 422, 'bad_receipt', { receipt_error: 'bad_typ' });
    const hs = `${Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'svc-receipt+jws', kid: inbox.key.kid })).toString('base64url')}.${Buffer.from('{}').toString('base64url')}.${'A'.repeat(43)}`;
    expectProblem(await publish({ receipt: hs }), 422, 'bad_receipt', { receipt_error: 'bad_alg' });
    expectProblem(await publish({ receipt: 'not.a.jws' }), 422, 'bad_receipt', { receipt_error: 'malformed' });
  });

  it('a receipt issued more than 300 s ahead of the network\'s clock: 422 bad_receipt, not_yet', async () => {
    expectProblem(await publish({ receipt: signReceipt(inbox.key, receiptClaims(inbox, clock.now() + 301_000)) }), 422, 'bad_receipt', { receipt_error: 'not_yet' });
  });

  it('another receipt under a receipt id already held: 422 bad_receipt, id_reused', async () => {
    const reused = signReceipt(inbox.key, receiptClaims(inbox, clock.now(), { nonce: 'a'.repeat(32), sub: 'someone-else' }));
    expectProblem(await publish({ receipt: reused }), 422, 'bad_receipt', { receipt_error: 'id_reused' });
  });

  it('acknowledgements that do not bind the receipt, or do not verify: 422 bad_acknowledgement, and the receipt is not held either', async () => {
    const receipt = promiseOf('f');
    const otherReceipt = promiseOf('9');
    expectProblem(await publish({ receipt, ack: signAck(agent, otherReceipt, nowSec()) }), 422, 'bad_acknowledgement', { ack_error: 'wrong_receipt' });
    // names this receipt but hashes other bytes
    expectProblem(await publish({ receipt, ack: signAck(agent, receipt, nowSec(), { sha: 'x'.repeat(43) }) }), 422, 'bad_acknowledgement', { ack_error: 'wrong_receipt' });
    const ack = signAck(agent, receipt, nowSec());
    const [h, p, s] = ack.split('.') as [string, string, string];
    expectProblem(await publish({ receipt, ack: `${h}.${p}.${s.startsWith('A') ? 'B' : 'A'}${s.slice(1)}` }), 422, 'bad_acknowledgement', { ack_error: 'bad_signature' });
    expectProblem(await publish({ receipt, ack: signAck(agent, receipt, nowSec() + 301) }), 422, 'bad_acknowledgement', { ack_error: 'not_yet' });
    expectProblem(await publish({ receipt, ack: signAck(agent, receipt, nowSec() - 3_600) }), 422, 'bad_acknowledgement', { ack_error: 'before_receipt' });
    // An acknowledgement carrying a private key in its header is refused too.
    const leaky = signCompactJws({ alg: 'EdDSA', typ: RECEIPT_ACK_TYP, jwk: agent.privateJwk }, { rcp: 'f'.repeat(32), sha: 'x'.repeat(43), iat: nowSec() }, ed25519PrivateKey(agent.privateJwk));
    expectProblem(await publish({ receipt, ack: leaky }), 422, 'bad_acknowledgement', { ack_error: 'bad_key' });
    // None of them held the receipt: published alone now, it is new.
    before = await shown();
    expect((await publish({ receipt })).status).toBe(201);
    before = await shown();
  });

  it('oversized: a receipt over 4096 characters, an acknowledgement over 2048, a body over 16 KiB: 413 too_large', async () => {
    const padded = signReceipt(inbox.key, receiptClaims(inbox, clock.now(), { evt: 'booking.confirmed', pad: 'x'.repeat(4_000) }));
    expect(padded.length).toBeGreaterThan(4_096);
    expectProblem(await publish({ receipt: padded }), 413, 'too_large');
    expectProblem(await publish({ receipt: confirmed(), ack: 'a'.repeat(2_049) }), 413, 'too_large');
    expectProblem(await publish({ receipt: confirmed(), pad: 'p'.repeat(17 * 1024) }), 413, 'too_large');
  });

  it('an inbox not verified, or not registered: 409 wrong_state', async () => {
    const pending = await signedInbox();
    expect((await signed(t, pending, 'POST', '/v1/instances', { domain: pending.domain })).status).toBe(202);
    expectProblem(await publish({ receipt: signReceipt(pending.key, receiptClaims(pending, clock.now())) }, pending), 409, 'wrong_state');
    const stranger = await signedInbox();
    expectProblem(await publish({ receipt: signReceipt(stranger.key, receiptClaims(stranger, clock.now())) }, stranger), 409, 'wrong_state');
  });

  it('a bad body: 400 naming the field', async () => {
    const r = await publish({ ack: 'x' });
    expectProblem(r, 400, 'bad_request');
    expect(r.body.fields).toEqual([expect.objectContaining({ path: 'receipt' })]);
  });
});

/** A promise receipt of this inbox whose id is the character repeated. */
function promiseOf(c: string): string {
  return signReceipt(inbox.key, receiptClaims(inbox, clock.now(), { nonce: c.repeat(32), sub: `customer-${c}` }));
}
