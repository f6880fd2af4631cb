/**
 * The publication outbox (docs/receipts.md "Publication"): one row per network and receipt, queued
 * with the receipt, never deleted, saying what became of it there.
 */

/** Where a receipt stands with one network. */
export type PublicationState =
  /** To be sent: never sent yet, sent again with its acknowledgement, or retried after a failure. */
  | 'waiting'
  /** The network does not take it yet (it has not verified this inbox); tried again later. */
  | 'held'
  /** The network took it (with its acknowledgement, when there is one). */
  | 'published'
  /** The network refused it for good; `refusal` says why. */
  | 'refused';

export interface ReceiptPublicationRecord {
  network: string;
  receiptId: string;
  state: PublicationState;
  /** The receipt has an acknowledgement the network should get. */
  ackWanted: boolean;
  attempts: number;
  acceptedAt: number | null;
  ackSentAt: number | null;
  /** issued or acknowledged, as the network last answered. */
  networkState: string | null;
  counted: boolean | null;
  lastAttemptAt: number | null;
  lastError: string | null;
  refusal: string | null;
  refusedAt: number | null;
  queuedAt: number;
}

/** A row to send, with what goes in the request. */
export interface PublicationToSend {
  record: ReceiptPublicationRecord;
  receiptJws: string;
  /** The acknowledgement, when the receipt has one. */
  ackJws: string | null;
}

/** What one network holds of us, by our own account. */
export interface PublicationCounts {
  waiting: number;
  held: number;
  /** Receipts the network took (published, or taken and now waiting to go again with their acknowledgement). */
  accepted: number;
  refused: number;
  acknowledgementsSent: number;
  lastAcceptedAt: number | null;
  lastRefusal: { receiptId: string; reason: string; at: number } | null;
}

export type PublicationChange = Partial<Omit<ReceiptPublicationRecord, 'network' | 'receiptId' | 'queuedAt'>>;

export interface ReceiptPublicationStore {
  /** Queues a receipt for a network; nothing when it is queued there already. */
  queue(network: string, receiptId: string, nowMs: number): Promise<void>;
  /**
   * The receipt has an acknowledgement now: every network's row of it wants it, and a row the network
   * already took goes back to waiting to be sent again with it. Answers the networks to send to.
   */
  wantAcknowledgement(receiptId: string, nowMs: number): Promise<string[]>;
  /** The next rows to send to a network (waiting or held), in the order queued, with the JWS to send. */
  due(network: string, limit: number): Promise<PublicationToSend[]>;
  get(network: string, receiptId: string): Promise<ReceiptPublicationRecord | null>;
  update(network: string, receiptId: string, change: PublicationChange, nowMs: number): Promise<void>;
  /** Counts per network. */
  countsByNetwork(): Promise<Map<string, PublicationCounts>>;
  /** Networks with rows still to send (waiting or held). */
  networksWithPending(): Promise<string[]>;
}
