/** Table shapes of migration 0003-key-scopes (scope misses, network status, extended by 0010), as Kysely sees them. */

export interface ScopeMissesTable {
  principal_id: string; // api key id, or the OAuth grant id of an AI app
  principal_kind: string; // integration | owner_ai | owner
  operation: string;
  scope: string;
  calls: number;
  refused: number;
  first_at: number;
  last_at: number;
}

export interface NetworkStatusTable {
  origin: string;
  registered_at: number | null;
  last_ping_at: number | null;
  verification: string | null; // pending | verified | unreachable, as the network last said
  verified_at: number | null;
  listed: number | null;
  status_checked_at: number | null;
  last_error: string | null;
  last_error_at: number | null;
  updated_at: number;
  // Migration 0010: what the last signed ping answered, and the failure runs that space out retries.
  standing: string | null; // JSON: tier, score, ranked, kept, broken, customers, as_of
  standing_at: number | null; // when a ping answered it
  network_receipts: string | null; // JSON: accepted, acknowledged, as the network counted them
  rules_version: number | null;
  ping_signature: string | null; // verified | invalid | refused | not_checked
  ping_signature_reason: string | null;
  ping_signature_at: number | null;
  ping_failures: number | null; // pings failed in a row
  publish_failures: number | null; // publication attempts failed in a row
  publish_retry_at: number | null; // no publication before this while the network is failing
  publish_wait: string | null; // why: failing | held | retry_after
  // Migration 0017: what the network last read of the business.
  manifest_read_at: number | null; // when it last read the manifest, as its ping answer said
  manifest_current: number | null; // 1: what it read is what the inbox publishes now (as of the last ping)
  change_sent_at: number | null; // when the inbox last told it of a change
}
