/**
 * acknowledge_receipt (docs/receipts.md "Acknowledgement"): the customer's agent counter-signs a
 * receipt of an item it may open (its token, the agent's bound signature, or the person's pass, as
 * every customer call), with its own Ed25519 key: either an acknowledgement JWS (`ack`), checked (its
 * form and signature under the key in its header, the receipt it binds, when it was signed), or, in
 * a request it signs (svc-agent/1), by naming the receipt with `receipt_id` (signed-acknowledgement.ts).
 * The acknowledgement is stored with the receipt, recorded as `<type>.receipt_acknowledged` and (a
 * JWS) queued for the networks, all in the caller's transaction. Every refusal is a Problem thrown
 * before anything is written, so a refused acknowledgement leaves nothing behind.
 */
import { Problem, bindAcknowledgement, newId, readAcknowledgement, type ReceiptFailure } from '@svc/shared';
import type { ReceiptAcknowledgement, ReceiptRecord } from '../../store/receipt-store.js';
import type { DomainContext } from '../context.js';
import { recordEvent } from '../events/record-event.js';
import { loadOwnedItem } from '../items/customer-items.js';
import type { Caller, ItemRecord } from '../types.js';
import { queueAcknowledgement } from './publication-queue.js';
import { receiptView, type ReceiptView } from './receipt-view.js';
import { readSignedAcknowledgement, type SignedAcknowledgementProblem } from './signed-acknowledgement.js';

export interface AcknowledgeRequest {
  /** The agent's compact JWS (typ svc-receipt-ack+jws); without it, the request's own signature acknowledges `receiptId`. */
  ack?: string | undefined;
  /** The receipt meant: with `ack` it must be the one the acknowledgement names (rcp). */
  receiptId?: string | undefined;
}

export interface AcknowledgeAnswer {
  item_id: string;
  receipt: ReceiptView;
}

/** Every refusal names its precise reason in `ack_error`, beside the problem code. */
function refuse(code: ConstructorParameters<typeof Problem>[0], reason: string, detail: string): Problem {
  return new Problem(code, detail, { extensions: { ack_error: reason } });
}

/** What a reading failure of the JWS itself is answered with. */
const READ_FAILURES: Partial<Record<ReceiptFailure, string>> = {
  malformed: 'malformed',
  too_large: 'malformed',
  bad_alg: 'bad_alg',
  bad_typ: 'bad_typ',
  bad_key: 'bad_key',
  unknown_key: 'bad_key',
  bad_signature: 'bad_signature',
  bad_payload: 'bad_payload',
};

const answerFor = (item: ItemRecord, receipt: ReceiptRecord): AcknowledgeAnswer => ({ item_id: item.id, receipt: receiptView(receipt) });

export async function acknowledgeReceipt(
  ctx: DomainContext,
  caller: Caller,
  itemId: string,
  token: string | undefined,
  request: AcknowledgeRequest,
): Promise<AcknowledgeAnswer> {
  // The request's form first: without ack, only a signed request naming the receipt acknowledges it.
  const agent = caller.kind === 'customer' ? caller.agent : undefined;
  if (request.ack === undefined && request.receiptId === undefined) {
    throw new Problem('invalid_input', 'Send ack (an acknowledgement JWS your key signed), or sign this request (svc-agent/1) and name the receipt by receipt_id.', {
      fields: [{ path: 'ack', problem: 'missing', message: 'ack is required unless a request you sign names the receipt by receipt_id.' }],
    });
  }
  if (request.ack === undefined && !agent?.bound) throw SIGNED_REFUSALS.unsigned();
  const item = await loadOwnedItem(ctx, itemId, token, caller);
  const receipts = await ctx.store.receipts.listForItem(item.id);
  if (request.ack === undefined) return acknowledgeBySignedRequest(ctx, caller, item, receipts, request.receiptId as string);

  // The same acknowledgement again, byte for byte, is answered as the first was, whenever it comes.
  const already = receipts.find((r) => r.ack?.form === 'jws' && r.ack.jws === request.ack);
  if (already && (request.receiptId === undefined || request.receiptId === already.id)) return answerFor(item, already);

  const read = readAcknowledgement(request.ack);
  if (!read.ok) throw refuse('bad_acknowledgement', READ_FAILURES[read.reason] ?? read.reason, read.detail);
  const { claims, jkt } = read;

  if (request.receiptId !== undefined && request.receiptId !== claims.rcp) {
    throw refuse('wrong_receipt', 'receipt_id_mismatch', `receipt_id is ${request.receiptId}, but the acknowledgement names receipt ${claims.rcp}.`);
  }
  const receipt = await receiptOfItem(ctx, item, receipts, claims.rcp);

  const nowMs = ctx.clock.now();
  const bound = bindAcknowledgement(claims, { id: receipt.id, sha256: receipt.sha256 }, Math.floor(nowMs / 1000));
  if (!bound.ok) {
    if (bound.reason === 'stale') throw refuse('acknowledgement_expired', 'stale', bound.detail);
    if (bound.reason === 'not_yet') throw refuse('acknowledgement_not_yet_valid', 'not_yet', bound.detail);
    throw refuse('wrong_receipt', 'sha_mismatch', bound.detail);
  }

  return keepAcknowledgement(ctx, caller, item, receipt, { form: 'jws', jws: request.ack, jkt, iat: claims.iat, at: nowMs });
}

/** Why a request naming receipt_id without ack is not an acknowledgement, in the words an agent can act on. */
const SIGNED_REFUSALS: Record<SignedAcknowledgementProblem, () => Problem> = {
  unsigned: () =>
    new Problem(
      'invalid_input',
      'receipt_id alone acknowledges a receipt only in a request you sign (svc-agent/1) and that verifies; sign this request with your agent key, or send ack (an acknowledgement JWS). When a signature was sent and did not verify, the answer\'s Svc-Signature header says why.',
      { fields: [{ path: 'ack', problem: 'missing', message: 'Send ack, or sign the request that names receipt_id.' }] },
    ),
  carries_secret: () =>
    refuse(
      'bad_acknowledgement',
      'carries_secret',
      'The signed request is kept as the acknowledgement and shown to the business, so what it signs must hold no secret: send the access token in X-Access-Token (not covered by the signature), never in the body or URL, and no key or full pass.',
    ),
  receipt_not_signed: () =>
    refuse(
      'bad_acknowledgement',
      'receipt_not_signed',
      'The signature must cover what names the receipt: receipt_id in the signed body (Content-Digest) of POST /v1/items/{id}/receipt-ack, or in the arguments of a signed acknowledge_receipt tools/call.',
    ),
};

/**
 * receipt_id named in a request the agent signed: the verified signature is the counter-signature,
 * kept with what makes it checkable (signed-acknowledgement.ts). Networks take acknowledgements as
 * JWS only, so this one is kept and shown here and not sent to them (docs/receipts.md).
 */
async function acknowledgeBySignedRequest(
  ctx: DomainContext,
  caller: Caller,
  item: ItemRecord,
  receipts: readonly ReceiptRecord[],
  receiptId: string,
): Promise<AcknowledgeAnswer> {
  const agent = caller.kind === 'customer' ? caller.agent : undefined;
  if (!agent?.bound) throw SIGNED_REFUSALS.unsigned();
  const receipt = await receiptOfItem(ctx, item, receipts, receiptId);
  if (receipt.ack) return settled(item, receipt, agent.jkt);
  const read = readSignedAcknowledgement(agent, item.id, receipt.id);
  if (!read.ok) throw SIGNED_REFUSALS[read.problem]();
  return keepAcknowledgement(ctx, caller, item, receipt, { form: 'signed_request', request: read.evidence, jkt: read.jkt, iat: read.created, at: ctx.clock.now() });
}

/** This item's receipt `receiptId`, or the refusal: another item's (403), or none (422). */
async function receiptOfItem(ctx: DomainContext, item: ItemRecord, receipts: readonly ReceiptRecord[], receiptId: string): Promise<ReceiptRecord> {
  const receipt = receipts.find((r) => r.id === receiptId);
  if (receipt) return receipt;
  if (await ctx.store.receipts.get(receiptId)) {
    throw refuse('receipt_of_other_item', 'other_item', `Receipt ${receiptId} is a receipt of another item; acknowledge it on that item, with its access token.`);
  }
  throw refuse('wrong_receipt', 'unknown_receipt', `Item ${item.id} has no receipt ${receiptId}; its receipts are on get_item_status.`);
}

/** Stores the first acknowledgement of a receipt, records its event and (a JWS) queues it for the networks. */
async function keepAcknowledgement(ctx: DomainContext, caller: Caller, item: ItemRecord, receipt: ReceiptRecord, ack: ReceiptAcknowledgement): Promise<AcknowledgeAnswer> {
  if (receipt.ack) return settled(item, receipt, ack.jkt);
  const nowMs = ack.at;
  const jkt = ack.jkt;
  if (!(await ctx.store.receipts.acknowledge(receipt.id, ack))) {
    // Acknowledged meanwhile (inside this transaction nothing else writes, but stay exact).
    const now = await ctx.store.receipts.get(receipt.id);
    if (now) return settled(item, now, jkt);
  }
  const acknowledged: ReceiptRecord = { ...receipt, ack };
  if (ack.form === 'jws') await queueAcknowledgement(ctx, acknowledged);
  await recordEvent(ctx, {
    id: newId(nowMs),
    itemId: item.id,
    seq: null,
    type: `${item.type}.receipt_acknowledged`,
    event: 'receipt_acknowledged',
    fromState: item.state,
    toState: item.state,
    version: item.version,
    actor: caller.actor,
    channel: caller.channel,
    sandbox: item.sandbox,
    reason: null,
    data: { receipt_id: receipt.id, agent_key: jkt, form: ack.form },
    createdAt: nowMs,
  });
  return answerFor(item, acknowledged);
}

/**
 * A receipt acknowledged before: by the same agent key, the answer is the first one's (an agent that
 * lost the answer and signed again is saying the same thing); by another key it is refused.
 */
function settled(item: ItemRecord, receipt: ReceiptRecord, jkt: string): AcknowledgeAnswer {
  if (receipt.ack?.jkt === jkt) return answerFor(item, receipt);
  throw refuse(
    'already_acknowledged',
    'already_acknowledged',
    `Receipt ${receipt.id} was acknowledged at ${new Date(receipt.ack?.at ?? 0).toISOString()} by another agent key; a receipt is acknowledged once.`,
  );
}
