/**
 * What callers see of a receipt: on the owner's get_item, on the customer's status view, and as
 * `data.receipt` in a full webhook payload. The JWS is shown exactly as signed, with its claims read
 * out and the SHA-256 an acknowledgement must bind.
 */
import { OUTCOME_CODES, RECEIPT_KINDS } from '@svc/shared';
import { z } from 'zod';
import type { ReceiptAcknowledgement, ReceiptRecord } from '../../store/receipt-store.js';
import { isoUtc } from '../time.js';

const outcomeCodes = Object.keys(OUTCOME_CODES) as [string, ...string[]];

/** What makes an acknowledgement by a signed request checkable with the key alone (docs/receipts.md). */
const signedRequestSchema = z
  .object({
    key: z.record(z.string(), z.unknown()).describe("The agent's public key (OKP, Ed25519) the signature verified under."),
    platform: z.string().nullable().describe('The platform that vouches for the key (Signature-Agent), or null for the agent\'s own key.'),
    signature_input: z.string().describe('<label>=<signature parameters>, as in Signature-Input.'),
    signature: z.string().describe('<label>=:<base64>:, as in Signature: Ed25519 over signature_base.'),
    signature_base: z.string().describe('The RFC 9421 signature base: it names the path, this inbox\'s host and the body\'s Content-Digest.'),
    body: z.string().describe('The request body exactly as received: its digest is in the base, and it names the receipt.'),
  })
  .describe('The signed request that acknowledged the receipt.');

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
    .discriminatedUnion('form', [
      z.object({
        form: z.literal('jws').describe('Counter-signed with an acknowledgement JWS.'),
        jws: z.string().describe("The customer's agent's compact JWS (typ svc-receipt-ack+jws), exactly as received."),
        agent_key: z.string().describe("RFC 7638 thumbprint of the agent's Ed25519 key."),
        signed_at: z.string().describe('Its iat, ISO 8601.'),
        received_at: z.string(),
      }),
      z.object({
        form: z.literal('signed_request').describe('Acknowledged by a request the agent signed (svc-agent/1) naming the receipt by receipt_id.'),
        signed_request: signedRequestSchema,
        agent_key: z.string().describe("RFC 7638 thumbprint of the agent's Ed25519 key."),
        signed_at: z.string().describe("The signature's created, ISO 8601."),
        received_at: z.string(),
      }),
    ])
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
    acknowledgement: acknowledgementView(r.ack),
  };
}

function acknowledgementView(ack: ReceiptAcknowledgement | null): ReceiptView['acknowledgement'] {
  if (ack === null) return null;
  const common = { agent_key: ack.jkt, signed_at: isoUtc(ack.iat * 1000), received_at: isoUtc(ack.at) };
  return ack.form === 'jws' ? { form: 'jws', jws: ack.jws, ...common } : { form: 'signed_request', signed_request: { ...ack.request }, ...common };
}
