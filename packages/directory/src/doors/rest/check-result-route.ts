/**
 * GET /b/{domain}.json answers another spelling of a checkable domain (capitals, a trailing dot,
 * `www.` or another subdomain, Unicode) 301 to the canonical result, before the operation runs; the
 * operation answers the canonical name, and 404 for a site that cannot be checked. The result's
 * page (/b/{domain}) and its badge (/b/{domain}/badge.svg) are redirected the same way.
 */
import type { FastifyInstance } from 'fastify';

/** The domain (lazily, so `.json` is the suffix), the kind of answer, the query. */
const RESULT_PATH = /^\/b\/([^/?]+?)(\.json|\/badge\.svg)?(\?.*)?$/;

export function installCheckResultSpellings(app: FastifyInstance, options: { baseUrl: string; otherSpelling: (raw: string) => string | null }): void {
  app.addHook('onRequest', async (request, reply) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return;
    const match = RESULT_PATH.exec(request.url);
    if (!match) return;
    let raw: string;
    try {
      raw = decodeURIComponent(match[1] as string);
    } catch {
      return;
    }
    const canonical = options.otherSpelling(raw);
    if (canonical === null) return;
    return reply
      .code(301)
      .header('location', `${options.baseUrl}/b/${canonical}${match[2] ?? ''}${match[3] ?? ''}`)
      .header('cache-control', 'public, max-age=3600')
      .send();
  });
}
