/**
 * Cross-origin access (CORS) for the services' HTTP doors; the rules are in docs/http.md.
 *
 * Each path follows one rule: public paths answer every origin with `Access-Control-Allow-Origin: *`
 * and no credentials (the answer is the same for everyone, so a page anywhere may read it); listed
 * paths (the owner's) answer only origins a setting names, reflecting the origin with `Vary: Origin`;
 * the rest (the OAuth consent page, the inbound email hook) never answer a cross-origin page.
 * Preflights are answered here, before routing, with 204; an OPTIONS on a path no route serves stays
 * the 404 every unknown path gets. A small hook rather than @fastify/cors: that plugin registers a
 * catch-all OPTIONS route (so unknown paths would answer 204) and has one rule per registration.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Problem } from '../errors/problem.js';
import { sendProblem } from './rest-door.js';

/** Request headers a page may send: content, idempotency, the item token, MCP, passes and signed agents, revalidation. */
export const CORS_ALLOW_HEADERS = [
  'Content-Type',
  'Accept',
  'Authorization',
  'Idempotency-Key',
  'X-Access-Token',
  'MCP-Protocol-Version',
  'Mcp-Session-Id',
  'Last-Event-ID',
  'Svc-Pass',
  'Signature',
  'Signature-Input',
  'Signature-Agent',
  'Svc-Agent-Key',
  'Content-Digest',
  'If-None-Match',
] as const;

/** Answer headers a page may read beyond the CORS-safelisted ones. */
export const CORS_EXPOSE_HEADERS = [
  'ETag',
  'Location',
  'Retry-After',
  'Idempotent-Replayed',
  'RateLimit',
  'RateLimit-Policy',
  'WWW-Authenticate',
  'Svc-Signature',
  'Mcp-Session-Id',
  'MCP-Protocol-Version',
  'Link',
] as const;

/** How long a browser may reuse a preflight answer: two hours, Chromium's ceiling (Firefox allows a day). */
export const CORS_MAX_AGE_SEC = 7200;

export type CorsRule =
  /** Any origin, no credentials: `Access-Control-Allow-Origin: *`. */
  | { kind: 'public' }
  /** Only origins `allows` accepts; others are refused at the preflight and get no CORS headers. */
  | { kind: 'listed'; allows: (origin: string) => boolean; setting: string }
  /** Never cross-origin: no CORS headers, preflights fall through to 405. */
  | { kind: 'none' };

export const PUBLIC_CORS: CorsRule = { kind: 'public' };
export const NO_CORS: CorsRule = { kind: 'none' };

export interface CorsOptions {
  /** The rule a path (without its query) follows. */
  ruleFor: (path: string) => CorsRule;
  /** Methods routes serve at a path; none means the path is unknown (OPTIONS stays 404). */
  methodsAt: (path: string) => readonly string[];
  problemsBase: string;
}

const ALLOW_HEADERS = CORS_ALLOW_HEADERS.join(', ');
const EXPOSE_HEADERS = CORS_EXPOSE_HEADERS.join(', ');

/** Origins named in a comma-separated setting, normalised to `scheme://host[:port]`; entries that are not origins are dropped. */
export function originsFromSetting(value: string | undefined): string[] {
  const origins: string[] = [];
  for (const entry of (value ?? '').split(',')) {
    const trimmed = entry.trim();
    if (trimmed === '') continue;
    try {
      const url = new URL(trimmed);
      if (url.protocol === 'http:' || url.protocol === 'https:') origins.push(url.origin);
    } catch {
      // not an origin
    }
  }
  return origins;
}

/** `CORS_OWNER_ORIGINS`: web origins whose pages may call the owner's routes (owner REST and the owner MCP). */
export function ownerCorsOrigins(fromEnvironment = process.env.CORS_OWNER_ORIGINS): string[] {
  return originsFromSetting(fromEnvironment);
}

/** Exact origin match (scheme, host and port), as browsers compare origins. */
export function originListed(origin: string, listed: readonly string[]): boolean {
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return false;
  }
  return listed.includes(parsed.origin);
}

function headerOf(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function appendVary(reply: FastifyReply, value: string): void {
  const existing = reply.getHeader('vary');
  const list = typeof existing === 'string' && existing !== '' ? existing.split(',').map((v) => v.trim()) : [];
  if (!list.some((v) => v.toLowerCase() === value.toLowerCase() || v === '*')) list.push(value);
  reply.header('vary', list.join(', '));
}

export function installCors(app: FastifyInstance, options: CorsOptions): void {
  app.addHook('onRequest', (request, reply, done) => {
    const path = request.url.split('?')[0] ?? '/';
    const rule = options.ruleFor(path);
    if (rule.kind === 'none') return done();
    const origin = headerOf(request, 'origin');
    const allowed = rule.kind === 'public' || (origin !== undefined && rule.allows(origin));
    if (rule.kind === 'listed') appendVary(reply, 'Origin');

    const preflight = request.method === 'OPTIONS' && origin !== undefined && request.headers['access-control-request-method'] !== undefined;
    if (preflight) {
      const methods = options.methodsAt(path);
      if (methods.length === 0) return done();
      if (!allowed) {
        const refusal = new Problem(
          'not_allowed',
          `Pages of the web origin ${origin} may not call ${path}${rule.kind === 'listed' ? `; set ${rule.setting} to allow it` : ''}.`,
        );
        void sendProblem(reply, refusal, options.problemsBase);
        return;
      }
      const allowMethods = [...new Set(methods.flatMap((m) => (m === 'GET' ? ['GET', 'HEAD'] : [m])))].join(', ');
      reply
        .code(204)
        .header('access-control-allow-origin', rule.kind === 'public' ? '*' : origin)
        .header('access-control-allow-methods', allowMethods)
        .header('access-control-allow-headers', ALLOW_HEADERS)
        .header('access-control-max-age', String(CORS_MAX_AGE_SEC))
        .header('cache-control', 'no-store');
      void reply.send();
      return;
    }

    if (allowed) {
      // Sent whether or not the request names an Origin: a shared cache may hand this answer to a page later.
      reply.header('access-control-allow-origin', rule.kind === 'public' ? '*' : (origin as string));
      reply.header('access-control-expose-headers', EXPOSE_HEADERS);
    }
    done();
  });
}
