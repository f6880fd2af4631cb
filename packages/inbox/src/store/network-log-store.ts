/** What this inbox knows of each network's evidence log (docs/receipts.md "The networks' logs"). */

export interface NetworkLogRecord {
  origin: string;
  /** The network's note verifier key, kept from the first check (a later head signed by another key is an alarm). */
  vkey: string | null;
  /** The last signed head checked, and its size. */
  checkpoint: string | null;
  size: number | null;
  checkedAt: number | null;
  /** What went wrong at the last check, in a few words (a fork, a bad signature, a proof that failed); null when it went well. */
  problem: string | null;
  problemAt: number | null;
}

/** A published receipt to find in a network's log. */
export interface ReceiptToFind {
  receiptId: string;
  jws: string;
  itemId: string;
  acceptedAt: number;
  missingSince: number | null;
}

export interface NetworkLogStore {
  get(origin: string): Promise<NetworkLogRecord | null>;
  put(record: NetworkLogRecord, nowMs: number): Promise<void>;
  /** Receipts the network took before `acceptedBefore` and not found in its log yet, oldest first. */
  toFind(network: string, acceptedBefore: number, limit: number): Promise<ReceiptToFind[]>;
  found(network: string, receiptId: string, index: number, atMs: number): Promise<void>;
  /** Marks a receipt missing from the log since `sinceMs` unless it is already; true when it was not. */
  missing(network: string, receiptId: string, sinceMs: number): Promise<boolean>;
  counts(): Promise<Map<string, { logged: number; missing: number; firstMissing: { receiptId: string; since: number } | null }>>;
}
