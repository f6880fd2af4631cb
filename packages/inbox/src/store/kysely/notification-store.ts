/** The notification tables (migration 0020), on SQLite or PostgreSQL. */
import { engineOf } from '@svc/shared';
import type { Kysely, Selectable } from 'kysely';
import type { NotificationStore, OwnerNoticeKind, OwnerNoticeRecord, PushSubscriptionRecord } from '../notification-store.js';
import type { OwnerNoticesTable, PushSubscriptionsTable } from './notification-tables.js';
import type { Database } from './schema.js';

function subscriptionOf(row: Selectable<PushSubscriptionsTable>): PushSubscriptionRecord {
  return {
    id: row.id,
    endpoint: row.endpoint,
    p256dh: row.p256dh,
    auth: row.auth,
    keyId: row.key_id,
    label: row.label,
    createdAt: Number(row.created_at),
    lastSentAt: row.last_sent_at === null ? null : Number(row.last_sent_at),
    lastError: row.last_error,
  };
}

function noticeOf(row: Selectable<OwnerNoticesTable>): OwnerNoticeRecord {
  return {
    id: row.id,
    eventId: row.event_id,
    itemId: row.item_id,
    kind: row.kind as OwnerNoticeKind,
    createdAt: Number(row.created_at),
    mailedAt: row.mailed_at === null ? null : Number(row.mailed_at),
    pushedAt: row.pushed_at === null ? null : Number(row.pushed_at),
  };
}

export class KyselyNotificationStore implements NotificationStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async saveSubscription(r: PushSubscriptionRecord): Promise<PushSubscriptionRecord> {
    await this.#db
      .insertInto('push_subscriptions')
      .values({
        id: r.id,
        endpoint: r.endpoint,
        p256dh: r.p256dh,
        auth: r.auth,
        key_id: r.keyId,
        label: r.label,
        created_at: r.createdAt,
        last_sent_at: null,
        last_error: null,
      })
      .onConflict((oc) => oc.column('endpoint').doUpdateSet({ p256dh: r.p256dh, auth: r.auth, key_id: r.keyId, label: r.label, last_error: null }))
      .execute();
    const row = await this.#db.selectFrom('push_subscriptions').selectAll().where('endpoint', '=', r.endpoint).executeTakeFirstOrThrow();
    return subscriptionOf(row);
  }

  async listSubscriptions(): Promise<PushSubscriptionRecord[]> {
    return (await this.#db.selectFrom('push_subscriptions').selectAll().orderBy('id').execute()).map(subscriptionOf);
  }

  async getSubscription(id: string): Promise<PushSubscriptionRecord | null> {
    const row = await this.#db.selectFrom('push_subscriptions').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? subscriptionOf(row) : null;
  }

  async removeSubscription(id: string): Promise<boolean> {
    const result = await this.#db.deleteFrom('push_subscriptions').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async recordPushOutcome(id: string, outcome: { sentAt: number | null; error: string | null }): Promise<void> {
    const set = outcome.sentAt === null ? { last_error: outcome.error } : { last_sent_at: outcome.sentAt, last_error: outcome.error };
    await this.#db.updateTable('push_subscriptions').set(set).where('id', '=', id).execute();
  }

  async addNotice(r: OwnerNoticeRecord): Promise<void> {
    await this.#db
      .insertInto('owner_notices')
      .values({
        id: r.id,
        event_id: r.eventId,
        item_id: r.itemId,
        kind: r.kind,
        created_at: r.createdAt,
        mailed_at: r.mailedAt,
        pushed_at: r.pushedAt,
        mail_claimed_until: null,
        push_claimed_until: null,
      })
      .execute();
  }

  async claimNotices(channel: 'mail' | 'push', nowMs: number, leaseMs: number, limit: number): Promise<OwnerNoticeRecord[]> {
    const done = channel === 'mail' ? 'mailed_at' : 'pushed_at';
    const claim = channel === 'mail' ? 'mail_claimed_until' : 'push_claimed_until';
    let free = this.#db
      .selectFrom('owner_notices')
      .select('id')
      .where(done, 'is', null)
      .where((eb) => eb.or([eb(claim, 'is', null), eb(claim, '<', nowMs)]))
      .orderBy('id')
      .limit(limit);
    // Rows another process is claiming right now are passed over, not waited for.
    if (engineOf(this.#db) === 'postgres') free = free.forUpdate().skipLocked();
    const rows = await this.#db.updateTable('owner_notices').set({ [claim]: nowMs + leaseMs }).where('id', 'in', free).returningAll().execute();
    return rows.map(noticeOf).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  async releaseNotices(channel: 'mail' | 'push', ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    const claim = channel === 'mail' ? 'mail_claimed_until' : 'push_claimed_until';
    await this.#db.updateTable('owner_notices').set({ [claim]: null }).where('id', 'in', [...ids]).execute();
  }

  async markNotices(channel: 'mail' | 'push', ids: readonly string[], atMs: number): Promise<void> {
    if (ids.length === 0) return;
    const column = channel === 'mail' ? 'mailed_at' : 'pushed_at';
    await this.#db
      .updateTable('owner_notices')
      .set({ [column]: atMs })
      .where('id', 'in', [...ids])
      .where(column, 'is', null)
      .execute();
  }

  async pruneNotices(before: number): Promise<number> {
    const result = await this.#db.deleteFrom('owner_notices').where('created_at', '<', before).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
