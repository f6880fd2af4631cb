/**
 * Headers of the HTML pages both services serve (docs/web.md). A page loads only this server's own
 * scripts, styles and images (no CDN, no inline script or style: the policy has no 'unsafe-inline'
 * and no nonce), posts forms only to itself, is framed by nobody (clickjacking) and sends no referrer
 * to the sites it links to. The JSON APIs keep their stricter default-src 'none'.
 */
import type { FastifyReply } from 'fastify';

export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "manifest-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export interface PageHeaderOptions {
  /** `private, no-store` for pages of a signed-in owner; a max-age for public pages. */
  cacheControl: string;
  /** X-Robots-Tag, when the page must not be indexed. */
  robots?: string | undefined;
  language?: string | undefined;
}

export function setPageHeaders(reply: FastifyReply, options: PageHeaderOptions): FastifyReply {
  reply
    .header('content-security-policy', PAGE_CSP)
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'same-origin')
    .header('x-content-type-options', 'nosniff')
    .header('cache-control', options.cacheControl)
    .type('text/html; charset=utf-8');
  if (options.robots) reply.header('x-robots-tag', options.robots);
  if (options.language) reply.header('content-language', options.language);
  return reply;
}
