/** Receipts the instance issued and the acknowledgements of them (docs/receipts.md). */
import type { OutcomeCode, ReceiptKind } from '@svc/shared';
import type { ItemType } from '../domain/types.js';

export interface ReceiptAcknowledgement {
  /** The agent's compact JWS, exactly as received. */
  jws: string;
  /** RFC 7638 thumbprint of the agent's key. */
  jkt: string;
  /** The acknowledgement's iat, Unix seconds. */
  iat: number;
  /** When this inbox took it. */
  at: number;
}

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
