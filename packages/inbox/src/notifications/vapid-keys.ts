/**
 * The instance's VAPID key pair (RFC 8292): made once at first start, kept sealed in instance_secrets
 * like the other instance secrets. Browsers subscribe to push with its public key, and every push
 * message carries a JWT signed with its private key, so a push service takes messages for those
 * subscriptions from this instance only. A pair that can no longer be opened (secret.key replaced) is
 * made anew; the subscriptions made under the old one stop working and are forgotten, and the owner
 * turns notifications on again in the app.
 */
import webpush from 'web-push';
import type { SecretBox } from '../domain/secrets/secret-box.js';
import type { InboxStore } from '../store/store.js';

const NAME = 'vapid-keys';
const PURPOSE = 'instance-secret';

export interface VapidKeys {
  /** base64url of the uncompressed P-256 public key (65 bytes): the browser's applicationServerKey. */
  publicKey: string;
  /** base64url of the private scalar (32 bytes). */
  privateKey: string;
}

function fresh(secrets: SecretBox): { keys: VapidKeys; sealed: string } {
  const made = webpush.generateVAPIDKeys();
  const keys = { publicKey: made.publicKey, privateKey: made.privateKey };
  return { keys, sealed: secrets.seal(JSON.stringify(keys), PURPOSE, NAME) };
}

export async function loadVapidKeys(store: InboxStore, secrets: SecretBox, nowMs: number): Promise<{ keys: VapidKeys; replaced: boolean }> {
  return store.transaction(async (tx) => {
    const candidate = fresh(secrets);
    if (await tx.signingKeys.addSecret(NAME, candidate.sealed, nowMs)) return { keys: candidate.keys, replaced: false };
    const sealed = (await tx.signingKeys.getSecret(NAME)) as string;
    try {
      const opened = JSON.parse(secrets.open(sealed, PURPOSE, NAME)) as VapidKeys;
      return { keys: { publicKey: opened.publicKey, privateKey: opened.privateKey }, replaced: false };
    } catch {
      await tx.signingKeys.replaceSecret(NAME, candidate.sealed, nowMs);
      for (const subscription of await tx.notifications.listSubscriptions()) await tx.notifications.removeSubscription(subscription.id);
      return { keys: candidate.keys, replaced: true };
    }
  });
}
