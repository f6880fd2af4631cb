/** Table shapes of the persons migration (0012), as Kysely sees them. */
export interface PersonsTable {
  id: string;
  email_mac: string; // HMAC of the normalised address under the network's pepper; never the address
  created_at: number;
  email_proven_at: number | null; // when a key mailed to it was first used
  kept: number;
  broken: number;
}
export interface PersonKeysTable {
  id: string;
  person_id: string;
  secret_hash: string | null; // SHA-256 of the secret; null until the key is made and mailed
  created_at: number;
  mailed_at: number | null;
  revoked_at: number | null;
}
export interface PassesTable {
  id: string;
  person_id: string;
  key_id: string;
  secret_hash: string;
  delegated_jkt: string | null; // an agent key allowed to present it by reference
  created_at: number;
  revoked_at: number | null;
}
export interface PresentationsTable {
  id: string;
  person_id: string;
  pass_id: string;
  instance: string; // the business's inbox origin
  created_at: number;
}
export interface PersonOutcomesTable {
  presentation_id: string;
  receipt_id: string;
  person_id: string;
  side: string; // kept | broken | neutral
  created_at: number;
}
export interface IssuancesTable {
  id: string;
  instance: string;
  person_id: string;
  created_at: number;
}
