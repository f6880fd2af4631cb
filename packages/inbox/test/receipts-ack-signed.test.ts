/**
 * acknowledge_receipt by receipt_id in a request the agent signs (inbox spec §4; docs/receipts.md
 * "Acknowledgement by a signed request"), over REST and the public MCP door. Every request is signed
 * by the independent `http-message-signatures` library, never by our signer, and what the inbox keeps
 * is checked with node:crypto alone: the signature over the base under the key, the body's digest in
 * the base, the receipt and item the body names. Refusals store nothing.
 */
import { createHash, createPublicKey, verify } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSigner, httpbis } from 'http-message-signatures';
import { contentDigestHeader, ed25519PrivateKey, type Ed25519KeyPair } from '@svc/shared';
import { createBooking, expectFieldProblem, expectProblem, ownerItem, ownerMove } from './support/customer-calls.js';
import { startInbox, type TestInbox } from './support/harness.js';
import { INBOX_ORIGIN, newAgent } from './support/agents.js';
import { Agent, type ReceiptLike } from './support/receipts.js';

let t: TestInbox;
beforeEach(async () => {
  t = await startInbox();
});
afterEach(async () => {
  await t.close();
});

let nonces = 0;

/** The agent's public key as Svc-Agent-Key carries it. */
function keyHeader(agent: Ed25519KeyPair): string {
  return `svc=:${Buffer.from(JSON.stringify({ kty: 'OKP', crv: 'Ed25519', x: agent.publicJwk.x })).toString('base64')}:`;
}

/**
 * A request signed by http-message-signatures under svc-agent/1: method, authority, path (and query),
 * the body's digest and the key's header; `headers` are sent but not covered, `covered` are both.
 */
async function signedPost(
  agent: Ed25519KeyPair,
  path: string,
  body: string,
  options: { headers?: Record<string, string>; covered?: Record<string, string>; alterBody?: (body: string) => string } = {},
) {
  const url = new URL(`${INBOX_ORIGIN}${path}`);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'content-digest': contentDigestHeader(body),
    'svc-agent-key': keyHeader(agent),
    ...(options.covered ?? {}),
  };
  const fields = ['@method', '@authority', '@path', ...(url.search ? ['@query'] : []), 'content-digest', 'svc-agent-key', ...Object.keys(options.covered ?? {})];
  const nowMs = t.clock.now();
  const signed = await httpbis.signMessage(
    {
      key: createSigner(ed25519PrivateKey(agent.privateJwk), 'ed25519', agent.kid),
      name: 'svc',
      fields,
      params: ['created', 'expires', 'nonce', 'keyid', 'alg', 'tag'],
      paramValues: { created: new Date(nowMs), expires: new Date(nowMs + 300_000), nonce: `independent-nonce-${(nonces += 1)}-${nowMs}`, tag: 'svc-agent' },
    },
    { method: 'POST', url: url.href, headers },
  );
  return t.request('POST', path, { rawBody: options.alterBody ? options.alterBody(body) : body, headers: { ...(signed.headers as Record<string, string>), ...(options.headers ?? {}) } });
}

/** A confirmed booking (unsigned, as any customer makes it) with its receipt. */
async function confirmedBooking(at = '2026-11-24T14:00:00Z'): Promise<{ id: string; accessToken: string; receipt: ReceiptLike }> {
  const booking = await createBooking(t, 'haircut', at);
  const confirmed = await ownerMove(t, booking.id, 'confirm');
  return { id: booking.id, accessToken: booking.accessToken, receipt: confirmed.receipts[0] };
}

/** What could have been stored: the receipts' acknowledgements and the acknowledgement events. */
async function storedAcks(itemId: string) {
  const item = await ownerItem(t, itemId);
  return {
    acknowledged: item.receipts.map((r: ReceiptLike) => r.acknowledgement),
    events: item.events.filter((e: any) => e.type.endsWith('.receipt_acknowledged')).map((e: any) => e.data),
  };
}

/**
 * Checks a kept signed-request acknowledgement as a stranger would, with node:crypto only: the
 * signature verifies over the base under the key; the base's content-digest is the body's SHA-256;
 * the base names this inbox's host, POST and the path; the body names the receipt (and, on MCP, the item).
 */
function checkEvidence(acknowledgement: any, expected: { itemId: string; receiptId: string; door: 'rest' | 'mcp'; agent: Ed25519KeyPair }) {
  expect(acknowledgement.form).toBe('signed_request');
  const evidence = acknowledgement.signed_request;
  expect(evidence.key).toMatchObject({ kty: 'OKP', crv: 'Ed25519', x: expected.agent.publicJwk.x });
  expect(evidence.key).not.toHaveProperty('d');
  const signature = /^svc=:([A-Za-z0-9+/=]+):$/.exec(evidence.signature)?.[1];
  expect(signature).toBeDefined();
  const key = createPublicKey({ key: evidence.key, format: 'jwk' });
  expect(verify(null, Buffer.from(evidence.signature_base, 'utf8'), key, Buffer.from(signature as string, 'base64'))).toBe(true);
  const lines: string[] = evidence.signature_base.split('\n');
  expect(lines).toContain('"@method": POST');
  expect(lines).toContain('"@authority": 127.0.0.1');
  expect(lines).toContain(`"@path": ${expected.door === 'rest' ? `/v1/items/${expected.itemId}/receipt-ack` : '/mcp'}`);
  expect(lines).toContain(`"content-digest": sha-256=:${createHash('sha256').update(evidence.body, 'utf8').digest('base64')}:`);
  expect(lines.at(-1)).toBe(`"@signature-params": ${evidence.signature_input.replace(/^svc=/, '')}`);
  const body = JSON.parse(evidence.body);
  if (expected.door === 'rest') expect(body.receipt_id).toBe(expected.receiptId);
  else expect(body.params).toMatchObject({ name: 'acknowledge_receipt', arguments: { id: expected.itemId, receipt_id: expected.receiptId } });
  expect(evidence.body).not.toMatch(/svc_tok_/);
  expect(acknowledgement.agent_key).toBe(expected.agent.kid);
}

describe('acknowledge_receipt by receipt_id in a signed request (REST)', () => {
  it('acknowledges the receipt; what is kept is checkable with the key alone, shown everywhere, recorded once', async () => {
    const booking = await confirmedBooking();
    const agent = newAgent();
    const path = `/v1/items/${booking.id}/receipt-ack`;
    const body = JSON.stringify({ receipt_id: booking.receipt.receipt_id, idempotency_key: 'signed-ack-1' });
    const r = await signedPost(agent, path, body, { headers: { 'x-access-token': booking.accessToken } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.headers.get('svc-signature')).toBe(`verified; keyid="${agent.kid}"`);
    expect(r.body.item_id).toBe(booking.id);
    expect(r.body.receipt).toMatchObject({ receipt_id: booking.receipt.receipt_id, jws: booking.receipt.jws, acknowledged: true });
    expect(r.body.receipt.acknowledgement).toMatchObject({
      form: 'signed_request',
      agent_key: agent.kid,
      signed_at: new Date(t.clock.now()).toISOString(),
      received_at: new Date(t.clock.now()).toISOString(),
    });
    expect(r.body.receipt.acknowledgement.signed_request.body).toBe(body);
    checkEvidence(r.body.receipt.acknowledgement, { itemId: booking.id, receiptId: booking.receipt.receipt_id, door: 'rest', agent });

    // The owner and the customer see the same; one event says so.
    const stored = await storedAcks(booking.id);
    expect(stored.acknowledged).toEqual([r.body.receipt.acknowledgement]);
    expect(stored.events).toEqual([{ receipt_id: booking.receipt.receipt_id, agent_key: agent.kid, form: 'signed_request' }]);
    const status = await t.request('GET', `/v1/items/${booking.id}`, { headers: { 'x-access-token': booking.accessToken } });
    expect(status.body.receipts[0]).toEqual(r.body.receipt);

    // Another signed request of the same key: the same answer, the first kept, no second event.
    t.clock.advance(30_000);
    const again = await signedPost(agent, path, JSON.stringify({ receipt_id: booking.receipt.receipt_id, idempotency_key: 'signed-ack-2' }), { headers: { 'x-access-token': booking.accessToken } });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body).toEqual(r.body);
    // So is a JWS acknowledgement by the same key afterwards.
    const jws = new Agent();
    Object.assign(jws, { key: agent });
    const byJws = await t.request('POST', path, { body: { ack: await jws.acknowledge(booking.receipt, Math.floor(t.clock.now() / 1000)) }, headers: { 'x-access-token': booking.accessToken } });
    expect(byJws.status, JSON.stringify(byJws.body)).toBe(200);
    expect(byJws.body).toEqual(r.body);
    // Another key: refused, as for a JWS.
    const stranger = await signedPost(newAgent(), path, JSON.stringify({ receipt_id: booking.receipt.receipt_id, idempotency_key: 'signed-ack-3' }), { headers: { 'x-access-token': booking.accessToken } });
    expectProblem(stranger, 409, 'already_acknowledged');
    expect((await storedAcks(booking.id)).events).toHaveLength(1);
  });

  it('opens the item with the bound signature of the agent that created it, no token at all', async () => {
    const agent = newAgent();
    const body = JSON.stringify({ payload: { serviceId: 'haircut', startTime: '2026-11-24T10:00:00Z' }, contact: { name: 'Ana Silva' } });
    const created = await signedPost(agent, '/v1/bookings', body);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const receipt = (await ownerMove(t, created.body.id, 'confirm')).receipts[0];
    const r = await signedPost(agent, `/v1/items/${created.body.id}/receipt-ack`, JSON.stringify({ receipt_id: receipt.receipt_id }));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    checkEvidence(r.body.receipt.acknowledgement, { itemId: created.body.id, receiptId: receipt.receipt_id, door: 'rest', agent });
  });

  it('refuses, storing nothing: unsigned, a signature that does not verify, a secret in what is signed, a receipt not in the signed body, unknown and foreign receipts', async () => {
    const booking = await confirmedBooking();
    const other = await confirmedBooking('2026-11-24T16:00:00Z');
    const agent = newAgent();
    const path = `/v1/items/${booking.id}/receipt-ack`;
    const token = { 'x-access-token': booking.accessToken };
    const receiptId = booking.receipt.receipt_id;

    // Unsigned: a clear problem saying to sign the request or send ack.
    const unsigned = await t.request('POST', path, { body: { receipt_id: receiptId }, headers: token });
    expectFieldProblem(unsigned, 'ack', 'missing');
    expect(unsigned.body.detail).toMatch(/sign this request/);
    expect(unsigned.body.detail).toMatch(/send ack/);
    // A signature that does not verify counts as none, and the answer says why.
    const forged = await signedPost(agent, path, JSON.stringify({ receipt_id: receiptId }), { headers: token, alterBody: (b) => b.replace('}', ' }') });
    expect(forged.headers.get('svc-signature')).toBe('invalid; reason=digest_mismatch');
    expectFieldProblem(forged, 'ack', 'missing');
    expect(forged.body.detail).toMatch(/Svc-Signature/);

    // The access token inside what is signed (the body, or a covered header) would be kept and shown.
    for (const [what, request] of [
      ['token in the body', () => signedPost(agent, path, JSON.stringify({ receipt_id: receiptId, access_token: booking.accessToken }))],
      ['token in a covered header', () => signedPost(agent, path, JSON.stringify({ receipt_id: receiptId }), { covered: token })],
    ] as const) {
      const r = await request();
      expectProblem(r, 422, 'bad_acknowledgement');
      expect(r.body.ack_error, what).toBe('carries_secret');
      expect(r.body.detail).toContain('X-Access-Token');
    }
    // The receipt named only in the query: the signed body does not name it.
    const inQuery = await signedPost(agent, `${path}?receipt_id=${receiptId}`, JSON.stringify({ idempotency_key: 'q-1' }), { headers: token });
    expectProblem(inQuery, 422, 'bad_acknowledgement');
    expect(inQuery.body.ack_error).toBe('receipt_not_signed');
    // A receipt the item does not have, and another item's.
    const unknown = await signedPost(agent, path, JSON.stringify({ receipt_id: 'f'.repeat(32) }), { headers: token });
    expectProblem(unknown, 422, 'wrong_receipt');
    expect(unknown.body.ack_error).toBe('unknown_receipt');
    const foreign = await signedPost(agent, path, JSON.stringify({ receipt_id: other.receipt.receipt_id }), { headers: token });
    expectProblem(foreign, 403, 'receipt_of_other_item');
    // Access as for every item call: a signature of another agent opens nothing without the token.
    expectProblem(await signedPost(agent, path, JSON.stringify({ receipt_id: receiptId })), 401, 'unauthorized');

    expect(await storedAcks(booking.id)).toEqual({ acknowledged: [null], events: [] });
    expect(await storedAcks(other.id)).toEqual({ acknowledged: [null], events: [] });
  });
});

describe('acknowledge_receipt by receipt_id on the public MCP door', () => {
  const mcpCall = (id: number, args: Record<string, unknown>) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'acknowledge_receipt', arguments: args } });
  const MCP_HEADERS = { accept: 'application/json, text/event-stream' };

  /** The tool's result from a JSON or an SSE answer. */
  function resultOf(r: { body: unknown }): { isError?: boolean; structuredContent: any } {
    const text = typeof r.body === 'string' ? r.body : JSON.stringify(r.body);
    const data = text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? 'null');
    return JSON.parse(data).result;
  }

  it('a signed tools/call naming receipt_id acknowledges it; unsigned, it is refused saying how', async () => {
    const booking = await confirmedBooking();
    const agent = newAgent();
    const headers = { ...MCP_HEADERS, 'x-access-token': booking.accessToken };

    const unsigned = await t.request('POST', '/mcp', { rawBody: mcpCall(1, { id: booking.id, receipt_id: booking.receipt.receipt_id }), headers: { ...headers, 'content-type': 'application/json' } });
    const refused = resultOf(unsigned);
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent.error).toMatchObject({ status: 422, code: 'invalid_input', fields: [{ path: 'ack', problem: 'missing' }] });
    expect(refused.structuredContent.error.detail).toMatch(/sign this request/);

    const signed = await signedPost(agent, '/mcp', mcpCall(2, { id: booking.id, receipt_id: booking.receipt.receipt_id, idempotency_key: 'mcp-signed-ack' }), { headers });
    expect(signed.status).toBe(200);
    expect(signed.headers.get('svc-signature')).toBe(`verified; keyid="${agent.kid}"`);
    const answer = resultOf(signed);
    expect(answer.isError, JSON.stringify(answer)).toBeFalsy();
    checkEvidence(answer.structuredContent.receipt.acknowledgement, { itemId: booking.id, receiptId: booking.receipt.receipt_id, door: 'mcp', agent });
    const stored = await storedAcks(booking.id);
    expect(stored.acknowledged).toEqual([answer.structuredContent.receipt.acknowledgement]);
    expect(stored.events).toHaveLength(1);
    expect((await ownerItem(t, booking.id)).events.at(-1)).toMatchObject({ type: 'booking.receipt_acknowledged', channel: 'mcp_public' });
  });
});
