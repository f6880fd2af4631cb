/**
 * A receipt as the network holds it (issue 13): the compact JWS an inbox published, the claims the
 * network reads from it, when it arrived, and the customer's acknowledgement once one arrived. What
 * every view, the ping answer and the nightly snapshot read.
 */

export interface HeldAcknowledgement {
  jws: string;
  /** RFC 7638 thumbprint of the agent key that signed it. */
  jkt: string;
  /** The acknowledgement's own iat (unix seconds). */
  iat: number;
  /** When it reached the network (ms). */
  at: number;
}

export interface HeldReceipt {
  /** The issuing inbox's origin; with receiptId the receipt's identity on this network. */
  iss: string;
  receiptId: string;
  /** The issuer's domain (its origin's host), which its listing is keyed by. */
  domain: string;
  kid: string;
  jws: string;
  /** base64url SHA-256 of the JWS as published. */
  sha256: string;
  typ: string;
  knd: string;
  out: string | null;
  ref: string | null;
  prv: string | null;
  sub: string;
  itm: string;
  /** Claims times, unix seconds. */
  iat: number;
  due: number;
  end: number | null;
  /** A payment was recorded (`pay: 1`) or the receipt records one (`knd: paid`). */
  paid: boolean;
  /** Nobody decided (`aut: 1`). */
  aut: boolean;
  /** False for a sandbox receipt (`sbx: 1`): held, counted for nothing. */
  counted: boolean;
  /** When it reached the network (ms). */
  arrivedAt: number;
  ack: HeldAcknowledgement | null;
}

/** What the snapshot reads of a receipt: everything but the signed bytes. */
export type ReceiptEvidence = Omit<HeldReceipt, 'jws' | 'ack'> & { acknowledged: boolean };

/** What every view shows of a business's receipts (directory spec §2 Receipts). */
export interface ReceiptTally {
  /** Counted receipts held (sandbox ones are not counted). */
  issued: number;
  /** Of those, acknowledged by the customer's agent. */
  acknowledged: number;
  /** Distinct customers (`sub`) they came from. */
  customers: number;
  /** When the last one arrived (ms), null before any. */
  lastAt: number | null;
}

export const EMPTY_TALLY: ReceiptTally = Object.freeze({ issued: 0, acknowledged: 0, customers: 0, lastAt: null });

/** The outcome that stands for one promise (its receipt id is `ref`). */
export interface StandingOutcome {
  ref: string;
  receiptId: string;
  code: string;
  iat: number;
  /** What the outcome says of the business is `broken`: such an outcome is final. */
  businessBroken: boolean;
}
