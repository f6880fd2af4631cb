/** The identity tables (migration 0013), on SQLite or PostgreSQL. No rules here. */
import { engineOf, lockUntilCommit } from '@svc/shared';
import type { Kysely } from 'kysely';
import type { AgentRecord, CustomerCodeRecord, IdentityStore, ItemAgentRecord, SignatureUse } from '../identity-store.js';
import type { Database } from './schema.js';
import { compileOnce } from '@svc/shared';

// Every owner view of an item (the answer of every owner move) asks for its agent and its proof: compiled once.
const itemAgent = compileOnce((db: Kysely<Database>, p: { itemId: string }) => db.selectFrom('item_agents').selectAll().where('item_id', '=', p.itemId));
const itemProof = compileOnce((db: Kysely<Database>, p: { itemId: string }) => db.selectFrom('item_proofs').selectAll().where('item_id', '=', p.itemId));

export class KyselyIdentityStore implements IdentityStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async seeAgent(agent: { jkt: string; platform: string | null; publicJwk: Record<string, unknown> }, nowMs: number): Promise<void> {
    await this.#db
      .insertInto('agents')
      .values({ jkt: agent.jkt, platform: agent.platform, public_jwk: JSON.stringify(agent.publicJwk), first_seen: nowMs, last_seen: nowMs })
      .onConflict((c) => c.column('jkt').doUpdateSet({ last_seen: nowMs, platform: agent.platform }))
      .execute();
  }

  async getAgent(jkt: string): Promise<AgentRecord | null> {
    const row = await this.#db.selectFrom('agents').selectAll().where('jkt', '=', jkt).executeTakeFirst();
    if (!row) return null;
    return { jkt: row.jkt, platform: row.platform, publicJwk: JSON.parse(row.public_jwk) as Record<string, unknown>, firstSeen: Number(row.first_seen), lastSeen: Number(row.last_seen) };
  }

  async setItemAgent(record: ItemAgentRecord): Promise<void> {
    await this.#db
      .insertInto('item_agents')
      .values({ item_id: record.itemId, jkt: record.jkt, platform: record.platform, signed_at: record.signedAt })
      .onConflict((c) => c.column('item_id').doNothing())
      .execute();
  }

  async itemAgent(itemId: string): Promise<ItemAgentRecord | null> {
    const row = await itemAgent.first(this.#db, { itemId });
    return row ? { itemId: row.item_id, jkt: row.jkt, platform: row.platform, signedAt: Number(row.signed_at) } : null;
  }

  /**
   * Takes a signature once: one statement inserts it, or takes over a use whose keeping ended, so
   * two requests with one signature racing on PostgreSQL never both see 'new' (the second waits
   * for the first's commit, then finds its row).
   */
  async useSignature(use: { signatureId: string; jkt: string; idempotencyKey: string | null; keepUntilMs: number }, nowMs: number): Promise<SignatureUse> {
    for (;;) {
      const taken = await this.#db
        .insertInto('signature_uses')
        .values({ signature_id: use.signatureId, jkt: use.jkt, idempotency_key: use.idempotencyKey, keep_until: use.keepUntilMs })
        .onConflict((c) =>
          c.column('signature_id').doUpdateSet({ jkt: use.jkt, idempotency_key: use.idempotencyKey, keep_until: use.keepUntilMs }).where('signature_uses.keep_until', '<', nowMs),
        )
        .returning('signature_id')
        .executeTakeFirst();
      if (taken) return 'new';
      const held = await this.#db.selectFrom('signature_uses').selectAll().where('signature_id', '=', use.signatureId).executeTakeFirst();
      // Pruned between the two statements: take it again.
      if (!held) continue;
      return held.jkt === use.jkt && use.idempotencyKey !== null && held.idempotency_key === use.idempotencyKey ? 'retry' : 'replayed';
    }
  }

  async pruneSignatures(nowMs: number): Promise<number> {
    const result = await this.#db.deleteFrom('signature_uses').where('keep_until', '<', nowMs).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async addCode(code: CustomerCodeRecord): Promise<void> {
    await this.#db
      .insertInto('customer_codes')
      .values({
        id: code.id,
        item_id: code.itemId,
        address_hash: code.addressHash,
        code_hash: code.codeHash,
        sent_to: code.sentTo,
        created_at: code.createdAt,
        expires_at: code.expiresAt,
        attempts: code.attempts,
        used_at: code.usedAt,
      })
      .execute();
  }

  async latestCode(itemId: string): Promise<CustomerCodeRecord | null> {
    let select = this.#db.selectFrom('customer_codes').selectAll().where('item_id', '=', itemId).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(1);
    // Read to count an attempt: on PostgreSQL the row is held to the commit, so guesses sent at once are counted one after the other and never pass the limit together.
    if (this.#db.isTransaction && engineOf(this.#db) === 'postgres') select = select.forUpdate();
    const row = await select.executeTakeFirst();
    if (!row) return null;
    return {
      id: row.id,
      itemId: row.item_id,
      addressHash: row.address_hash,
      codeHash: row.code_hash,
      sentTo: row.sent_to,
      createdAt: Number(row.created_at),
      expiresAt: Number(row.expires_at),
      attempts: Number(row.attempts),
      usedAt: row.used_at === null ? null : Number(row.used_at),
    };
  }

  async countCodes(query: { itemId?: string; addressHash?: string; sinceMs: number }): Promise<number> {
    // Counted to decide a send: on PostgreSQL codes of one item (and of one address) are counted and added one transaction at a time, so racing sends never pass the limits together.
    if (this.#db.isTransaction && engineOf(this.#db) === 'postgres') {
      if (query.itemId !== undefined) await lockUntilCommit(this.#db, `inbox.codes.item.${query.itemId}`);
      if (query.addressHash !== undefined) await lockUntilCommit(this.#db, `inbox.codes.address.${query.addressHash}`);
    }
    let select = this.#db.selectFrom('customer_codes').select((eb) => eb.fn.countAll<number>().as('n')).where('created_at', '>=', query.sinceMs);
    if (query.itemId !== undefined) select = select.where('item_id', '=', query.itemId);
    if (query.addressHash !== undefined) select = select.where('address_hash', '=', query.addressHash);
    const row = await select.executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  async countAttempt(id: string): Promise<void> {
    await this.#db.updateTable('customer_codes').set((eb) => ({ attempts: eb('attempts', '+', 1) })).where('id', '=', id).execute();
  }

  async useCode(id: string, nowMs: number): Promise<void> {
    await this.#db.updateTable('customer_codes').set({ used_at: nowMs }).where('id', '=', id).execute();
  }

  async pruneCodes(beforeMs: number): Promise<number> {
    const result = await this.#db.deleteFrom('customer_codes').where('created_at', '<', beforeMs).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async proveItem(itemId: string, addressHash: string, nowMs: number): Promise<void> {
    await this.#db
      .insertInto('item_proofs')
      .values({ item_id: itemId, address_hash: addressHash, proven_at: nowMs })
      .onConflict((c) => c.column('item_id').doNothing())
      .execute();
  }

  async itemProof(itemId: string): Promise<{ addressHash: string; provenAt: number } | null> {
    const row = await itemProof.first(this.#db, { itemId });
    return row ? { addressHash: row.address_hash, provenAt: Number(row.proven_at) } : null;
  }

  async addressProven(addressHash: string): Promise<boolean> {
    const row = await this.#db.selectFrom('item_proofs').select('item_id').where('address_hash', '=', addressHash).limit(1).executeTakeFirst();
    return row !== undefined;
  }
}
