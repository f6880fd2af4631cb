/**
 * Receipt intake, POST /v1/receipts (PROTOCOL-13 §3, docs/reputation.md "Intake"): a verified inbox
 * publishes one receipt it signed, with the customer's acknowledgement when there is one. The call's
 * signature was checked before this (signed-call.ts); here the receipt is checked against the same
 * instance's manifest keys, the acknowledgement against the key it carries and the receipt it binds,
 * and the receipt is held once per (issuer, receipt id). A forged, foreign, altered or oversized
 * receipt is refused with a precise problem and nothing is stored or counted.
 */
import {
  ACK_MAX_AHEAD_SEC,
  Problem,
  RECEIPT_ACK_MAX_CHARS,
  RECEIPT_MAX_CHARS,
  bindAcknowledgement,
  readAcknowledgementAsync,
  receiptSha256,
  verifyReceipt,
  type ReceiptClaims,
} from '@svc/shared';
import type { DirectoryContext } from '../context.js';
import { businessSide } from '../reputation/arithmetic.js';
import { requireCaller, takeSignature, type SignedCaller } from '../signed/signed-call.js';
import type { HeldAcknowledgement, HeldReceipt } from './held-receipt.js';
import type { DirectoryStore } from '../../store/store.js';
import { ackRef, appendEvidence, evidenceTurn, receiptRef, writeEvidence } from '../evidence/evidence-log.js';

/** A receipt's iat may be at most this far ahead of the network's clock. */
export const RECEIPT_MAX_AHEAD_SEC = 300;
/** The largest body POST /v1/receipts takes (a receipt and an acknowledgement are a few KiB at most). */
export const RECEIPT_BODY_MAX_BYTES = 16 * 1024;

export interface PublishedReceipt {
  receipt: string;
  ack?: string | undefined;
}

export interface IntakeAnswer {
  ok: true;
  receipt_id: string;
  state: 'issued' | 'acknowledged';
  duplicate: boolean;
  counted: boolean;
}

function refused(code: 'bad_receipt' | 'bad_acknowledgement' | 'unknown_key', reason: string, detail: string): Problem {
  return new Problem(code, detail, { extensions: { [code === 'bad_acknowledgement' ? 'ack_error' : 'receipt_error']: reason } });
}

/** Checks the acknowledgement (read on its own) binds this receipt: its id, the SHA-256 of its bytes, signed after it and not ahead of our clock. */
function checkAcknowledgement(jws: string, read: Awaited<ReturnType<typeof readAcknowledgementAsync>>, claims: ReceiptClaims, sha256: string, nowMs: number): HeldAcknowledgement {
  if (!read.ok) throw refused('bad_acknowledgement', read.reason, `The acknowledgement is refused: ${read.detail}`);
  // How old an acknowledgement is when it reaches the network does not matter (the inbox took it fresh,
  // and publication may wait for a network that was down); that it was signed after the receipt does.
  const bound = bindAcknowledgement(read.claims, { id: claims.nonce, sha256 }, read.claims.iat);
  if (!bound.ok) throw refused('bad_acknowledgement', bound.reason, `The acknowledgement does not bind this receipt: ${bound.detail}`);
  const nowSec = Math.floor(nowMs / 1000);
  if (read.claims.iat > nowSec + ACK_MAX_AHEAD_SEC) {
    throw refused('bad_acknowledgement', 'not_yet', `The acknowledgement's iat is ${read.claims.iat - nowSec} s ahead of the network's clock (at most ${ACK_MAX_AHEAD_SEC}).`);
  }
  if (read.claims.iat < claims.iat - ACK_MAX_AHEAD_SEC) {
    throw refused('bad_acknowledgement', 'before_receipt', `The acknowledgement was signed ${claims.iat - read.claims.iat} s before the receipt it acknowledges was issued.`);
  }
  return { jws, jkt: read.jkt, iat: read.claims.iat, at: nowMs };
}

/** Verifies the receipt and its acknowledgement outside any transaction (a key may have to be fetched). */
async function checkReceipt(ctx: DirectoryContext, caller: SignedCaller, body: PublishedReceipt, nowMs: number) {
  if (body.receipt.length > RECEIPT_MAX_CHARS) throw new Problem('too_large', `The receipt has ${body.receipt.length} characters; at most ${RECEIPT_MAX_CHARS} are taken.`);
  if (body.ack !== undefined && body.ack.length > RECEIPT_ACK_MAX_CHARS) {
    throw new Problem('too_large', `The acknowledgement has ${body.ack.length} characters; at most ${RECEIPT_ACK_MAX_CHARS} are taken.`);
  }
  // The receipt and its acknowledgement are verified side by side (each signature on the thread pool).
  const [verified, ackRead] = await Promise.all([
    verifyReceipt(body.receipt, (kid) => ctx.instanceKeys.lookup({ keyid: kid, instance: caller.origin })),
    body.ack === undefined ? null : readAcknowledgementAsync(body.ack),
  ]);
  if (!verified.ok) {
    if (verified.reason === 'unknown_key') {
      const failure = ctx.instanceKeys.lastFailure(caller.origin);
      throw refused('unknown_key', 'unknown_key', `${verified.detail} The manifest of ${caller.origin} does not publish it${failure ? ` (it could not be read: ${failure})` : ''}.`);
    }
    if (verified.reason === 'too_large') throw new Problem('too_large', verified.detail);
    throw refused('bad_receipt', verified.reason, `The receipt is refused: ${verified.detail}`);
  }
  const claims = verified.claims;
  if (claims.iss !== caller.origin) {
    throw new Problem('not_allowed', `The receipt was issued by ${claims.iss}; ${caller.origin} may publish only its own receipts.`);
  }
  const nowSec = Math.floor(nowMs / 1000);
  if (claims.iat > nowSec + RECEIPT_MAX_AHEAD_SEC) {
    throw refused('bad_receipt', 'not_yet', `The receipt's iat is ${claims.iat - nowSec} s ahead of the network's clock (at most ${RECEIPT_MAX_AHEAD_SEC}).`);
  }
  const sha256 = receiptSha256(body.receipt);
  const ack = body.ack === undefined || ackRead === null ? null : checkAcknowledgement(body.ack, ackRead, claims, sha256, nowMs);
  return { claims, kid: verified.kid, sha256, ack };
}

function heldReceipt(caller: SignedCaller, jws: string, checked: Awaited<ReturnType<typeof checkReceipt>>, nowMs: number): HeldReceipt {
  const c = checked.claims;
  return {
    iss: c.iss,
    receiptId: c.nonce,
    domain: caller.domain,
    kid: checked.kid,
    jws,
    sha256: checked.sha256,
    typ: c.typ,
    knd: c.knd,
    out: c.out ?? null,
    ref: c.ref ?? null,
    prv: c.prv ?? null,
    sub: c.sub,
    itm: c.itm,
    iat: c.iat,
    due: c.due,
    end: c.end ?? null,
    paid: c.pay === 1 || c.knd === 'paid',
    aut: c.aut === 1,
    counted: c.sbx !== 1,
    arrivedAt: nowMs,
    ack: checked.ack,
  };
}

/**
 * Holds a verified receipt and keeps every count that reads it current, in the caller's transaction:
 * its business's tally (issued, acknowledged, distinct customers, last arrival) and, for an outcome,
 * which outcome stands for its promise. A counted receipt (and its acknowledgement, when it came with
 * one) is appended to the evidence log in the same transaction, and its arrival is its time there
 * (docs/verifiable-order.md). Sandbox receipts are held, counted for nothing and not logged. Also used
 * by the demo (demo/demo-evidence.ts), so its listings come from the same path. False when held already.
 * The caller has the business's listing follow (ctx.receiptsChanged, listing-sync.ts).
 */
export async function recordReceipt(store: DirectoryStore, receipt: HeldReceipt, nowMs: number): Promise<boolean> {
  const turn = receipt.counted ? await evidenceTurn(store, receipt.arrivedAt) : null;
  const held: HeldReceipt = turn ? { ...receipt, arrivedAt: turn.at, ack: receipt.ack ? { ...receipt.ack, at: Math.max(receipt.ack.at, turn.at) } : null } : receipt;
  if (!(await store.receipts.insert(held))) return false;
  if (held.counted) {
    await writeEvidence(store, turn as { index: number }, receiptRef(held.domain, held.receiptId), { v: 1, kind: 'receipt', at: held.arrivedAt, jws: held.jws });
    if (held.ack) await logAcknowledgement(store, held, held.ack);
    const newCustomer = await store.receipts.addCustomer(held.domain, held.sub);
    await store.receipts.addToTally(held.domain, { issued: 1, acknowledged: held.ack ? 1 : 0, customers: newCustomer ? 1 : 0, lastAt: held.arrivedAt }, nowMs);
    if (held.knd === 'outcome' && held.ref !== null && held.out !== null) {
      // The store keeps the one that stands by outcomeStands' rule (reputation/arithmetic.ts).
      await store.receipts.offerOutcome(held.domain, { ref: held.ref, receiptId: held.receiptId, code: held.out, iat: held.iat, businessBroken: businessSide(held.out) === 'broken' });
    }
  }
  return true;
}

/** The acknowledgement's entry: the receipt it binds and the SHA-256 of its bytes (its agent key is not made public). */
async function logAcknowledgement(store: DirectoryStore, held: Pick<HeldReceipt, 'domain' | 'iss' | 'receiptId'>, ack: HeldAcknowledgement): Promise<HeldAcknowledgement> {
  const turn = await appendEvidence(store, ackRef(held.domain, held.receiptId), ack.at, (at) => ({ v: 1, kind: 'ack', at, iss: held.iss, receipt_id: held.receiptId, ack_sha256: receiptSha256(ack.jws) }));
  return turn ? { ...ack, at: turn.at } : ack;
}

/**
 * Adds the customer's acknowledgement to a receipt held without one, in the caller's transaction:
 * logged (a counted receipt's), its time there its arrival, and counted in the tally. False when the
 * receipt has one already.
 */
export async function recordAcknowledgement(store: DirectoryStore, held: HeldReceipt, ack: HeldAcknowledgement, nowMs: number): Promise<boolean> {
  if (!held.counted) return store.receipts.acknowledge(held.domain, held.receiptId, ack);
  const turn = await evidenceTurn(store, ack.at);
  const dated = { ...ack, at: turn.at };
  if (!(await store.receipts.acknowledge(held.domain, held.receiptId, dated))) return false;
  await writeEvidence(store, turn, ackRef(held.domain, held.receiptId), { v: 1, kind: 'ack', at: turn.at, iss: held.iss, receipt_id: held.receiptId, ack_sha256: receiptSha256(ack.jws) });
  await store.receipts.addToTally(held.domain, { issued: 0, acknowledged: 1, customers: 0, lastAt: null }, nowMs);
  return true;
}

/**
 * Domains a directory knows are verified: a verified instance stays verified (verified_at is never
 * cleared), so once read it is not read again on every receipt. Bounded; the oldest are forgotten first.
 */
const verifiedByDirectory = new WeakMap<DirectoryContext, Set<string>>();
function verifiedDomains(ctx: DirectoryContext): Set<string> {
  let known = verifiedByDirectory.get(ctx);
  if (!known) verifiedByDirectory.set(ctx, (known = new Set()));
  return known;
}
function rememberVerified(ctx: DirectoryContext, domain: string): void {
  const known = verifiedDomains(ctx);
  if (known.has(domain)) return;
  if (known.size >= 10_000) known.delete(known.values().next().value as string);
  known.add(domain);
}

export async function takeReceipt(ctx: DirectoryContext, caller: SignedCaller | undefined, body: PublishedReceipt): Promise<{ status: 200 | 201; answer: IntakeAnswer }> {
  // Whose receipt it is is checked against the signer below (iss).
  const signer = requireCaller(caller, null, 'Publishing a receipt');
  const nowMs = ctx.clock.now();
  const standing = verifiedDomains(ctx).has(signer.domain) ? { verifiedAt: 1 } : await ctx.store.instances.standing(signer.domain);
  if (!standing || standing.verifiedAt === null) {
    throw new Problem(
      'wrong_state',
      standing
        ? `${signer.domain} is not verified yet; its receipts are taken once the directory has verified its manifest. Publish again later.`
        : `${signer.domain} is not registered here; register it (POST /v1/instances) and publish once it is verified.`,
    );
  }
  rememberVerified(ctx, signer.domain);
  const checked = await checkReceipt(ctx, signer, body, nowMs);
  const receiptId = checked.claims.nonce;
  const answer = (state: IntakeAnswer['state'], duplicate: boolean, counted: boolean): IntakeAnswer => ({ ok: true, receipt_id: receiptId, state, duplicate, counted });

  // One commit for the receipts arriving together (each in its own savepoint: a refusal undoes its writes only).
  const result = await ctx.store.batchedTransaction(async (store): Promise<{ status: 200 | 201; answer: IntakeAnswer }> => {
    await takeSignature(store, signer, nowMs);
    // Arrived now (its time in the evidence log is taken inside this transaction, recordReceipt).
    const receipt = heldReceipt(signer, body.receipt, checked, ctx.clock.now());
    if (await recordReceipt(store, receipt, nowMs)) return { status: 201, answer: answer(receipt.ack ? 'acknowledged' : 'issued', false, receipt.counted) };
    // Held already: the same receipt (perhaps with an acknowledgement it lacked), or another under its id.
    const held = (await store.receipts.get(signer.domain, receiptId)) as HeldReceipt;
    if (held.sha256 !== checked.sha256) {
      throw refused('bad_receipt', 'id_reused', `Another receipt with id ${receiptId} is held from ${held.iss}; a receipt id names one receipt only.`);
    }
    if (checked.ack && !held.ack && (await recordAcknowledgement(store, held, { ...checked.ack, at: ctx.clock.now() }, nowMs))) {
      return { status: 200, answer: answer('acknowledged', true, held.counted) };
    }
    return { status: 200, answer: answer(held.ack ? 'acknowledged' : 'issued', true, held.counted) };
  });
  // The tally changed in that transaction (the same bytes again change nothing).
  if (result.status === 201 || result.answer.state === 'acknowledged') ctx.receiptsChanged?.(signer.domain);
  return result;
}
