/** Table shapes of the notifications migration (0020), as Kysely sees them. */

export interface PushSubscriptionsTable {
  id: string;
  endpoint: string;
  p256dh: string;
  auth: string;
  key_id: string | null;
  label: string | null;
  created_at: number;
  last_sent_at: number | null;
  last_error: string | null;
}

export interface OwnerNoticesTable {
  id: string;
  event_id: string;
  item_id: string;
  kind: string; // new | message | payment | cancelled | answered
  created_at: number;
  mailed_at: number | null;
  pushed_at: number | null;
  /** Taken by a job sending it until then (a crashed job's claim runs out). */
  mail_claimed_until: number | null;
  push_claimed_until: number | null;
}
