/** Table shapes of the identity migration (0013), as Kysely sees them. */

export interface AgentsTable {
  jkt: string; // RFC 7638 thumbprint of the agent's Ed25519 key
  platform: string | null; // the Signature-Agent origin, or null for an agent's own key
  public_jwk: string; // JSON, public members only
  first_seen: number;
  last_seen: number;
}

export interface ItemAgentsTable {
  item_id: string;
  jkt: string;
  platform: string | null;
  signed_at: number;
}

export interface SignatureUsesTable {
  signature_id: string; // base64url SHA-256 of the signature bytes
  jkt: string;
  idempotency_key: string | null;
  keep_until: number; // ms
}

export interface CustomerCodesTable {
  id: string;
  item_id: string;
  address_hash: string; // HMAC of the normalised address
  code_hash: string; // HMAC of the code under the instance's pepper
  sent_to: string; // the masked address
  created_at: number;
  expires_at: number;
  attempts: number;
  used_at: number | null;
}

export interface ItemProofsTable {
  item_id: string;
  address_hash: string;
  proven_at: number;
}

export interface ItemPersonsTable {
  item_id: string;
  network: string; // the network's origin
  ppid: string; // the pairwise person id the network gave this business
  presentation_id: string;
  standing: string; // JSON: tier, score, kept, broken, businesses, since, email_proven, unusual_use
  address_hash: string | null; // keyed hash of the item's address, to find the person on later items
  presented_at: number;
}

export interface ItemNetworksTable {
  item_id: string;
  network: string;
  status: string;
  updated_at: number;
}
