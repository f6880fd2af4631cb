/**
 * GET /about/found/{domain}: the page a found listing's `found.about_url` names (why it is listed,
 * what is shown, how to correct it, how to opt out), as HTML in the listing's language, or as JSON
 * at /about/found/{domain}.json. `?lang=en|pt|es|fr|de` asks for another language. Like the found
 * listing itself, never to be indexed (X-Robots-Tag: noindex); a domain with no found listing is 404.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Problem, answerWithEtag, etagOfText, matchingTag } from '@svc/shared';
import {
  ABOUT_STYLE,
  aboutLanguageOf,
  askedAboutLanguage,
  foundAboutDocument,
  hasAboutPage,
  renderFoundAboutHtml,
} from '../../domain/listings/found-about.js';
import type { ListingRecord } from '../../domain/listings/listing.js';

export const ABOUT_FOUND_PATH = '/about/found/{domain}';

export interface FoundAboutOptions {
  baseUrl: string;
  listingByDomain: (domain: string) => Promise<ListingRecord | null>;
}

export function installFoundAboutPages(app: FastifyInstance, options: FoundAboutOptions): void {
  // The page loads nothing and runs nothing; its one style is allowed by its hash (cacheable, unlike a nonce).
  const styleHash = createHash('sha256').update(ABOUT_STYLE, 'utf8').digest('base64');
  const csp = `default-src 'none'; style-src 'sha256-${styleHash}'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`;

  app.get<{ Params: { domain: string }; Querystring: { lang?: unknown } }>('/about/found/:domain', async (request, reply) => {
    let domain = request.params.domain.trim().toLowerCase();
    const asJson = domain.endsWith('.json');
    if (asJson) domain = domain.slice(0, -'.json'.length);
    domain = domain.replace(/\.$/, '');
    const listing = domain.length > 0 && domain.length <= 253 ? await options.listingByDomain(domain) : null;
    if (!hasAboutPage(listing)) {
      const named = /^[a-z0-9.:-]{1,253}$/.test(domain) ? ` at ${domain}` : ' at this domain';
      throw new Problem('not_found', `No business found by this directory is listed${named}, so it has no page here.`);
    }
    const language = askedAboutLanguage(request.query.lang) ?? aboutLanguageOf(listing.languages);
    const doc = foundAboutDocument(listing, options.baseUrl, language);
    reply
      .header('x-robots-tag', 'noindex')
      .header('cache-control', 'public, max-age=300')
      .header('content-language', language);
    if (asJson) return answerWithEtag(request, reply, JSON.stringify(doc));
    const html = renderFoundAboutHtml(doc);
    const etag = etagOfText(html);
    reply.header('content-security-policy', csp);
    const held = matchingTag(request, etag);
    if (held !== undefined) return reply.code(304).header('etag', held).send();
    return reply.header('etag', etag).type('text/html; charset=utf-8').send(html);
  });
}
