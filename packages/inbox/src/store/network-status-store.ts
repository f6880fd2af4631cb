/** What the inbox learnt from each directory network it reports to (get_networks, inbox spec §2 "Network entry"). */

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
