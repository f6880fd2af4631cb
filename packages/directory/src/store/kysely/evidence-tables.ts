/** The tables of the evidence log and the hours' statements (docs/verifiable-order.md), as Kysely sees them. */

/** One entry of the append-only evidence log: its bytes exactly as hashed. No update or delete path exists (triggers refuse both). */
export interface EvidenceLogTable {
  /** From 0, without gaps. */
  idx: number;
  /** When it reached the network (ms); never lower than the entry before. */
  at: number;
  kind: string;
  /** What the entry is about, unique: `r <domain> <receipt id>`, `a <domain> <receipt id>`, `m <domain>`, `n <night>`. */
  ref: string;
  entry: string;
  /** SHA-256(0x00 || entry). */
  leaf_hash: Buffer;
}

/** The root of each whole tile of 256 entries (derived from the log; kept so roots and proofs read no more than two tiles of leaves). */
export interface EvidenceBlocksTable {
  idx: number;
  hash: Buffer;
}

/** Signed heads of the log, the latest served at /v1/log/checkpoint. */
export interface EvidenceCheckpointsTable {
  size: number;
  root: Buffer;
  note: string;
  signed_at: number;
}

/** Each hour's signed statement: what its order was made from and the root of its leaves. Kept (small) beyond the orders. */
export interface OrderStatementsTable {
  hour_start: number;
  rules_version: number;
  shuffle_day: string;
  night: number | null;
  log_size: number;
  log_root: Buffer;
  checks_from: number | null;
  checks_to: number | null;
  order_size: number;
  order_root: Buffer;
  note: string;
  created_at: number;
}

/** What an hour's leaves say beyond the stored order: the facts of each place, and the roots of its whole tiles; kept as long as the order. */
export interface OrderLeafFactsTable {
  hour_start: number;
  /** Little-endian Uint32 per place (order-facts.ts). */
  facts: Buffer;
  /** 32 bytes per whole tile of 256 places. */
  tile_roots: Buffer;
}
