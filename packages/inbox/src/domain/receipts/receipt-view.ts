/**
 * What callers see of a receipt: on the owner's get_item, on the customer's status view, and as
 * `data.receipt` in a full webhook payload. The JWS is shown exactly as signed, with its claims read
 * out and the SHA-256 an acknowledgement must bind.
 */
import { OUTCOME_CODES, RECEIPT_KINDS } from '@svc/shared';
import { z } from 'zod';
import type { ReceiptRecord } from '../../store/receipt-store.js';
import { isoUtc } from '../time.js';

const outcomeCodes = Object.keys(OUTCOME_CODES) as [string, ...string[]];

export const receiptViewSchema = z.object({
  receipt_id: z.string().describe('The receipt id: the JWS claim nonce. acknowledge_receipt binds it (rcp).'),
  kind: z.enum(RECEIPT_KINDS).describe('confirmed, accepted or paid (a promise made), outcome (a promise ended), amended (a promise changed).'),
  outcome: z.enum(outcomeCodes).nullable().describe('How the promise ended, on an outcome (docs/receipts.md "Outcome codes").'),
  event: z.string().describe('The move that made it due, <item type>.<event>.'),
  issued_at: z.string().describe('ISO 8601 instant, UTC.'),
  kid: z.string().describe('The signing key: see /.well-known/jwks.json.'),
  jws: z.string().describe('The receipt: a compact JWS (EdDSA, typ svc-receipt+jws), exactly as signed.'),
  sha256: z.string().describe('base64url SHA-256 of jws: the sha an acknowledgement signs.'),
  claims: z.record(z.string(), z.unknown()).describe("The JWS's claims, read out; the JWS is what counts."),
  sandbox: z.boolean().describe('A test item\'s receipt: never published to networks.'),
  acknowledged: z.boolean(),
  acknowledgement: z
    .object({
      jws: z.string().describe("The customer's agent's compact JWS (typ svc-receipt-ack+jws), exactly as received."),
      agent_key: z.string().describe("RFC 7638 thumbprint of the agent's Ed25519 key."),
      signed_at: z.string().describe('Its iat, ISO 8601.'),
      received_at: z.string(),
    })
    .nullable(),
});

export type ReceiptView = z.infer<typeof receiptViewSchema>;

export function receiptClaimsOf(jws: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jws.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
}

export function receiptView(r: ReceiptRecord): ReceiptView {
  return {
    receipt_id: r.id,
    kind: r.kind,
    outcome: r.outcome,
    event: r.event,
    issued_at: isoUtc(r.issuedAt),
    kid: r.kid,
    jws: r.jws,
    sha256: r.sha256,
    claims: receiptClaimsOf(r.jws),
    sandbox: r.sandbox,
    acknowledged: r.ack !== null,
    acknowledgement:
      r.ack === null ? null : { jws: r.ack.jws, agent_key: r.ack.jkt, signed_at: isoUtc(r.ack.iat * 1000), received_at: isoUtc(r.ack.at) },
  };
}
