/** Receipts the instance issued and the acknowledgements of them (docs/receipts.md). */
import type { OutcomeCode, ReceiptKind } from '@svc/shared';
import type { ItemType } from '../domain/types.js';

/**
 * A request the agent signed (svc-agent/1) naming the receipt: everything a stranger needs to check
 * it with the key alone (docs/receipts.md "Acknowledgement by a signed request").
 */
export interface SignedRequestEvidence {
  /** The agent's public key the signature verified under (OKP, Ed25519). */
  key: Record<string, unknown>;
  /** The platform that vouches for the key (Signature-Agent), or null for the agent's own key. */
  platform: string | null;
  /** `<label>=<signature parameters>`, as in Signature-Input. */
  signature_input: string;
  /** `<label>=:<base64>:`, as in Signature. */
  signature: string;
  /** The RFC 9421 signature base the signature is over. */
  signature_base: string;
  /** The request body exactly as received (UTF-8): its Content-Digest is in the base, and it names the receipt. */
  body: string;
}

interface AcknowledgementCommon {
  /** RFC 7638 thumbprint of the agent's key. */
  jkt: string;
  /** When the agent signed it, Unix seconds: the JWS's iat, or the request signature's `created`. */
  iat: number;
  /** When this inbox took it. */
  at: number;
}

/** The customer's agent's counter-signature: its own JWS, or the request it signed naming the receipt. */
export type ReceiptAcknowledgement =
  | (AcknowledgementCommon & { form: 'jws'; /** The agent's compact JWS, exactly as received. */ jws: string })
  | (AcknowledgementCommon & { form: 'signed_request'; request: SignedRequestEvidence });

export interface ReceiptRecord {
  /** The receipt id: the JWS's nonce. */
  id: string;
  itemId: string;
  itemType: ItemType;
  /** 1, 2, … per item, in the order issued. */
  seq: number;
  kind: ReceiptKind;
  outcome: OutcomeCode | null;
  /** The move that made it due, `<item type>.<event>`. */
  event: string;
  kid: string;
  jws: string;
  sha256: string;
  sandbox: boolean;
  issuedAt: number;
  ack: ReceiptAcknowledgement | null;
}

export interface ReceiptStore {
  insert(receipt: ReceiptRecord): Promise<void>;
  get(id: string): Promise<ReceiptRecord | null>;
  /** The item's receipts in the order issued. */
  listForItem(itemId: string): Promise<ReceiptRecord[]>;
  /** Records the acknowledgement of a receipt that has none yet; false when it already had one. */
  acknowledge(id: string, ack: ReceiptAcknowledgement): Promise<boolean>;
}
