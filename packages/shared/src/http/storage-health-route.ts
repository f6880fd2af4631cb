/**
 * /healthz says whether the service can write (storage-health.ts). While the disk refuses writes it
 * answers 503 `{ ok: false, writable: false, storage: { code, since }, version }` with Retry-After,
 * probing the disk first (at most once a second), so it recovers by itself once space is freed;
 * otherwise the shared route answers as always. Install before installServiceRoutes: it wraps the
 * route as it is added.
 */
import type { FastifyInstance, RouteHandlerMethod } from 'fastify';
import type { StorageHealth } from '../storage/storage-health.js';

export function installStorageHealth(app: FastifyInstance, health: StorageHealth, version: string): void {
  app.addHook('onRoute', (route) => {
    if (route.url !== '/healthz' || route.method !== 'GET') return;
    const answer = route.handler as RouteHandlerMethod;
    route.handler = async function (this: FastifyInstance, request, reply) {
      const state = await health.check();
      if (state.writable || !state.failure) return answer.call(this, request, reply);
      reply.code(503).header('cache-control', 'no-store').header('retry-after', String(state.failure.retryAfterSeconds));
      return {
        ok: false,
        writable: false,
        storage: { code: state.failure.code, since: new Date(state.failure.sinceMs).toISOString() },
        version,
      };
    };
  });
}
