/** What the inbox learnt from each directory network it reports to (get_networks, inbox spec §2 "Network entry"). */

/** The owner's standing at a network, as its last signed ping answered (directory spec §3 reputation tiers). */
export interface NetworkStanding {
  tier: 'new' | 'building' | 'trusted';
  score: number;
  ranked: boolean;
  kept: number;
  broken: number;
  customers: number;
  /** The snapshot it comes from (ISO instant), or null when the network has computed none yet. */
  asOf: string | null;
}

/** What became of a ping's signature (docs/receipts.md "What get_networks shows"). */
export type PingSignatureState =
  /** The network verified it and answered with the standing a signed ping gets. */
  | 'verified'
  /** The network took the ping as unsigned and said why (`Svc-Signature: invalid; reason=…`). */
  | 'invalid'
  /** The network refused the ping for its signature (401); the ping did not count. */
  | 'refused'
  /** The network took the ping without saying anything of its signature (it does not check them yet). */
  | 'not_checked';

export interface NetworkStatusRecord {
  origin: string;
  /** When the network last accepted our registration. */
  registeredAt: number | null;
  /** When the network last accepted a ping. */
  lastPingAt: number | null;
  /** The registration status the network last reported: pending, verified or unreachable. */
  verification: string | null;
  verifiedAt: number | null;
  listed: boolean | null;
  /** When that status was read. */
  statusCheckedAt: number | null;
  /** The last failure in a few words; cleared by the next success of the same kind. */
  lastError: string | null;
  lastErrorAt: number | null;
  /** The standing the last signed ping answered, and when. */
  standing: NetworkStanding | null;
  standingAt: number | null;
  /** How many of our receipts the network said it holds, as of standingAt. */
  networkReceipts: { accepted: number; acknowledged: number } | null;
  /** The ranking rules version the network applies, as its last ping answer said. */
  rulesVersion: number | null;
  pingSignature: PingSignatureState | null;
  pingSignatureReason: string | null;
  pingSignatureAt: number | null;
  /** Pings failed in a row (spaces out the next one). */
  pingFailures: number;
  /** Publication attempts failed or held in a row, and no attempt before publishRetryAt. */
  publishFailures: number;
  publishRetryAt: number | null;
  /** Why publication waits: the network failed (backoff), holds our receipts (not verified), or asked us to (Retry-After). */
  publishWait: 'failing' | 'held' | 'retry_after' | null;
  /** When the network last read the business's manifest, as its last ping answer said. */
  manifestReadAt: number | null;
  /** Whether what it read is what the inbox published at that ping (null: it has not said). */
  manifestCurrent: boolean | null;
  /** When the inbox last told the network that what it publishes changed. */
  changeSentAt: number | null;
  updatedAt: number;
}

/** The fields a report may set; absent ones stay as they are. */
export type NetworkStatusChange = Partial<Omit<NetworkStatusRecord, 'origin' | 'updatedAt'>>;

export interface NetworkStatusStore {
  get(origin: string): Promise<NetworkStatusRecord | null>;
  list(): Promise<NetworkStatusRecord[]>;
  /** Creates the origin's row when missing and applies the change. */
  record(origin: string, change: NetworkStatusChange, nowMs: number): Promise<void>;
}
