/**
 * Reads of what a business rarely changes (its profile, settings, rules, webhook endpoints), kept
 * per database while the store's stamp of them holds (ChangeStamps: different once they may have
 * changed, a rolled-back write and another process's write included). Every create and move read
 * all four; now each is a stamp unless it changed. Kept values are frozen: every caller gets the
 * same object.
 */
import { deepFreeze } from '@svc/shared';
import type { ChangeStamps, ChangeTopic, InboxStore } from '../store/store.js';

const keptByDatabase = new WeakMap<ChangeStamps, Map<ChangeTopic, { stamp: string; value: unknown }>>();

export async function keptRead<T>(store: InboxStore, topic: ChangeTopic, read: () => Promise<T>): Promise<T> {
  // The stamp is taken before the read: a write landing in between leaves the value kept under a stamp no later one equals.
  const stamp = await store.changes.stamp([topic]);
  let kept = keptByDatabase.get(store.changes);
  if (!kept) {
    kept = new Map();
    keptByDatabase.set(store.changes, kept);
  }
  const hit = kept.get(topic);
  if (hit && hit.stamp === stamp) return hit.value as T;
  const value = deepFreeze(await read());
  kept.set(topic, { stamp, value });
  return value;
}
