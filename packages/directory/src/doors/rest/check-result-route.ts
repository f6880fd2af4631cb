/**
 * GET /b/{domain}.json answers another spelling of a checkable domain (capitals, a trailing dot,
 * `www.` or another subdomain, Unicode) 301 to the canonical result, before the operation runs; the
 * operation answers the canonical name, and 404 for a site that cannot be checked. The result's
 * page (/b/{domain}) and its badge (/b/{domain}/badge.svg) are redirected the same way.
 */
import type { FastifyInstance } from 'fastify';

/** The domain (lazily, so `.json` is the suffix), the kind of answer, the query. */
const RESULT_PATH = /^\/b\/([^/?]+?)(\.json|\/badge\.svg)?(\?.*)?$/;

interface SpellingOptions {
  baseUrl: string;
  /** The canonical name of another spelling of a checkable domain; null when `raw` is canonical or not checkable. */
  otherSpelling: (raw: string) => string | null;
}

export function installCheckResultSpellings(app: FastifyInstance, options: SpellingOptions): void {
  // A callback hook: every request passes here, and a promise each cost more than the check.
  app.addHook('onRequest', (request, reply, done) => {
    const location = otherSpellingLocation(request.method, request.url, options);
    if (location === null) return done();
    // Answered here: the route does not run (done is not called).
    void reply.code(301).header('location', location).header('cache-control', 'public, max-age=3600').send();
  });
}

/** Where another spelling of a result's address is redirected; null for the canonical one and anything else. */
function otherSpellingLocation(method: string, url: string, options: SpellingOptions): string | null {
  if (method !== 'GET' && method !== 'HEAD') return null;
  const match = RESULT_PATH.exec(url);
  if (!match) return null;
  let raw: string;
  try {
    raw = decodeURIComponent(match[1] as string);
  } catch {
    return null;
  }
  const canonical = options.otherSpelling(raw);
  return canonical === null ? null : `${options.baseUrl}/b/${canonical}${match[2] ?? ''}${match[3] ?? ''}`;
}
