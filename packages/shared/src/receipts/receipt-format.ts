/**
 * The receipt format both services read (docs/receipts.md): what an inbox signs when it makes or
 * closes a promise (`svc-receipt+jws`), what a customer's agent counter-signs (`svc-receipt-ack+jws`),
 * the outcome codes, and the checks a reader applies. The inbox issues receipts; a network verifies
 * them against the keys in the issuer's manifest. No storage, no transport here.
 */
import { createHash } from 'node:crypto';
import { ed25519JwkProblem, ed25519PublicKey, ed25519Thumbprint, type Ed25519PublicJwk } from '../signatures/ed25519-keys.js';
import { JwsError, parseCompactJws, verifyCompactJws, verifyCompactJwsAsync, type JwsFailure, type ParsedJws } from './compact-jws.js';

export const RECEIPT_TYP = 'svc-receipt+jws';
export const RECEIPT_ACK_TYP = 'svc-receipt-ack+jws';
/** The claims version of receipts issued today. */
export const RECEIPT_CLAIMS_VERSION = 2;

/** The longest receipt a reader takes (ours are about 700 characters). */
export const RECEIPT_MAX_CHARS = 4096;
/** The longest acknowledgement a reader takes (ours are about 450 characters). */
export const RECEIPT_ACK_MAX_CHARS = 2048;
/** An acknowledgement is taken at most this long after its `iat`. */
export const ACK_MAX_AGE_SEC = 3600;
/** …and at most this far ahead of the reader's clock. */
export const ACK_MAX_AHEAD_SEC = 300;
/** Times are whole seconds below 2^37 (year 6325): far beyond any real date, well inside a safe integer. */
const MAX_TIME_SEC = 2 ** 37;

/** Item types a receipt can be about. */
export const RECEIPT_ITEM_TYPES = ['booking', 'order', 'refund'] as const;
export type ReceiptItemType = (typeof RECEIPT_ITEM_TYPES)[number];

/** What a receipt records (`knd`). */
export const RECEIPT_KINDS = [
  /** A booking was confirmed: the business promised the slot. */
  'confirmed',
  /** An order or a refund was accepted: the business promised to deliver or to pay back. */
  'accepted',
  /** A payment was recorded on the order. */
  'paid',
  /** A promise ended; `out` says how. */
  'outcome',
  /** An accepted change moved a promise (new `due`, `end`). */
  'amended',
] as const;
export type ReceiptKind = (typeof RECEIPT_KINDS)[number];

/** How an outcome counts for each side: kept, broken, neutral, or null when it says nothing of that side. */
export type OutcomeSide = 'kept' | 'broken' | 'neutral' | null;

/** Every outcome code an inbox issues (`out`), with what it says of the business and of the customer. */
export const OUTCOME_CODES = {
  'booking.completed': { business: 'kept', customer: 'kept' },
  'booking.cancelled_by_business': { business: 'broken', customer: null },
  'booking.cancelled_by_customer': { business: 'neutral', customer: 'neutral' },
  'booking.cancelled_late_by_customer': { business: null, customer: 'broken' },
  'booking.no_show_customer': { business: null, customer: 'broken' },
  'order.fulfilled': { business: 'kept', customer: 'kept' },
  'order.not_fulfilled': { business: 'broken', customer: null },
  'order.cancelled_by_customer': { business: 'neutral', customer: 'neutral' },
  'order.payment_failed': { business: null, customer: 'broken' },
  'order.lapsed': { business: 'neutral', customer: 'neutral' },
  'order.charged_back': { business: null, customer: 'broken' },
  'refund.honoured': { business: 'kept', customer: null },
  'refund.late': { business: 'broken', customer: null },
} as const satisfies Record<string, { business: OutcomeSide; customer: OutcomeSide }>;
export type OutcomeCode = keyof typeof OUTCOME_CODES;

export function isOutcomeCode(value: unknown): value is OutcomeCode {
  return typeof value === 'string' && Object.hasOwn(OUTCOME_CODES, value);
}

/** The claims of a receipt (docs/receipts.md "Claims"). */
export interface ReceiptClaims {
  ver: typeof RECEIPT_CLAIMS_VERSION;
  /** The issuing inbox's origin, `https://<domain>`. */
  iss: string;
  /** A pseudonym of the customer: base64url HMAC-SHA-256 under the instance's pepper; never the customer's data. */
  sub: string;
  /** The item id. */
  itm: string;
  typ: ReceiptItemType;
  knd: ReceiptKind;
  /** Issued at, Unix seconds. */
  iat: number;
  /** The receipt id (`receipt_id` in every view): 32 lowercase hex characters, unique per issuer. */
  nonce: string;
  /** When the promise falls due, Unix seconds: a booking's start; an order's or a refund's due date. */
  due: number;
  /** A booking's end, Unix seconds (never before `due`). */
  end?: number;
  /** The price promised, in minor units of `cur`. */
  amt?: number;
  cur?: string;
  /** 1 when a payment was recorded on the order. */
  pay?: 1;
  /** The outcome code (exactly on `knd: outcome`). */
  out?: OutcomeCode;
  /** The receipt id of the promise an outcome or an amendment is about. */
  ref?: string;
  /** On a correction: the receipt id of the outcome it corrects. */
  prv?: string;
  /** 1 when nobody decided (the system or a rule made the move). */
  aut?: 1;
  /** 1 on a test item's receipt: never published, never counted. */
  sbx?: 1;
  /** The move that made it due, `<item type>.<event>`. */
  evt: string;
}

export interface AcknowledgementClaims {
  /** The receipt id acknowledged. */
  rcp: string;
  /** base64url SHA-256 of the receipt's compact JWS, exactly as issued. */
  sha: string;
  /** Signed at, Unix seconds. */
  iat: number;
}

const RECEIPT_ID = /^[0-9a-f]{32}$/;
const SHA256_B64URL = /^[A-Za-z0-9_-]{43}$/;

/** base64url SHA-256 of a receipt's compact form: what an acknowledgement binds (`sha`). */
export function receiptSha256(receiptJws: string): string {
  return createHash('sha256').update(receiptJws, 'ascii').digest('base64url');
}

export function isReceiptId(value: unknown): value is string {
  return typeof value === 'string' && RECEIPT_ID.test(value);
}

const isTime = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value > 0 && value < MAX_TIME_SEC;
const isText = (value: unknown, max: number): value is string => typeof value === 'string' && value.length > 0 && value.length <= max;

/** Why a receipt's claims are not well formed, or null when they are. */
export function receiptClaimsProblem(claims: Record<string, unknown>): string | null {
  const c = claims;
  if (c.ver !== RECEIPT_CLAIMS_VERSION) return `ver is not ${RECEIPT_CLAIMS_VERSION}`;
  if (!isText(c.iss, 300) || !/^https?:\/\/[^/?#]+$/.test(c.iss)) return 'iss is not an origin';
  if (!isText(c.sub, 64)) return 'sub is missing';
  if (!isText(c.itm, 64)) return 'itm is missing';
  if (!RECEIPT_ITEM_TYPES.includes(c.typ as ReceiptItemType)) return 'typ is not booking, order or refund';
  if (!RECEIPT_KINDS.includes(c.knd as ReceiptKind)) return 'knd is not a receipt kind';
  if (!isTime(c.iat)) return 'iat is not a time in seconds';
  if (!isReceiptId(c.nonce)) return 'nonce is not 32 lowercase hex characters';
  if (!isTime(c.due)) return 'due is not a time in seconds';
  if (c.end !== undefined && (!isTime(c.end) || c.end < c.due || c.typ !== 'booking')) return 'end is only on a booking, never before due';
  if (c.amt !== undefined && (typeof c.amt !== 'number' || !Number.isSafeInteger(c.amt) || c.amt < 0)) return 'amt is not a whole amount';
  if ((c.amt === undefined) !== (c.cur === undefined) || (c.cur !== undefined && !/^[A-Z]{3}$/.test(String(c.cur)))) return 'amt and cur go together, cur in ISO 4217';
  for (const flag of ['pay', 'aut', 'sbx'] as const) if (c[flag] !== undefined && c[flag] !== 1) return `${flag} is 1 when present`;
  const isOutcome = c.knd === 'outcome';
  if (isOutcome !== (c.out !== undefined)) return 'out is present exactly on an outcome';
  if (isOutcome && (!isOutcomeCode(c.out) || !String(c.out).startsWith(`${String(c.typ)}.`))) return 'out is not an outcome code of this item type';
  if ((isOutcome || c.knd === 'amended') !== (c.ref !== undefined)) return 'ref is present exactly on an outcome or an amendment';
  if (c.ref !== undefined && !isReceiptId(c.ref)) return 'ref is not a receipt id';
  if (c.prv !== undefined && (!isOutcome || !isReceiptId(c.prv))) return 'prv is the receipt id of a corrected outcome';
  if (!isText(c.evt, 80) || !String(c.evt).startsWith(`${String(c.typ)}.`)) return 'evt is not an event of this item type';
  return null;
}

/** Why a receipt or an acknowledgement was refused; the words match problem extensions and network codes. */
export type ReceiptFailure =
  | JwsFailure
  /** The header's typ is not the one expected. */
  | 'bad_typ'
  /** The receipt names a kid the issuer does not publish, or an acknowledgement carries no usable Ed25519 public key. */
  | 'unknown_key'
  | 'bad_key'
  /** The claims are not well formed. */
  | 'bad_payload'
  /** The acknowledgement names another receipt, or signs other bytes than the receipt's. */
  | 'wrong_receipt'
  /** The acknowledgement was signed more than an hour before it arrived. */
  | 'stale'
  /** The acknowledgement's iat is more than five minutes ahead. */
  | 'not_yet';

export type Verified<T> = ({ ok: true } & T) | { ok: false; reason: ReceiptFailure; detail: string };

function parse(text: string, maxChars: number, typ: string): ParsedJws | { ok: false; reason: ReceiptFailure; detail: string } {
  let parsed: ParsedJws;
  try {
    parsed = parseCompactJws(text, maxChars);
  } catch (error) {
    if (error instanceof JwsError) return { ok: false, reason: error.reason, detail: error.message };
    throw error;
  }
  if (parsed.header.typ !== typ) return { ok: false, reason: 'bad_typ', detail: `The header's typ is ${JSON.stringify(parsed.header.typ ?? null)}, not ${typ}.` };
  return parsed;
}

function verified(parsed: ParsedJws, jwk: Ed25519PublicJwk): { ok: false; reason: ReceiptFailure; detail: string } | null {
  try {
    verifyCompactJws(parsed, ed25519PublicKey(jwk));
    return null;
  } catch (error) {
    if (error instanceof JwsError) return { ok: false, reason: error.reason, detail: error.message };
    return { ok: false, reason: 'bad_key', detail: 'The key cannot verify Ed25519 signatures.' };
  }
}

/** The same, the signature checked on libuv's thread pool. */
async function verifiedAsync(parsed: ParsedJws, jwk: Ed25519PublicJwk): Promise<{ ok: false; reason: ReceiptFailure; detail: string } | null> {
  let key;
  try {
    key = ed25519PublicKey(jwk);
  } catch {
    return { ok: false, reason: 'bad_key', detail: 'The key cannot verify Ed25519 signatures.' };
  }
  try {
    await verifyCompactJwsAsync(parsed, key);
    return null;
  } catch (error) {
    if (error instanceof JwsError) return { ok: false, reason: error.reason, detail: error.message };
    return { ok: false, reason: 'bad_key', detail: 'The key cannot verify Ed25519 signatures.' };
  }
}

/**
 * Verifies a receipt: its form, `typ`, the issuer's key named by `kid` (looked up by the caller, e.g.
 * from the issuer's manifest), the signature and the claims.
 */
export async function verifyReceipt(
  jws: string,
  lookupKey: (kid: string) => Promise<Ed25519PublicJwk | null> | Ed25519PublicJwk | null,
): Promise<Verified<{ claims: ReceiptClaims; kid: string; header: Record<string, unknown> }>> {
  const parsed = parse(jws, RECEIPT_MAX_CHARS, RECEIPT_TYP);
  if ('ok' in parsed) return parsed;
  const kid = parsed.header.kid;
  if (typeof kid !== 'string' || kid.length === 0 || kid.length > 100) return { ok: false, reason: 'unknown_key', detail: 'The header names no kid.' };
  const jwk = await lookupKey(kid);
  if (!jwk || ed25519JwkProblem(jwk) !== null || ed25519Thumbprint(jwk) !== kid) return { ok: false, reason: 'unknown_key', detail: `The issuer publishes no key ${kid}.` };
  const refused = await verifiedAsync(parsed, jwk);
  if (refused) return refused;
  const problem = receiptClaimsProblem(parsed.payload);
  if (problem) return { ok: false, reason: 'bad_payload', detail: `The receipt's claims are not well formed: ${problem}.` };
  return { ok: true, claims: parsed.payload as unknown as ReceiptClaims, kid, header: parsed.header };
}

/**
 * Reads an acknowledgement on its own: form, `typ`, the agent's public key carried in the header
 * (`jwk`, public members only), the signature under it, and the claims' shape. Which receipt it binds,
 * and when, is judged by bindAcknowledgement.
 */
export function readAcknowledgement(jws: string): Verified<{ claims: AcknowledgementClaims; jwk: Ed25519PublicJwk; jkt: string }> {
  const read = readAcknowledgementKey(jws);
  if ('ok' in read) return read;
  return verified(read.parsed, read.jwk) ?? acknowledgementClaims(read.parsed, read.jwk);
}

type AcknowledgementRead = Verified<{ claims: AcknowledgementClaims; jwk: Ed25519PublicJwk; jkt: string }>;

/** The acknowledgement's form, typ and the public key it carries (its signature is checked next). */
function readAcknowledgementKey(jws: string): { parsed: ParsedJws; jwk: Ed25519PublicJwk } | { ok: false; reason: ReceiptFailure; detail: string } {
  const parsed = parse(jws, RECEIPT_ACK_MAX_CHARS, RECEIPT_ACK_TYP);
  if ('ok' in parsed) return parsed;
  const jwk = parsed.header.jwk as Record<string, unknown> | undefined;
  const keyProblem = ed25519JwkProblem(jwk);
  if (keyProblem) return { ok: false, reason: 'bad_key', detail: `The header's jwk is not an Ed25519 public key: ${keyProblem}.` };
  if ((jwk as Record<string, unknown>).d !== undefined) return { ok: false, reason: 'bad_key', detail: 'The header carries a private key (d); send the public key only, and make a new key.' };
  return { parsed, jwk: jwk as unknown as Ed25519PublicJwk };
}

/** The claims of an acknowledgement whose signature verified. */
function acknowledgementClaims(parsed: ParsedJws, publicJwk: Ed25519PublicJwk): AcknowledgementRead {
  const { rcp, sha, iat } = parsed.payload;
  if (!isReceiptId(rcp)) return { ok: false, reason: 'bad_payload', detail: 'rcp is not a receipt id (32 lowercase hex characters).' };
  if (typeof sha !== 'string' || !SHA256_B64URL.test(sha)) return { ok: false, reason: 'bad_payload', detail: 'sha is not a base64url SHA-256 (43 characters).' };
  if (!isTime(iat)) return { ok: false, reason: 'bad_payload', detail: 'iat is not a time in whole seconds.' };
  return { ok: true, claims: { rcp, sha, iat }, jwk: publicJwk, jkt: ed25519Thumbprint(publicJwk) };
}

/** readAcknowledgement with the signature checked on libuv's thread pool (a network reads many at once). */
export async function readAcknowledgementAsync(jws: string): Promise<AcknowledgementRead> {
  const read = readAcknowledgementKey(jws);
  if ('ok' in read) return read;
  return (await verifiedAsync(read.parsed, read.jwk)) ?? acknowledgementClaims(read.parsed, read.jwk);
}

/** Whether a read acknowledgement binds this receipt (id and bytes) and was signed within the last hour. */
export function bindAcknowledgement(
  claims: AcknowledgementClaims,
  receipt: { id: string; sha256: string },
  nowSec: number,
): { ok: true } | { ok: false; reason: ReceiptFailure; detail: string } {
  if (claims.rcp !== receipt.id) return { ok: false, reason: 'wrong_receipt', detail: `The acknowledgement names receipt ${claims.rcp}, not ${receipt.id}.` };
  if (claims.sha !== receipt.sha256) {
    return { ok: false, reason: 'wrong_receipt', detail: "The acknowledgement's sha is not the SHA-256 of this receipt as issued; hash the receipt's jws exactly as received." };
  }
  if (claims.iat < nowSec - ACK_MAX_AGE_SEC) {
    return { ok: false, reason: 'stale', detail: `The acknowledgement was signed ${nowSec - claims.iat} s ago; sign a fresh one (at most ${ACK_MAX_AGE_SEC} s old).` };
  }
  if (claims.iat > nowSec + ACK_MAX_AHEAD_SEC) {
    return { ok: false, reason: 'not_yet', detail: `The acknowledgement's iat is ${claims.iat - nowSec} s ahead of this inbox's clock (at most ${ACK_MAX_AHEAD_SEC}).` };
  }
  return { ok: true };
}
