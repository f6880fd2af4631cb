/**
 * Every route the inbox's HTTP server serves, as registered (operation table, documents, the owner
 * app, OAuth, mail): so a check that must hold on every route (no pass in a URL, Cache-Control as
 * the contract's §8 says) can be run over all of them, including routes added later.
 */
import type { FastifyInstance } from 'fastify';

export interface ServedRoute {
  method: string;
  /** The path as registered, parameters as `:name`. */
  url: string;
}

const served = new WeakMap<FastifyInstance, ServedRoute[]>();

/** Call first, before any route is added: routes are recorded as they are registered. */
export function recordServedRoutes(app: FastifyInstance): void {
  const routes: ServedRoute[] = [];
  served.set(app, routes);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) routes.push({ method, url: route.url ?? route.path ?? '' });
  });
}

export function servedRoutes(app: FastifyInstance): readonly ServedRoute[] {
  return served.get(app) ?? [];
}
