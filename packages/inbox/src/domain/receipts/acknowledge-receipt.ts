/**
 * acknowledge_receipt (docs/receipts.md "Acknowledgement"): the customer's agent counter-signs a
 * receipt of an item it holds the access token of, with its own Ed25519 key. The acknowledgement is
 * checked (its form and signature under the key in its header, the receipt it binds, when it was
 * signed), stored with the receipt, recorded as `<type>.receipt_acknowledged` and queued for the
 * networks, all in the caller's transaction. Every refusal is a Problem thrown before anything is
 * written, so a refused acknowledgement leaves nothing behind.
 */
import { Problem, bindAcknowledgement, newId, readAcknowledgement, type ReceiptFailure } from '@svc/shared';
import type { ReceiptRecord } from '../../store/receipt-store.js';
import type { DomainContext } from '../context.js';
import { recordEvent } from '../events/record-event.js';
import { loadOwnedItem } from '../items/customer-items.js';
import type { Caller, ItemRecord } from '../types.js';
import { queueAcknowledgement } from './publication-queue.js';
import { receiptView, type ReceiptView } from './receipt-view.js';

export interface AcknowledgeRequest {
  /** The agent's compact JWS (typ svc-receipt-ack+jws). */
  ack: string;
  /** The receipt meant; when given it must be the one the acknowledgement names (rcp). */
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
  const item = await loadOwnedItem(ctx, itemId, token);

  // The same acknowledgement again, byte for byte, is answered as the first was, whenever it comes.
  const receipts = await ctx.store.receipts.listForItem(item.id);
  const already = receipts.find((r) => r.ack?.jws === request.ack);
  if (already && (request.receiptId === undefined || request.receiptId === already.id)) return answerFor(item, already);

  const read = readAcknowledgement(request.ack);
  if (!read.ok) throw refuse('bad_acknowledgement', READ_FAILURES[read.reason] ?? read.reason, read.detail);
  const { claims, jkt } = read;

  if (request.receiptId !== undefined && request.receiptId !== claims.rcp) {
    throw refuse('wrong_receipt', 'receipt_id_mismatch', `receipt_id is ${request.receiptId}, but the acknowledgement names receipt ${claims.rcp}.`);
  }
  const receipt = receipts.find((r) => r.id === claims.rcp) ?? null;
  if (!receipt) {
    const elsewhere = await ctx.store.receipts.get(claims.rcp);
    if (elsewhere) {
      throw refuse('receipt_of_other_item', 'other_item', `Receipt ${claims.rcp} is a receipt of another item; acknowledge it on that item, with its access token.`);
    }
    throw refuse('wrong_receipt', 'unknown_receipt', `Item ${item.id} has no receipt ${claims.rcp}; its receipts are on get_item_status.`);
  }

  const nowMs = ctx.clock.now();
  const bound = bindAcknowledgement(claims, { id: receipt.id, sha256: receipt.sha256 }, Math.floor(nowMs / 1000));
  if (!bound.ok) {
    if (bound.reason === 'stale') throw refuse('acknowledgement_expired', 'stale', bound.detail);
    if (bound.reason === 'not_yet') throw refuse('acknowledgement_not_yet_valid', 'not_yet', bound.detail);
    throw refuse('wrong_receipt', 'sha_mismatch', bound.detail);
  }

  if (receipt.ack) return settled(item, receipt, jkt);
  const ack = { jws: request.ack, jkt, iat: claims.iat, at: nowMs };
  if (!(await ctx.store.receipts.acknowledge(receipt.id, ack))) {
    // Acknowledged meanwhile (inside this transaction nothing else writes, but stay exact).
    const now = await ctx.store.receipts.get(receipt.id);
    if (now) return settled(item, now, jkt);
  }
  const acknowledged: ReceiptRecord = { ...receipt, ack };
  await queueAcknowledgement(ctx, acknowledged);
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
    data: { receipt_id: receipt.id, agent_key: jkt },
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
