/**
 * Signed instance requests to the persons API (svc-instance/1), checked with the shared verifier
 * against the keys in the calling instance's manifest (receipt_keys). A small module of the persons API
 * of its own: issue 13 builds the same check for /v1/receipts and pings, and the two are meant to be
 * one (docs/identity.md says so). Only an instance this network verified is heard.
 */
import type { FastifyRequest } from 'fastify';
import { MemoryReplayStore, Problem, createInstanceKeyCache, publicFetch, rawBodyOf, signatureProblem, verifyInstanceRequest } from '@svc/shared';
import type { DirectoryContext } from '../../domain/context.js';

export interface InstanceAuth {
  /** The calling instance's origin, or a problem (401/400/503) when the request is not a signed instance request of a verified instance. */
  verify(request: FastifyRequest): Promise<string>;
}

export function instanceAuth(ctx: DirectoryContext): InstanceAuth {
  const replayStore = new MemoryReplayStore({ maxEntries: 100_000 });
  const keys = createInstanceKeyCache({
    now: () => ctx.clock.now(),
    fetchKeys: async (instance) => {
      const answer = await publicFetch(`${instance}/.well-known/agent-inbox.json`, {
        timeoutMs: ctx.settings.manifestTimeoutMs,
        maxBytes: ctx.settings.manifestMaxBytes,
        allowLoopback: ctx.settings.allowLocalInboxes,
        allowHttp: ctx.settings.allowLocalInboxes,
      });
      if (answer.status !== 200) throw new Error(`manifest answered ${answer.status}`);
      const manifest = JSON.parse(answer.body) as { receipt_keys?: { keys?: unknown[] } };
      return manifest.receipt_keys?.keys ?? [];
    },
  });
  return {
    async verify(request) {
      const result = await verifyInstanceRequest(
        { method: request.method, url: `${ctx.settings.baseUrl}${request.url}`, headers: request.headers, body: rawBodyOf(request) },
        { lookupKey: keys.lookup, replayStore, now: () => ctx.clock.now(), allowHttpInstance: ctx.settings.allowLocalInboxes },
      );
      if (!result.ok) throw signatureProblem(result);
      const domain = new URL(result.instance).host;
      const instance = await ctx.store.instances.get(domain);
      if (!instance || instance.verifiedAt === null || instance.origin !== result.instance) {
        throw new Problem('wrong_state', `${result.instance} is not an instance this network verified; register it first.`);
      }
      return result.instance;
    },
  };
}
