/**
 * What makes the hour's order checkable by anyone (docs/verifiable-order.md): the evidence log as a
 * tree, the network's key, and the hours' statements, wired once per process.
 */
import type { DirectoryContext } from '../context.js';
import type { StoredCheckpoint } from '../../store/store.js';
import { HourStatements } from './hour-statement.js';
import { EvidenceTree, signHead } from './log-tree.js';
import type { NetworkKey } from './network-key.js';
import type { OrderTreeHasher } from './order-tree.js';

/** How often the log's head is signed anew when it grew (at least hourly, as the issue asks; also at every hour's statement). */
export const HEAD_EVERY_MS = 5 * 60_000;

export class VerifiableOrder {
  readonly tree: EvidenceTree;
  readonly statements: HourStatements;
  readonly key: NetworkKey;
  readonly #ctx: DirectoryContext;

  /** `hasher`: where the hours' order trees are hashed (this thread unless given). */
  constructor(ctx: DirectoryContext, key: NetworkKey, hasher?: OrderTreeHasher) {
    this.#ctx = ctx;
    this.key = key;
    this.tree = new EvidenceTree(ctx.store);
    this.statements = new HourStatements(ctx, this.tree, key, hasher);
  }

  /** Signs the head when the log grew since the last one signed. */
  signHead(): Promise<StoredCheckpoint> {
    return signHead(this.#ctx.store, this.tree, this.key, this.#ctx.clock.now());
  }

  /** The latest signed head (one is signed first when none is yet). */
  async latestHead(): Promise<StoredCheckpoint> {
    return (await this.#ctx.store.evidence.latestCheckpoint()) ?? this.signHead();
  }
}
