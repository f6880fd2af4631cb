/** Table shapes of migration 0003-key-scopes (scope misses, network status), as Kysely sees them. */

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
}
