/**
 * Receipts as a stranger checks them (docs/receipts.md): the instance's keys fetched from its own
 * /.well-known/jwks.json and every JWS verified with jose, never with our own code; and a customer's
 * agent that counter-signs with a key of its own, also through jose.
 */
import { CompactSign, compactVerify, createLocalJWKSet, importJWK, type JSONWebKeySet } from 'jose';
import { expect } from 'vitest';
import { generateEd25519Key, receiptSha256, type Ed25519KeyPair } from '@svc/shared';
import type { TestInbox } from './harness.js';

export type ReceiptLike = { receipt_id: string; jws: string; kind: string; outcome: string | null; claims: Record<string, any>; [k: string]: any };

/** Verifies a receipt with jose against the keys the inbox publishes now; answers its header and claims. */
export async function verifyReceiptWithJose(t: Pick<TestInbox, 'request'>, jws: string): Promise<{ header: Record<string, unknown>; claims: Record<string, any> }> {
  const jwks = (await t.request('GET', '/.well-known/jwks.json')).body as JSONWebKeySet;
  const { payload, protectedHeader } = await compactVerify(jws, createLocalJWKSet(jwks));
  return { header: protectedHeader as Record<string, unknown>, claims: JSON.parse(new TextDecoder().decode(payload)) };
}

/** The owner's view of an item's receipts. */
export async function receiptsOf(t: TestInbox, itemId: string): Promise<ReceiptLike[]> {
  const r = await t.owner('GET', `/v1/owner/items/${itemId}`);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.receipts;
}

/** What receipts an item has, in words: `confirmed`, `outcome booking.completed`, … */
export async function receiptWords(t: TestInbox, itemId: string): Promise<string[]> {
  return (await receiptsOf(t, itemId)).map((r) => (r.kind === 'outcome' ? `outcome ${r.outcome}` : r.kind));
}

/** A customer's agent with its own Ed25519 key, signing acknowledgements through jose. */
export class Agent {
  readonly key: Ed25519KeyPair = generateEd25519Key();

  /** The acknowledgement of `receipt` (rcp, sha over its jws, iat), changed as `override` says. */
  async acknowledge(receipt: { receipt_id: string; jws: string }, iatSec: number, override: { payload?: Record<string, unknown>; header?: Record<string, unknown> } = {}): Promise<string> {
    const payload = { rcp: receipt.receipt_id, sha: receiptSha256(receipt.jws), iat: iatSec, ...override.payload };
    return new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
      .setProtectedHeader({ alg: 'EdDSA', typ: 'svc-receipt-ack+jws', jwk: { ...this.key.publicJwk } as any, ...override.header })
      .sign(await importJWK(this.key.privateJwk, 'EdDSA'));
  }
}
