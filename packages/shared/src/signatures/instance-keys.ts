/**
 * A key lookup for verifiers of svc-instance/1: each instance's public keys (from its manifest),
 * cached, refetched when stale, and refetched at once — at most once a minute per instance — when a
 * signature names a keyid the cache does not hold. Keys are indexed by their RFC 7638 thumbprint; a
 * key whose `kid` says otherwise is ignored.
 */
import { ed25519JwkProblem, ed25519PublicJwk, ed25519Thumbprint, type Ed25519PublicJwk } from './ed25519-keys.js';
import type { InstanceKeyLookup } from './instance-profile.js';

export interface InstanceKeyCacheOptions {
  /** The instance's current public keys (e.g. its manifest's keys). A throw means "not reachable now". */
  fetchKeys(instance: string): Promise<readonly unknown[]>;
  /** How long fetched keys are used before a refetch; 6 hours by default. */
  ttlSeconds?: number;
  /** The least time between two fetches for one instance caused by unknown keyids; 60 s by default. */
  minRefreshSeconds?: number;
  /** Most instances held; the longest unused is dropped first. 10 000 by default. */
  maxInstances?: number;
  /** Milliseconds since the epoch; Date.now by default. */
  now?: () => number;
}

export interface InstanceKeyCache {
  lookup: InstanceKeyLookup;
  /** Forget an instance's keys (e.g. when its manifest changed). */
  invalidate(instance: string): void;
}

interface Entry {
  keys: Map<string, Ed25519PublicJwk>;
  fetchedAt: number;
  attemptedAt: number;
  inFlight: Promise<void> | null;
}

/** Usable Ed25519 public keys of a list, by thumbprint (public members only). */
export function indexInstanceKeys(keys: readonly unknown[]): Map<string, Ed25519PublicJwk> {
  const byKid = new Map<string, Ed25519PublicJwk>();
  for (const value of keys) {
    if (ed25519JwkProblem(value) !== null) continue;
    const jwk = value as Ed25519PublicJwk;
    const thumbprint = ed25519Thumbprint(jwk);
    if (jwk.kid !== undefined && jwk.kid !== thumbprint) continue;
    byKid.set(thumbprint, ed25519PublicJwk(jwk));
  }
  return byKid;
}

export function createInstanceKeyCache(options: InstanceKeyCacheOptions): InstanceKeyCache {
  const ttl = (options.ttlSeconds ?? 6 * 3600) * 1000;
  const minRefresh = (options.minRefreshSeconds ?? 60) * 1000;
  const maxInstances = options.maxInstances ?? 10_000;
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry>();

  function refresh(instance: string, entry: Entry): Promise<void> {
    if (entry.inFlight) return entry.inFlight;
    entry.attemptedAt = now();
    entry.inFlight = (async () => {
      try {
        const keys = await options.fetchKeys(instance);
        entry.keys = indexInstanceKeys(keys);
        entry.fetchedAt = now();
      } catch {
        // Keep what we had; an unreachable manifest does not make its keys wrong.
      } finally {
        entry.inFlight = null;
      }
    })();
    return entry.inFlight;
  }

  async function lookup({ keyid, instance }: { keyid: string; instance: string }): Promise<Ed25519PublicJwk | null> {
    let entry = entries.get(instance);
    if (entry) {
      entries.delete(instance);
      entries.set(instance, entry);
    } else {
      entry = { keys: new Map(), fetchedAt: -Infinity, attemptedAt: -Infinity, inFlight: null };
      entries.set(instance, entry);
      while (entries.size > maxInstances) entries.delete(entries.keys().next().value as string);
    }
    const at = now();
    const stale = at - entry.fetchedAt >= ttl;
    const unknown = !entry.keys.has(keyid);
    if ((stale || unknown) && (at - entry.attemptedAt >= minRefresh || entry.inFlight)) await refresh(instance, entry);
    return entry.keys.get(keyid) ?? null;
  }

  return { lookup, invalidate: (instance) => void entries.delete(instance) };
}
