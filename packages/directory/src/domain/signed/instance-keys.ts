/**
 * Where the directory finds an inbox's public keys (docs/directory.md "Signed instance requests"):
 * in the inbox's own manifest, `https://<domain>/.well-known/agent-inbox.json`, member
 * `receipt_keys` (a JWK Set). Fetched through the SSRF-safe fetch, only for origins that could
 * register, cached six hours, fetched again at once (at most once a minute per instance) when a
 * signature or a receipt names a key the cache does not hold. The last failure to read a manifest is
 * kept, so a refusal can say why no key was found.
 */
import { PublicFetchError, createInstanceKeyCache, publicFetch, type Ed25519PublicJwk, type InstanceKeyCache } from '@svc/shared';
import { parseInstanceDomain } from '../registration/domain-name.js';

export const MANIFEST_PATH = '/.well-known/agent-inbox.json';

/** The keys of a manifest's receipt_keys: a JWK Set ({keys: [...]}), or a bare list. */
export function manifestKeys(manifest: unknown): readonly unknown[] {
  if (manifest === null || typeof manifest !== 'object') return [];
  const published = (manifest as { receipt_keys?: unknown }).receipt_keys;
  if (Array.isArray(published)) return published;
  if (published !== null && typeof published === 'object' && Array.isArray((published as { keys?: unknown }).keys)) return (published as { keys: unknown[] }).keys;
  return [];
}

export interface InstanceKeysOptions {
  /** The directory's settings that decide how a manifest is fetched. */
  settings: { allowLocalInboxes: boolean; manifestTimeoutMs: number; manifestMaxBytes: number };
  clock: { now(): number };
}

export class InstanceKeys {
  readonly #cache: InstanceKeyCache;
  readonly #failures = new Map<string, string>();
  readonly #settings: InstanceKeysOptions['settings'];

  constructor(options: InstanceKeysOptions) {
    this.#settings = options.settings;
    this.#cache = createInstanceKeyCache({
      now: () => options.clock.now(),
      fetchKeys: async (origin) => {
        try {
          const keys = manifestKeys(await this.#fetchManifest(origin));
          this.#failures.delete(origin);
          return keys;
        } catch (error) {
          this.#remember(origin, error instanceof PublicFetchError ? `${error.reason}: ${error.message}` : error instanceof Error ? error.message : String(error));
          throw error;
        }
      },
    });
  }

  /** The public key `kid` of the instance at `origin`, or null (after at most one fetch a minute). */
  lookup = async (query: { keyid: string; instance: string }): Promise<Ed25519PublicJwk | null> => (await this.#cache.lookup(query)) ?? null;

  /** Forgets what is cached for an instance (its manifest was read again, or changed). */
  invalidate(origin: string): void {
    this.#cache.invalidate(origin);
  }

  /** Why the instance's manifest could not be read last time, if it could not. */
  lastFailure(origin: string): string | null {
    return this.#failures.get(origin) ?? null;
  }

  #remember(origin: string, failure: string): void {
    this.#failures.delete(origin);
    this.#failures.set(origin, failure.slice(0, 200));
    // Bounded: the oldest failures are forgotten first.
    while (this.#failures.size > 1_000) this.#failures.delete(this.#failures.keys().next().value as string);
  }

  async #fetchManifest(origin: string): Promise<unknown> {
    const allowLocal = this.#settings.allowLocalInboxes;
    // Only an origin that could register is ever fetched (parseInstanceDomain throws for others).
    const address = parseInstanceDomain(new URL(origin).host, allowLocal);
    if (address.origin !== origin) throw new Error(`${origin} is not the origin of an inbox domain (${address.origin})`);
    const answer = await publicFetch(`${origin}${MANIFEST_PATH}`, {
      timeoutMs: this.#settings.manifestTimeoutMs,
      maxBytes: this.#settings.manifestMaxBytes,
      allowLoopback: allowLocal,
      allowHttp: allowLocal,
    });
    if (answer.status !== 200) throw new Error(`the manifest answered HTTP ${answer.status}`);
    let manifest: unknown;
    try {
      manifest = JSON.parse(answer.body);
    } catch {
      throw new Error('the manifest is not valid JSON');
    }
    const instance = (manifest as { instance?: unknown } | null)?.instance;
    if (instance !== origin) throw new Error(`the manifest names instance ${JSON.stringify(instance ?? null)}, not ${origin}`);
    return manifest;
  }
}
