/** Table shapes of the receipt migrations (0008 onwards), as Kysely sees them. */
import type { Generated } from 'kysely';

export interface SigningKeysTable {
  kid: string; // RFC 7638 thumbprint of the public key
  public_jwk: string; // JSON, public members only
  sealed_private: string; // SecretBox-sealed private JWK, bound to the kid
  created_at: number;
  retired_at: number | null; // null for the one active key
}

export interface InstanceSecretsTable {
  name: string;
  sealed: string; // SecretBox-sealed, bound to the name
  created_at: number;
}

export interface ReceiptsTable {
  id: string; // the receipt id: the JWS's nonce, 32 lowercase hex characters
  item_id: string;
  item_type: string;
  seq: number; // 1, 2, … per item, in the order issued
  kind: string; // confirmed | accepted | paid | outcome | amended
  outcome: string | null; // the outcome code on an outcome
  event: string; // the move that made it due, '<item type>.<event>'
  kid: string;
  jws: string; // exactly as signed
  sha256: string; // base64url SHA-256 of jws: what an acknowledgement binds
  sandbox: number;
  issued_at: number;
  ack_jws: string | null; // the agent's acknowledgement JWS, exactly as received
  ack_request: string | null; // or the signed request that acknowledged it: SignedRequestEvidence as JSON (migration 0017)
  ack_jkt: string | null; // RFC 7638 thumbprint of the agent's key (set for either form)
  ack_iat: number | null; // its iat, Unix seconds
  ack_at: number | null; // when it was taken
}

export interface ReceiptPublicationsTable {
  position: Generated<number>; // the order receipts are sent in
  network: string; // the network's origin, as keyed in settings.networks
  receipt_id: string;
  state: string; // waiting | held | published | refused
  ack_wanted: number; // 1 once the receipt has an acknowledgement to publish with it
  attempts: number;
  accepted_at: number | null; // when the network first took the receipt
  ack_sent_at: number | null; // when it took the receipt with its acknowledgement
  network_state: string | null; // issued | acknowledged, as the network last answered
  counted: number | null; // whether the network said it counts it
  last_attempt_at: number | null;
  last_error: string | null; // the last failure to reach the network, in a few words
  refusal: string | null; // why the network refused it for good: '<code>: <detail>'
  refused_at: number | null;
  queued_at: number;
  updated_at: number;
  log_index: number | null; // where the network's evidence log holds it, once found there (migration 0021)
  logged_at: number | null;
  log_missing_since: number | null; // since when it is missing from that log, after the hour the network has
}

/** Each network's evidence log as this inbox checks it (migration 0021). */
export interface NetworkLogsTable {
  origin: string;
  vkey: string | null;
  checkpoint: string | null;
  size: number | null;
  checked_at: number | null;
  problem: string | null;
  problem_at: number | null;
  updated_at: number;
}
