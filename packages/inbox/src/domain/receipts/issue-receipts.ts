/**
 * Signs the receipts a move makes due (the row's `receipts`, docs/receipts.md), in the move's own
 * transaction: the claims from the item as the move left it, the JWS under the active key, the row,
 * and a `<type>.receipt_issued` event. A move that fails after this rolls all of it back with itself.
 * The receipt is queued for the enabled networks in the same transaction (publication-queue.ts).
 * Nothing here decides when a receipt is due: the machine rows say it.
 */
import { randomBytes } from 'node:crypto';
import {
  RECEIPT_CLAIMS_VERSION,
  RECEIPT_TYP,
  newId,
  receiptClaimsProblem,
  receiptSha256,
  signCompactJws,
  type OutcomeCode,
  type ReceiptClaims,
  type ReceiptItemType,
} from '@svc/shared';
import type { ReceiptRecord } from '../../store/receipt-store.js';
import type { DomainContext } from '../context.js';
import { recordEvent } from '../events/record-event.js';
import type { BookingPayload, OrderPayload, RefundPayload } from '../items/payloads.js';
import type { ReceiptDue, TransitionRow } from '../machines/machine.js';
import type { Actor, Channel, ItemRecord } from '../types.js';
import { queuePublication } from './publication-queue.js';
import { receiptClaimsOf } from './receipt-view.js';
import type { ReceiptSigning } from './signing-keys.js';

/** An order promises delivery within this many days of its acceptance (docs/receipts.md "due"). */
export const ORDER_DUE_DAYS = 30;
/** A refund promises the money back within this many days of its acceptance. */
export const REFUND_DUE_DAYS = 14;
const DAY_SEC = 86_400;

const PROMISES = new Set(['confirmed', 'accepted']);

export interface IssueRequest {
  /** The item before the move and after it (the draft just written). */
  before: ItemRecord;
  after: ItemRecord;
  row: TransitionRow;
  actor: Actor;
  channel: Channel;
  nowMs: number;
}

/** Who the receipt is about, as a pseudonym's input: the email, else the phone, else the item's access token hash. */
function identityOf(item: ItemRecord): string {
  const email = item.contact?.email?.trim().toLowerCase();
  if (email) return `email:${email}`;
  const phone = item.contact?.phone?.replace(/[^0-9]/g, '');
  if (phone) return `phone:${phone}`;
  // Items from one quote share the token hash, so they stay one customer.
  return `token:${item.accessTokenHash}`;
}

function amountOf(item: ItemRecord): { amt: number; cur: string } | null {
  const money = moneyOf(item);
  return money && Number.isSafeInteger(money.amt) && money.amt >= 0 && /^[A-Z]{3}$/.test(money.cur) ? money : null;
}

function moneyOf(item: ItemRecord): { amt: number; cur: string } | null {
  if (item.type === 'booking') {
    const p = item.payload as BookingPayload;
    return typeof p.price === 'number' ? { amt: p.price, cur: p.priceCurrency } : null;
  }
  if (item.type === 'order') {
    const p = item.payload as OrderPayload;
    return typeof p.totalPrice === 'number' ? { amt: p.totalPrice, cur: p.priceCurrency } : null;
  }
  const p = item.payload as RefundPayload;
  const amount = p.refundedAmount ?? p.amount;
  return typeof amount === 'number' ? { amt: amount, cur: p.priceCurrency } : null;
}

const seconds = (ms: number): number => Math.floor(ms / 1000);

export async function issueReceipts(ctx: DomainContext, request: IssueRequest): Promise<ReceiptRecord[]> {
  const dues = request.row.receipts ?? [];
  if (dues.length === 0) return [];
  const signing = ctx.receipts;
  // Fail closed: a move that makes a receipt due never happens unsigned.
  if (!signing) throw new Error(`${request.after.type}.${request.row.event} makes a receipt due, but no receipt signer was given`);
  const issued: ReceiptRecord[] = [];
  const earlier = await ctx.store.receipts.listForItem(request.after.id);
  for (const due of dues) {
    const receipt = await issueOne(ctx, signing, request, due, [...earlier, ...issued]);
    if (receipt) issued.push(receipt);
  }
  return issued;
}

async function issueOne(
  ctx: DomainContext,
  signing: ReceiptSigning,
  request: IssueRequest,
  due: ReceiptDue,
  earlier: readonly ReceiptRecord[],
): Promise<ReceiptRecord | null> {
  const { after: item, nowMs } = request;
  const type = item.type as ReceiptItemType;
  const promise = earlier.find((r) => PROMISES.has(r.kind)) ?? null;
  const promiseClaims = promise ? receiptClaimsOf(promise.jws) : null;
  // An outcome is about a signed promise; one made before receipts existed has nothing to close.
  if (due.kind === 'outcome' && !promise) return null;

  const iat = seconds(nowMs);
  const id = randomBytes(16).toString('hex');
  let dueAt: number;
  let endAt: number | undefined;
  if (type === 'booking' && item.startAt !== null) {
    dueAt = seconds(item.startAt);
    if (item.endAt !== null && item.endAt >= item.startAt) endAt = seconds(item.endAt);
  } else if (typeof promiseClaims?.due === 'number') {
    dueAt = promiseClaims.due;
  } else {
    dueAt = iat + (type === 'refund' ? REFUND_DUE_DAYS : ORDER_DUE_DAYS) * DAY_SEC;
  }

  let outcome: OutcomeCode | undefined;
  if (due.kind === 'outcome') outcome = due.late && iat > dueAt ? due.late : due.outcome;
  const amount = amountOf(item);
  const paid = type === 'order' && (due.kind === 'paid' || earlier.some((r) => r.kind === 'paid'));
  const corrected = due.kind === 'outcome' && due.corrects ? [...earlier].reverse().find((r) => r.kind === 'outcome') : undefined;

  const claims: ReceiptClaims = {
    ver: RECEIPT_CLAIMS_VERSION,
    iss: signing.issuer,
    sub: await signing.keys.subject(ctx.store, identityOf(item)),
    itm: item.id,
    typ: type,
    knd: due.kind,
    iat,
    nonce: id,
    due: dueAt,
    ...(endAt !== undefined ? { end: endAt } : {}),
    ...(amount ? amount : {}),
    ...(paid ? { pay: 1 as const } : {}),
    ...(outcome ? { out: outcome } : {}),
    ...(due.kind === 'outcome' || due.kind === 'amended' ? (promise ? { ref: promise.id } : {}) : {}),
    ...(corrected ? { prv: corrected.id } : {}),
    ...(request.actor.kind === 'system' || request.actor.kind === 'rule' ? { aut: 1 as const } : {}),
    ...(item.sandbox ? { sbx: 1 as const } : {}),
    evt: `${type}.${request.row.event}`,
  };
  const problem = receiptClaimsProblem(claims as unknown as Record<string, unknown>);
  if (problem) throw new Error(`a ${type} receipt would be malformed: ${problem}`);

  const key = await signing.keys.active(ctx.store);
  const jws = signCompactJws({ alg: 'EdDSA', typ: RECEIPT_TYP, kid: key.kid }, claims as unknown as Record<string, unknown>, key.privateKey);
  const record: ReceiptRecord = {
    id,
    itemId: item.id,
    itemType: type,
    seq: (earlier[earlier.length - 1]?.seq ?? 0) + 1,
    kind: due.kind,
    outcome: outcome ?? null,
    event: claims.evt,
    kid: key.kid,
    jws,
    sha256: receiptSha256(jws),
    sandbox: item.sandbox,
    issuedAt: nowMs,
    ack: null,
  };
  await ctx.store.receipts.insert(record);
  // Queued for the networks with the receipt, so a crash after the move can never leave it unsent.
  await queuePublication(ctx, record);
  await recordEvent(ctx, {
    id: newId(nowMs),
    itemId: item.id,
    seq: null,
    type: `${type}.receipt_issued`,
    event: 'receipt_issued',
    fromState: item.state,
    toState: item.state,
    version: item.version,
    actor: request.actor,
    channel: request.channel,
    sandbox: item.sandbox,
    reason: null,
    data: { receipt_id: id, kind: due.kind, outcome: outcome ?? null },
    createdAt: nowMs,
  });
  return record;
}
