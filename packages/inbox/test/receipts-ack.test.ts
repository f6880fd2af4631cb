/**
 * acknowledge_receipt (docs/receipts.md "Acknowledgement"), REST and the public MCP tool: a customer's
 * agent counter-signs a receipt with its own Ed25519 key (acknowledgements made by jose, never by our
 * code), the inbox checks and stores it and records <type>.receipt_acknowledged; the same one again is
 * harmless; every refusal is a precise problem document and leaves nothing stored.
 */
import { CompactSign, EmbeddedJWK, calculateJwkThumbprint, compactVerify, importJWK } from 'jose';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generateEd25519Key, receiptSha256 } from '@svc/shared';
import { connectMcp } from '../../../test-support/mcp-client.js';
import { createBooking, expectFieldProblem, expectProblem, ownerItem, ownerMove, status } from './support/customer-calls.js';
import { startInbox, type TestInbox } from './support/harness.js';
import { Agent, verifyReceiptWithJose, type ReceiptLike } from './support/receipts.js';
import { startWebhookInbox } from './support/webhooks-inbox.js';
import { startReceiver } from './support/webhook-receiver.js';
import { fullReceiptEventSchema } from '../src/domain/events/event-schemas.js';

const TUESDAY_2PM = '2026-11-24T14:00:00Z';
const TUESDAY_4PM = '2026-11-24T16:00:00Z';

let t: TestInbox;
const nowSec = () => Math.floor(t.clock.now() / 1000);

/** A confirmed booking with its receipt. */
async function confirmedBooking(at = TUESDAY_2PM): Promise<{ id: string; accessToken: string; receipt: ReceiptLike }> {
  const booking = await createBooking(t, 'haircut', at);
  const confirmed = await ownerMove(t, booking.id, 'confirm');
  return { id: booking.id, accessToken: booking.accessToken, receipt: confirmed.receipts[0] };
}

function ack(itemId: string, token: string | null, body: Record<string, unknown>) {
  return t.request('POST', `/v1/items/${itemId}/receipt-ack`, { body, headers: token === null ? {} : { 'x-access-token': token } });
}

/** What could have been stored: the receipt's acknowledgement and the item's acknowledgement events. */
async function storedAcks(itemId: string) {
  const item = await ownerItem(t, itemId);
  return {
    acknowledged: item.receipts.map((r: ReceiptLike) => r.acknowledgement),
    events: item.events.filter((e: any) => e.type.endsWith('.receipt_acknowledged')).length,
  };
}

/** Signs any header and payload with a key of our own, through jose. */
async function signRaw(header: Record<string, unknown>, payload: Record<string, unknown>, privateJwk: object) {
  return new CompactSign(new TextEncoder().encode(JSON.stringify(payload))).setProtectedHeader(header as any).sign(await importJWK(privateJwk as any, 'EdDSA'));
}

beforeEach(async () => {
  t = await startInbox();
});
afterEach(async () => {
  await t.close();
});

describe('acknowledge_receipt', () => {
  it('stores a valid acknowledgement, shows it everywhere and records receipt_acknowledged', async () => {
    const booking = await confirmedBooking();
    const agent = new Agent();
    const jws = await agent.acknowledge(booking.receipt, nowSec());
    const r = await ack(booking.id, booking.accessToken, { ack: jws, receipt_id: booking.receipt.receipt_id, idempotency_key: 'ack-1' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const jkt = await calculateJwkThumbprint(agent.key.publicJwk as any, 'sha256');
    expect(r.body).toEqual({
      item_id: booking.id,
      receipt: {
        ...booking.receipt,
        acknowledged: true,
        acknowledgement: { form: 'jws', jws, agent_key: jkt, signed_at: new Date(nowSec() * 1000).toISOString(), received_at: new Date(t.clock.now()).toISOString() },
      },
    });
    // What is stored is exactly what the agent signed: jose verifies it under the key it carries, bound to the receipt.
    const { payload, protectedHeader } = await compactVerify(r.body.receipt.acknowledgement.jws, EmbeddedJWK);
    expect(protectedHeader.typ).toBe('svc-receipt-ack+jws');
    expect(JSON.parse(new TextDecoder().decode(payload))).toEqual({ rcp: booking.receipt.receipt_id, sha: receiptSha256(booking.receipt.jws), iat: nowSec() });
    // The receipt itself is unchanged and still verifies.
    expect((await verifyReceiptWithJose(t, r.body.receipt.jws)).claims.nonce).toBe(booking.receipt.receipt_id);

    // The owner and the customer see it; one event says so.
    const owner = await ownerItem(t, booking.id);
    expect(owner.receipts[0]).toEqual(r.body.receipt);
    expect((await status(t, booking.id, booking.accessToken)).receipts[0]).toEqual(r.body.receipt);
    const events = owner.events.filter((e: any) => e.type === 'booking.receipt_acknowledged');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ version: 2, data: { receipt_id: booking.receipt.receipt_id, agent_key: jkt }, by: { kind: 'customer_agent', id: null }, channel: 'rest' });
    const stream = await t.owner('GET', '/v1/owner/events?types=booking.receipt_acknowledged');
    expect(stream.body.events.map((e: any) => e.data.id)).toEqual([booking.id]);
  });

  it('the item token may come as a Bearer header or in the body', async () => {
    const first = await confirmedBooking();
    const second = await confirmedBooking(TUESDAY_4PM);
    const agent = new Agent();
    const bearer = await t.request('POST', `/v1/items/${first.id}/receipt-ack`, {
      body: { ack: await agent.acknowledge(first.receipt, nowSec()) },
      headers: { authorization: `Bearer ${first.accessToken}` },
    });
    expect(bearer.status, JSON.stringify(bearer.body)).toBe(200);
    const inBody = await ack(second.id, null, { ack: await agent.acknowledge(second.receipt, nowSec()), access_token: second.accessToken });
    expect(inBody.status, JSON.stringify(inBody.body)).toBe(200);
  });

  it('the same acknowledgement again is harmless: the same answer, nothing new; the same key signing again too', async () => {
    const booking = await confirmedBooking();
    const agent = new Agent();
    const jws = await agent.acknowledge(booking.receipt, nowSec());
    const first = await ack(booking.id, booking.accessToken, { ack: jws });
    expect(first.status).toBe(200);
    const before = await storedAcks(booking.id);

    // Byte for byte again, even two hours later (it is what is stored already).
    t.clock.advance(2 * 3_600_000);
    const again = await ack(booking.id, booking.accessToken, { ack: jws });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    // The same agent key signing afresh: the first acknowledgement stands.
    const resigned = await ack(booking.id, booking.accessToken, { ack: await agent.acknowledge(booking.receipt, nowSec()) });
    expect(resigned.status).toBe(200);
    expect(resigned.body).toEqual(first.body);
    expect(await storedAcks(booking.id)).toEqual(before);
    expect(before.events).toBe(1);

    // Another key may not acknowledge it again.
    const other = await ack(booking.id, booking.accessToken, { ack: await new Agent().acknowledge(booking.receipt, nowSec()) });
    expectProblem(other, 409, 'already_acknowledged');
    expect(other.body.ack_error).toBe('already_acknowledged');
    expect(await storedAcks(booking.id)).toEqual(before);
  });

  it('refuses every bad acknowledgement precisely, and stores nothing', async () => {
    const booking = await confirmedBooking();
    const other = await confirmedBooking(TUESDAY_4PM);
    const agent = new Agent();
    const { receipt } = booking;
    const base = { rcp: receipt.receipt_id, sha: receiptSha256(receipt.jws), iat: nowSec() };
    const header = { alg: 'EdDSA', typ: 'svc-receipt-ack+jws', jwk: { ...agent.key.publicJwk } };
    const good = await agent.acknowledge(receipt, nowSec());
    const [h, p, s] = good.split('.') as [string, string, string];
    const otherPayload = Buffer.from(JSON.stringify({ ...base, iat: base.iat - 1 })).toString('base64url');
    const flipped = `${s.slice(0, 10)}${s[10] === 'A' ? 'B' : 'A'}${s.slice(11)}`;

    const cases: [string, Promise<string> | string, number, string, string][] = [
      ['altered payload', `${h}.${otherPayload}.${s}`, 422, 'bad_acknowledgement', 'bad_signature'],
      ['altered signature', `${h}.${p}.${flipped}`, 422, 'bad_acknowledgement', 'bad_signature'],
      ['signed by a key other than the one it carries', signRaw(header, base, generateEd25519Key().privateJwk), 422, 'bad_acknowledgement', 'bad_signature'],
      ['not a JWS', 'not.a-jws', 422, 'bad_acknowledgement', 'malformed'],
      ['two parts', `${h}.${p}`, 422, 'bad_acknowledgement', 'malformed'],
      ['another typ', agent.acknowledge(receipt, nowSec(), { header: { typ: 'JWT' } }), 422, 'bad_acknowledgement', 'bad_typ'],
      ['another alg', `${Buffer.from(JSON.stringify({ ...header, alg: 'HS256' })).toString('base64url')}.${p}.${s}`, 422, 'bad_acknowledgement', 'bad_alg'],
      ['no key in the header', agent.acknowledge(receipt, nowSec(), { header: { jwk: undefined } }), 422, 'bad_acknowledgement', 'bad_key'],
      ['a private key in the header', agent.acknowledge(receipt, nowSec(), { header: { jwk: { ...agent.key.privateJwk } } }), 422, 'bad_acknowledgement', 'bad_key'],
      ['an rcp that is no receipt id', agent.acknowledge(receipt, nowSec(), { payload: { rcp: 'R1' } }), 422, 'bad_acknowledgement', 'bad_payload'],
      ['no iat', agent.acknowledge(receipt, nowSec(), { payload: { iat: undefined } }), 422, 'bad_acknowledgement', 'bad_payload'],
      ['the hash of other bytes', agent.acknowledge(receipt, nowSec(), { payload: { sha: receiptSha256(`${receipt.jws}x`) } }), 422, 'wrong_receipt', 'sha_mismatch'],
      ['a receipt that does not exist', agent.acknowledge({ receipt_id: 'f'.repeat(32), jws: receipt.jws }, nowSec()), 422, 'wrong_receipt', 'unknown_receipt'],
      ["another item's receipt", agent.acknowledge(other.receipt, nowSec()), 403, 'receipt_of_other_item', 'other_item'],
      ['signed an hour and a second ago', agent.acknowledge(receipt, nowSec() - 3601), 422, 'acknowledgement_expired', 'stale'],
      ['signed five minutes and a second ahead', agent.acknowledge(receipt, nowSec() + 301), 422, 'acknowledgement_not_yet_valid', 'not_yet'],
    ];
    for (const [what, made, statusCode, code, reason] of cases) {
      const r = await ack(booking.id, booking.accessToken, { ack: await made });
      expectProblem(r, statusCode, code);
      expect(r.body.ack_error, what).toBe(reason);
    }
    // receipt_id naming another receipt than the acknowledgement does.
    const mismatch = await ack(booking.id, booking.accessToken, { ack: good, receipt_id: other.receipt.receipt_id });
    expectProblem(mismatch, 422, 'wrong_receipt');
    expect(mismatch.body.ack_error).toBe('receipt_id_mismatch');

    // Oversized, and not the shape asked for: refused at the door, naming the field.
    expectFieldProblem(await ack(booking.id, booking.accessToken, { ack: `${good}${'A'.repeat(2049 - good.length)}` }), 'ack');
    expectFieldProblem(await ack(booking.id, booking.accessToken, { ack: good, receipt_id: 'R1' }), 'receipt_id');
    expectFieldProblem(await ack(booking.id, booking.accessToken, {}), 'ack', 'missing');
    // Access as for other item calls.
    expectProblem(await ack(booking.id, null, { ack: good }), 401, 'unauthorized');
    expectProblem(await ack(booking.id, other.accessToken, { ack: good }), 401, 'unauthorized');
    expectProblem(await ack('01JZZZZZZZZZZZZZZZZZZZZZZZ', booking.accessToken, { ack: good }), 404, 'not_found');

    // Nothing of any of it was stored, on either item.
    expect(await storedAcks(booking.id)).toEqual({ acknowledged: [null], events: 0 });
    expect(await storedAcks(other.id)).toEqual({ acknowledged: [null], events: 0 });

    // The edges themselves are taken: signed exactly an hour ago.
    const edge = await ack(booking.id, booking.accessToken, { ack: await agent.acknowledge(receipt, nowSec() - 3600) });
    expect(edge.status, JSON.stringify(edge.body)).toBe(200);
    const ahead = await ack(other.id, other.accessToken, { ack: await agent.acknowledge(other.receipt, nowSec() + 300) });
    expect(ahead.status, JSON.stringify(ahead.body)).toBe(200);
  });

  it('each code has its page', async () => {
    for (const code of ['bad_acknowledgement', 'wrong_receipt', 'receipt_of_other_item', 'acknowledgement_expired', 'acknowledgement_not_yet_valid', 'already_acknowledged']) {
      const page = await t.request('GET', `/problems/${code}`);
      expect(page.status).toBe(200);
      expect(page.body).toMatchObject({ code, status: expect.any(Number), title: expect.any(String), description: expect.any(String) });
    }
    const doc = (await t.request('GET', '/openapi.json')).body;
    const op = doc.paths['/v1/items/{id}/receipt-ack'].post;
    expect(op.operationId).toBe('acknowledge_receipt');
    const declared = Object.entries<any>(op.responses).flatMap(([s, r]) => (Number(s) >= 400 ? String(r.description) : ''));
    for (const code of ['bad_acknowledgement', 'wrong_receipt', 'receipt_of_other_item', 'acknowledgement_expired', 'acknowledgement_not_yet_valid', 'already_acknowledged']) {
      expect(declared.join(' '), code).toContain(code);
    }
    expect(op.security).toEqual([{ itemToken: [] }, { itemTokenBearer: [] }, { itemTokenQuery: [] }, { agentSignature: [] }, { personPass: [] }]);
  });
});

describe('acknowledge_receipt over MCP', () => {
  it('takes the same acknowledgement, answers the same, and refuses alike', async () => {
    const booking = await confirmedBooking();
    const agent = new Agent();
    const jws = await agent.acknowledge(booking.receipt, nowSec());
    const mcp = await connectMcp(`${t.baseUrl}/mcp`);
    try {
      const tools = (await mcp.client.listTools()).tools;
      expect(tools.find((tool) => tool.name === 'acknowledge_receipt')?.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: true, destructiveHint: false });
      const stale = (await mcp.client.callTool({ name: 'acknowledge_receipt', arguments: { id: booking.id, access_token: booking.accessToken, ack: await agent.acknowledge(booking.receipt, nowSec() - 4000) } })) as any;
      expect(stale.isError).toBe(true);
      expect(stale.structuredContent.error).toMatchObject({ code: 'acknowledgement_expired', status: 422, ack_error: 'stale' });
      expect(await storedAcks(booking.id)).toEqual({ acknowledged: [null], events: 0 });

      const made = (await mcp.client.callTool({ name: 'acknowledge_receipt', arguments: { id: booking.id, access_token: booking.accessToken, ack: jws, idempotency_key: 'mcp-ack' } })) as any;
      expect(made.isError).toBeFalsy();
      expect(made.structuredContent.receipt.acknowledgement.jws).toBe(jws);
      const event = (await ownerItem(t, booking.id)).events.find((e: any) => e.type === 'booking.receipt_acknowledged');
      expect(event.channel).toBe('mcp_public');
      // The REST door gives the same answer for the same acknowledgement.
      const rest = await ack(booking.id, booking.accessToken, { ack: jws });
      expect(rest.body).toEqual(made.structuredContent);
    } finally {
      await mcp.close();
    }
  });
});

describe('receipt_acknowledged in full webhook payloads', () => {
  it('carries data.receipt with its acknowledgement', async () => {
    const w = await startWebhookInbox();
    const receiver = await startReceiver();
    try {
      const hook = await w.owner('POST', '/v1/owner/webhooks', { body: { url: receiver.url, events: ['booking.receipt_acknowledged'], payload_style: 'full' } });
      expect(hook.status, JSON.stringify(hook.body)).toBe(201);
      const made = await w.request('POST', '/v1/bookings', { body: { payload: { serviceId: 'haircut', startTime: TUESDAY_2PM }, contact: { name: 'Ana Silva' } } });
      const confirmed = await w.owner('POST', `/v1/owner/items/${made.body.id}/transitions`, { body: { event: 'confirm' } });
      const receipt = confirmed.body.receipts[0];
      const jws = await new Agent().acknowledge(receipt, Math.floor(w.clock.now() / 1000));
      const r = await w.request('POST', `/v1/items/${made.body.id}/receipt-ack`, { body: { ack: jws }, headers: { 'x-access-token': made.body.accessToken } });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      await w.deliver();
      const [delivery] = await receiver.waitFor(1);
      receiver.verify(delivery!, hook.body.secret);
      expect(delivery!.json.type).toBe('booking.receipt_acknowledged');
      expect(fullReceiptEventSchema.safeParse(delivery!.json).success).toBe(true);
      expect(delivery!.json.data.receipt).toEqual(r.body.receipt);
      expect(delivery!.json.data.human).toMatch(/counter-signed receipt/);
    } finally {
      await receiver.close();
      await w.close();
    }
  });
});
