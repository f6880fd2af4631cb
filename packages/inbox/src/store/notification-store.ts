/** What the inbox keeps to tell the owner (docs/mail.md "The owner's notices", docs/web.md "Push"), in domain terms. */
import type { ItemType } from '../domain/types.js';

/** A browser the owner allowed to receive Web Push: where to send, and the keys a message is encrypted to. */
export interface PushSubscriptionRecord {
  id: string;
  endpoint: string;
  /** The browser's P-256 public key (base64url, 65 bytes uncompressed). */
  p256dh: string;
  /** The browser's authentication secret (base64url, 16 bytes). */
  auth: string;
  /** The owner key whose session subscribed it; null when made otherwise. */
  keyId: string | null;
  /** A few words naming the device (its browser), for the owner's list. */
  label: string | null;
  createdAt: number;
  lastSentAt: number | null;
  lastError: string | null;
}

/** One thing the owner is told of: an event that needs them, to mail and push once. */
export interface OwnerNoticeRecord {
  id: string;
  eventId: string;
  itemId: string;
  kind: OwnerNoticeKind;
  createdAt: number;
  mailedAt: number | null;
  pushedAt: number | null;
}

export type OwnerNoticeKind = 'new' | 'message' | 'payment' | 'cancelled' | 'answered';

export interface NotificationStore {
  /** Adds a subscription, or renews the keys of the same endpoint (a browser subscribing again). */
  saveSubscription(record: PushSubscriptionRecord): Promise<PushSubscriptionRecord>;
  listSubscriptions(): Promise<PushSubscriptionRecord[]>;
  getSubscription(id: string): Promise<PushSubscriptionRecord | null>;
  /** False when there was none. */
  removeSubscription(id: string): Promise<boolean>;
  recordPushOutcome(id: string, outcome: { sentAt: number | null; error: string | null }): Promise<void>;
  addNotice(record: OwnerNoticeRecord): Promise<void>;
  /**
   * Takes up to `limit` notices not mailed (or not pushed) yet and not taken by another job, oldest
   * first, for `leaseMs`: two jobs running at once (several processes on PostgreSQL) never send one twice.
   */
  claimNotices(channel: 'mail' | 'push', nowMs: number, leaseMs: number, limit: number): Promise<OwnerNoticeRecord[]>;
  /** Gives claimed notices back (their send failed): the next job takes them. */
  releaseNotices(channel: 'mail' | 'push', ids: readonly string[]): Promise<void>;
  markNotices(channel: 'mail' | 'push', ids: readonly string[], atMs: number): Promise<void>;
  /** Deletes notices made before an instant. */
  pruneNotices(before: number): Promise<number>;
}

/** The (type, states) pairs an item waits for the owner in: counted in the owner app's title. */
export type AwaitingStates = Readonly<Partial<Record<ItemType, readonly string[]>>>;
