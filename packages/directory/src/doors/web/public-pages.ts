/**
 * The directory's pages (docs/web.md): the search as the home page, one business, categories, the
 * ranking rules and the statistics. Each page is built from the answer of an operation of the table
 * (the same answer its JSON alternate serves), rendered on the server, tagged (ETag, 304) and cached
 * publicly for as long as its JSON is. Pages load one optional script (near-me.ts) and no CDN.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { BASE_STYLES, Problem, badRequestFromZod, builtAsset, cookieValue, etagOfText, html, matchingTag, pickLanguage, serveAssets, setPageHeaders, staticAsset, type AnyOperation } from '@svc/shared';
import type { DirectoryOperationContext } from '../../operations/context.js';
import { DIRECTORY_LANGUAGES, MESSAGES, type DirectoryLanguage, type DirectoryMessages } from './messages.js';
import { renderFrame, type PageAssets, type RenderedPage } from './page-frame.js';
import { renderBusinessPage } from './views/business-page.js';
import { renderCategories, renderCategoryGroup, renderRanking, renderStats } from './views/document-pages.js';
import type { ListingView } from './views/listing-card.js';
import { renderSearchPage, searchFormOf, searchInputOf, searchJsonPath, type SearchOutcome } from './views/search-page.js';

const DIRECTORY_STYLES = `${BASE_STYLES}
ol.results{list-style:none;padding:0;margin:0}
.result h3{margin:0 0 .25rem;font-size:1.1rem}
.result p{margin:.25rem 0}
.why{background:#f3f3ef;border-radius:6px;padding:.35rem .6rem}
.search-form .row>div{flex:1 1 10rem}
ul.columns{columns:16rem;padding-left:1.2rem}
dl.doc{margin:0 0 .5rem}dl.doc dt{font-weight:600;margin-top:.5rem}dl.doc dd{margin:0 0 0 1rem;overflow-wrap:anywhere}
.lead{font-size:1.1rem}
@media (min-width:60rem){.business-grid{display:grid;grid-template-columns:1fr 1fr;gap:1rem}}
`;

const NEAR_ME_SCRIPT = new URL('../../../dist/doors/web/client/near-me.js', import.meta.url);

export interface PublicPagesOptions {
  operations: readonly AnyOperation<DirectoryOperationContext>[];
  context: DirectoryOperationContext;
  baseUrl: string;
}

/** What send() needs of a search page already kept with its answer: its headers, not its body. */
function keptSearchPage(json: string, indexable: boolean): RenderedPage {
  return { title: '', description: '', canonical: '/', json, indexable, section: 'search', body: html`` };
}

export const PAGE_ROUTES = ['/', '/businesses/{domain}', '/categories', '/categories/{slug}', '/ranking', '/stats'] as const;

export function installPublicPages(app: FastifyInstance, options: PublicPagesOptions): void {
  const byName = new Map(options.operations.map((op) => [op.name, op]));
  const assets: PageAssets = {
    styles: staticAsset('/assets', 'directory.css', DIRECTORY_STYLES),
    script: builtAsset('/assets', 'near-me.js', NEAR_ME_SCRIPT),
  };
  serveAssets(app, [assets.styles, assets.script]);

  /** An operation's answer for this input, validated by its own schema, as the REST door gives it. */
  const run = async <T>(name: string, input: Record<string, unknown>): Promise<{ body: T; headers: Record<string, string> }> => {
    const op = byName.get(name);
    if (!op) throw new Error(`No operation ${name}`);
    const parsed = op.input.safeParse(input);
    if (!parsed.success) throw badRequestFromZod(parsed.error);
    const extras: { headers?: Record<string, string> } = {};
    const body = (await op.run(options.context, parsed.data, extras)) as T;
    return { body, headers: extras.headers ?? {} };
  };

  const languageOf = (request: FastifyRequest): DirectoryLanguage => {
    const asked = (request.query as Record<string, unknown>).lang;
    return pickLanguage(DIRECTORY_LANGUAGES, typeof asked === 'string' ? asked : undefined, cookieValue(request.headers.cookie, 'svc_lang'));
  };

  /**
   * Pages rendered from an answer the search keeps (its answer cache hands the same object back) are
   * kept with it, per language and address, like the JSON's bytes: a cached search costs its page nothing.
   */
  const rendered = new WeakMap<object, Map<string, { bytes: Buffer; etag: string }>>();
  const renderedOf = (source: object | null, key: string, render: () => string): { bytes: Buffer; etag: string } => {
    const kept = source ? rendered.get(source)?.get(key) : undefined;
    if (kept) return kept;
    const bytes = Buffer.from(render(), 'utf8');
    const made = { bytes, etag: etagOfText(bytes) };
    if (source) {
      let pages = rendered.get(source);
      if (!pages) rendered.set(source, (pages = new Map()));
      if (pages.size < 16) pages.set(key, made);
    }
    return made;
  };

  const send = (request: FastifyRequest, reply: FastifyReply, lang: DirectoryLanguage, page: RenderedPage, maxAgeSec: number, source: object | null = null): FastifyReply => {
    const { bytes, etag } = renderedOf(source, `${lang} ${request.url}`, () => renderFrame({ lang, t: MESSAGES[lang], baseUrl: options.baseUrl, here: request.url, assets }, page));
    setPageHeaders(reply, {
      cacheControl: (page.status ?? 200) === 200 ? `public, max-age=${maxAgeSec}` : 'no-store',
      robots: page.indexable ? undefined : 'noindex',
      language: lang,
    });
    reply.header('vary', 'Accept-Encoding');
    if (page.json) reply.header('link', `<${options.baseUrl}${page.json}>; rel="alternate"; type="application/json"`);
    const held = (page.status ?? 200) === 200 ? matchingTag(request, etag) : undefined;
    if (held !== undefined) return reply.code(304).header('etag', held).send();
    return reply.code(page.status ?? 200).header('etag', etag).send(bytes);
  };

  const errorPage = (t: DirectoryMessages, problem: Problem, canonical: string): RenderedPage => ({
    status: problem.status,
    title: problem.status === 404 ? t.notFound : t.search.badRequest,
    description: problem.message,
    canonical,
    json: null,
    indexable: false,
    section: 'none',
    body: html`<h1>${problem.status === 404 ? t.notFound : t.search.badRequest}</h1><p class="notice bad" role="alert">${problem.message}</p><p><a href="/">${t.nav.search}</a></p>`,
  });

  // The category groups change only with the software (CATEGORIES_VERSION): read once per language.
  const suggestions = new Map<DirectoryLanguage, { slug: string; label: string }[]>();
  const categorySuggestions = async (lang: DirectoryLanguage) => {
    const known = suggestions.get(lang);
    if (known) return known;
    const { body } = await run<{ categories: { slug: string; labels: Record<string, string> }[] }>('list_categories', {});
    const list = body.categories.map((c) => ({ slug: c.slug, label: c.labels[lang] ?? c.labels.en ?? c.slug }));
    suggestions.set(lang, list);
    return list;
  };

  app.get('/', async (request, reply) => {
    const lang = languageOf(request);
    const t = MESSAGES[lang];
    const form = searchFormOf(request.query as Record<string, unknown>);
    const langQuery = lang === 'en' ? '' : `?lang=${lang}`;
    const suggestions = await categorySuggestions(lang);
    try {
      const { body } = await run<SearchOutcome>('search_businesses', searchInputOf(form));
      const known = rendered.get(body)?.get(`${lang} ${request.url}`);
      const page = known ? keptSearchPage(searchJsonPath(form), Object.keys(form).length === 0) : renderSearchPage(t, form, body, null, suggestions, langQuery, lang);
      return send(request, reply, lang, page, form.open_now ? 60 : 180, body);
    } catch (error) {
      if (!(error instanceof Problem)) throw error;
      const candidates = Array.isArray(error.extensions.candidates) ? (error.extensions.candidates as string[]) : [];
      const problem = html`<div class="notice bad" role="alert"><p><strong>${t.search.badRequest}:</strong> ${error.code === 'cursor_expired' ? t.search.expired : error.message}</p>${
        candidates.length > 0 ? html`<p>${t.search.didYouMean}: ${candidates.map((c) => html`<a href="/?category=${encodeURIComponent(c)}">${c}</a> `)}</p>` : null
      }${(error.fields ?? []).length > 0 ? html`<ul>${(error.fields ?? []).map((f) => html`<li><code>${f.path}</code>: ${f.message}</li>`)}</ul>` : null}</div>`;
      const page = renderSearchPage(t, form, null, problem, suggestions, langQuery, lang);
      if (error.status >= 500) page.status = error.status;
      if (error.status === 410) page.status = 410;
      for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
      return send(request, reply, lang, page, 0);
    }
  });

  app.get<{ Params: { domain: string } }>('/businesses/:domain', async (request, reply) => {
    const lang = languageOf(request);
    const t = MESSAGES[lang];
    try {
      const { body } = await run<ListingView>('get_business', { domain: request.params.domain });
      return send(request, reply, lang, renderBusinessPage(t, body, lang), 180);
    } catch (error) {
      if (!(error instanceof Problem)) throw error;
      return send(request, reply, lang, errorPage(t, error, `/businesses/${encodeURIComponent(request.params.domain)}`), 0);
    }
  });

  app.get('/categories', async (request, reply) => {
    const lang = languageOf(request);
    const { body } = await run<{ categories: { slug: string; labels: Record<string, string>; kind: string }[] }>('list_categories', {});
    return send(request, reply, lang, renderCategories(MESSAGES[lang], lang, body.categories), 3600);
  });

  app.get<{ Params: { slug: string } }>('/categories/:slug', async (request, reply) => {
    const lang = languageOf(request);
    const t = MESSAGES[lang];
    try {
      const { body } = await run<Parameters<typeof renderCategoryGroup>[3]>('list_categories', { group: request.params.slug });
      const page = renderCategoryGroup(t, lang, request.params.slug, body);
      if (page) return send(request, reply, lang, page, 3600);
      throw new Problem('not_found', `No category group is called ${request.params.slug}.`);
    } catch (error) {
      if (!(error instanceof Problem)) throw error;
      const problem = error.status === 400 ? new Problem('not_found', `No category group is called ${request.params.slug}.`) : error;
      return send(request, reply, lang, errorPage(t, problem, '/categories'), 0);
    }
  });

  app.get('/ranking', async (request, reply) => {
    const lang = languageOf(request);
    const t = MESSAGES[lang];
    const asked = (request.query as Record<string, unknown>).version;
    const version = typeof asked === 'string' && /^\d{1,6}$/.test(asked) ? Number(asked) : null;
    try {
      const { body } = await run<Record<string, unknown>>('get_ranking_rules', version === null ? {} : { version });
      return send(request, reply, lang, renderRanking(t, body, version), 3600, body);
    } catch (error) {
      if (!(error instanceof Problem)) throw error;
      return send(request, reply, lang, errorPage(t, error, '/ranking'), 0);
    }
  });

  app.get('/stats', async (request, reply) => {
    const lang = languageOf(request);
    const { body } = await run<Record<string, unknown>>('get_stats', {});
    return send(request, reply, lang, renderStats(MESSAGES[lang], body), 60);
  });
}
