/**
 * GET /b/{domain}.json answers another spelling of a checkable domain (capitals, a trailing dot,
 * `www.` or another subdomain, Unicode) 301 to the canonical result, before the operation runs; the
 * operation answers the canonical name, and 404 for a site that cannot be checked.
 */
import type { FastifyInstance } from 'fastify';

const RESULT_PATH = /^\/b\/([^/?]+)\.json(\?.*)?$/;

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
      .header('location', `${options.baseUrl}/b/${canonical}.json${match[2] ?? ''}`)
      .header('cache-control', 'public, max-age=3600')
      .send();
  });
}
