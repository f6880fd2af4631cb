/**
 * The directory's pages (docs/web.md): the search as the home page, one business, a site's check
 * result with its badge, the leaderboard, categories, the ranking and score rules and the statistics.
 * Each page is built from the answer of an operation of the table (the same answer its JSON alternate
 * serves), rendered on the server, tagged (ETag, 304) and cached publicly for as long as its JSON is.
 * A page loads at most one optional script of its own (near-me.ts, check-progress.ts) and no CDN.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { BASE_STYLES, Problem, answerReplayOf, answerWithEtag, appendVary, badRequestFromZod, builtAsset, cookieValue, etagOfText, html, matchingTag, pickLanguage, queryString, serveAssets, setPageHeaders, staticAsset, type AnyOperation } from '@svc/shared';
import { scoreRulesHoldUntil } from '../../domain/checks/score-rules.js';
import { rulesDocumentHoldsUntil } from '../../domain/ranking/rules-document.js';
import type { DirectoryOperationContext } from '../../operations/context.js';
import { installCheckForm } from './check-form-route.js';
import { FAVICON_ROUTES, installFavicon } from './favicon.js';
import { prefersHtml } from './negotiate.js';
import { DIRECTORY_LANGUAGES, MESSAGES, type DirectoryLanguage, type DirectoryMessages } from './messages.js';
import { renderFrame, type PageAssets, type RenderedPage } from './page-frame.js';
import { badgeSvg } from './views/badge.js';
import { renderBusinessPage, type CheckLink } from './views/business-page.js';
import { renderCheckRefusal, renderCheckSitePage } from './views/check-form.js';
import { ACTIVE_STATES, renderCheckResultPage, type CheckResultView } from './views/check-result-page.js';
import { renderCategories, renderCategoryGroup, renderRanking } from './views/document-pages.js';
import { boardFormOf, boardInputOf, boardJsonPath, renderLeaderboardPage, type BoardView } from './views/leaderboard-page.js';
import type { ListingView } from './views/listing-card.js';
import { renderPlaceCategory, type PlaceCategoryDocument } from './views/place-category-page.js';
import { renderScoreRules } from './views/score-rules-page.js';
import { renderStatsPage, type StatsDocument } from './views/stats-page.js';
import { asksAnything, renderSearchPage, searchFormOf, searchInputOf, searchJsonPath, type SearchOutcome } from './views/search-page.js';
import { countryName, kilometres } from './views/words.js';
import { placeSuggestions, townNear, understandWhere } from './where.js';
import { GAZETTEER_CREDIT, pointOf } from '../../domain/places/gazetteer.js';

const DIRECTORY_STYLES = `${BASE_STYLES}
ol.results{list-style:none;padding:0;margin:0}
.result h3{margin:0 0 .25rem;font-size:1.1rem}
.result p{margin:.25rem 0}
.why{background:#f3f3ef;border-radius:6px;padding:.35rem .6rem}
.search-form .row>div{flex:1 1 10rem}
.search-form .main-row{align-items:flex-start}.search-form .main-row>div{flex:1 1 14rem}.search-form .main-row>.actions{flex:0 0 auto;margin:1.95rem 0 0}
.search-form .hint{margin:.2rem 0 0}
.search-form details.filters{margin-top:.5rem;border-top:1px solid var(--line);padding-top:.25rem}
.search-form details.filters>summary{cursor:pointer;padding:.5rem 0;min-height:2.75rem;display:list-item}
button.link{background:none;border:0;padding:0;min-height:0;color:var(--accent);text-decoration:underline;cursor:pointer}
.matched{margin:.25rem 0}
@media (max-width:40rem){.search-form{padding:.75rem}.search-form .main-row>div{flex-basis:100%}.search-form .main-row>.actions{flex:1 1 100%;margin:0}.search-form .main-row>.actions button{width:100%}}
ul.columns{columns:16rem;padding-left:1.2rem}
dl.doc{margin:0 0 .5rem}dl.doc dt{font-weight:600;margin-top:.5rem}dl.doc dd{margin:0 0 0 1rem;overflow-wrap:anywhere}
.lead{font-size:1.1rem}
@media (min-width:60rem){.business-grid{display:grid;grid-template-columns:1fr 1fr;gap:1rem}}
.scorecard{display:flex;flex-wrap:wrap;gap:1rem 1.5rem;align-items:center}
.scorecard p{margin:0}
.grade,.grade-chip{display:inline-block;color:#fff;background:#55554f;font-weight:700;text-align:center;border-radius:8px}
.grade{font-size:2.5rem;line-height:1;padding:.5rem .9rem;min-width:4rem}
.grade-chip{min-width:1.8rem;padding:.05rem .4rem}
.grade-A{background:#1d5c3a}.grade-B{background:#2d6a1f}.grade-C{background:#7a5c00}.grade-D{background:#8f4500}.grade-E{background:#9b1c1c}
.score-number{font-size:1.75rem;font-weight:700}
td.num{text-align:right;font-variant-numeric:tabular-nums}
tr.muted th,tr.muted td{color:var(--muted)}
ol.fixes li{margin:.5rem 0}
ol.plain{padding-left:1.2rem}ol.plain li{margin:.4rem 0}
textarea.snippet{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.875rem;max-width:none;min-height:4.5rem}
table.narrow{width:auto}
.board-form .row{align-items:flex-start}.board-form .row>div{flex:1 1 12rem}
.card>h2:first-child,.card>form>h2:first-child{margin-top:0}
.table-wrap{position:relative}
ol.crumbs{display:flex;flex-wrap:wrap;gap:.25rem;list-style:none;padding:0;margin:0 0 .5rem}ol.crumbs li+li::before{content:"›";margin-right:.25rem;color:var(--muted)}
`;

const NEAR_ME_SCRIPT = new URL('../../../dist/doors/web/client/near-me.js', import.meta.url);
const CHECK_PROGRESS_SCRIPT = new URL('../../../dist/doors/web/client/check-progress.js', import.meta.url);

export interface PublicPagesOptions {
  operations: readonly AnyOperation<DirectoryOperationContext>[];
  context: DirectoryOperationContext;
  baseUrl: string;
}

/** What send() needs of a page already kept with its answer: its headers, not its body. */
function keptPage(json: string, indexable: boolean): RenderedPage {
  return { title: '', description: '', canonical: '/', json, indexable, section: 'none', body: html`` };
}

export const PAGE_ROUTES = ['/', '/businesses/{domain}', '/check', '/b/{domain}', '/b/{domain}/badge.svg', '/leaderboard', '/categories', '/categories/{slug}', '/ranking', '/score-rules', '/stats', '/places', ...FAVICON_ROUTES] as const;

/** The place category route the REST door serves; a browser asking it gets a page (negotiate.ts). */
const PLACE_CATEGORY_ROUTE = '/c/:id';



/**
 * The country of the visitor's language (Accept-Language, the first it prefers): its region when it
 * names one (pt-PT → PT, en-GB → GB), else the language's likely one (pt → BR, de → DE); null for
 * none or `*`.
 */
export function countryOfLanguage(header: string | string[] | undefined): string | null {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return null;
  const ranked = value
    .split(',')
    .map((part, i) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return { tag: tag.trim(), q: q ? Number(q.slice(2)) : 1, i };
    })
    .filter((entry) => entry.tag !== '' && entry.tag !== '*' && entry.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i);
  for (const { tag } of ranked) {
    try {
      const region = new Intl.Locale(tag).maximize().region;
      if (region && /^[A-Z]{2}$/.test(region)) return region;
    } catch {
      // Not a language tag: the next one.
    }
  }
  return null;
}

export function installPublicPages(app: FastifyInstance, options: PublicPagesOptions): void {
  const byName = new Map(options.operations.map((op) => [op.name, op]));
  const assets: PageAssets = {
    styles: staticAsset('/assets', 'directory.css', DIRECTORY_STYLES),
    scripts: {
      'near-me': builtAsset('/assets', 'near-me.js', NEAR_ME_SCRIPT),
      'check-progress': builtAsset('/assets', 'check-progress.js', CHECK_PROGRESS_SCRIPT),
    },
  };
  serveAssets(app, [assets.styles, ...Object.values(assets.scripts)]);

  /** An operation's answer for this input, validated by its own schema, as the REST door gives it (the caller's address for budgets). */
  const run = async <T>(name: string, input: Record<string, unknown>, caller?: string): Promise<{ body: T; status: number | undefined; headers: Record<string, string> }> => {
    const op = byName.get(name);
    if (!op) throw new Error(`No operation ${name}`);
    const parsed = op.input.safeParse(input);
    if (!parsed.success) throw badRequestFromZod(parsed.error);
    const extras: { status?: number; headers?: Record<string, string> } = {};
    const body = (await op.run(caller === undefined ? options.context : { ...options.context, callerAddress: caller }, parsed.data, extras)) as T;
    return { body, status: extras.status, headers: extras.headers ?? {} };
  };

  const languageOf = (request: FastifyRequest, form?: URLSearchParams): DirectoryLanguage => {
    const asked = form?.get('lang') ?? (request.query as Record<string, unknown>).lang;
    return pickLanguage(DIRECTORY_LANGUAGES, typeof asked === 'string' ? asked : undefined, cookieValue(request.headers.cookie, 'svc_lang'));
  };
  const langQuery = (lang: DirectoryLanguage, first = true) => (lang === 'en' ? '' : `${first ? '?' : '&'}lang=${lang}`);

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

  const context = options.context;
  /**
   * A page kept with what it was drawn from may be written again in front of the framework while
   * `holds` says that would be handed back unchanged (shared answer-replay.ts: plain GETs only, no
   * cookie, so the language is the URL's).
   */
  const replay = answerReplayOf(app);
  const offerReplay = (request: FastifyRequest, holds: () => boolean): void => replay?.offer(request, holds);

  /**
   * A page drawn from published rules reads the clock only against the versions' dates: replayed
   * from when it was drawn (`drawnAt`, taken before its document) until the next of them.
   */
  const offerUntil = (request: FastifyRequest, drawnAt: number, until: number): void =>
    offerReplay(request, () => {
      const nowMs = context.domain.clock.now();
      return nowMs >= drawnAt && nowMs < until;
    });

  const keptFor = (source: object, request: FastifyRequest, lang: DirectoryLanguage) => rendered.get(source)?.get(`${lang} ${request.url}`);

  const send = (request: FastifyRequest, reply: FastifyReply, lang: DirectoryLanguage, page: RenderedPage, maxAgeSec: number, source: object | null = null): FastifyReply => {
    const { bytes, etag } = renderedOf(source, `${lang} ${request.url}`, () => renderFrame({ lang, t: MESSAGES[lang], baseUrl: options.baseUrl, here: request.url, assets }, page));
    setPageHeaders(reply, {
      cacheControl: (page.status ?? 200) === 200 ? `public, max-age=${maxAgeSec}` : 'no-store',
      robots: page.indexable ? undefined : 'noindex',
      language: lang,
    });
    appendVary(reply, 'Accept-Encoding');
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

  /**
   * The home page and every search. "Where" is understood by the gazetteer (where.ts: a place's name
   * becomes its point, a country's name the country filter) and the search runs as the API takes it.
   * The bare home page (no field asked, not even empty) starts near the visitor: in the country of
   * the browser's language (Vary: Accept-Language), or wherever its script finds the device allowed
   * to say; "everywhere" is `?near=`.
   */
  app.get('/', async (request, reply) => {
    const lang = languageOf(request);
    const t = MESSAGES[lang];
    const query = request.query as Record<string, unknown>;
    const form = searchFormOf(query);
    const suggestions = await categorySuggestions(lang);
    const bare = !asksAnything(query);
    if (bare) appendVary(reply, 'Accept-Language');
    const startCountry = bare ? countryOfLanguage(request.headers['accept-language']) : null;
    let where: { near?: string; country?: string } | null = null;
    let heading: string | null = null;
    let notFound: { text: string; candidates: string[] } | null = null;
    if (startCountry) {
      where = { country: startCountry };
      heading = t.search.inHeading(countryName(lang, startCountry));
    } else if (form.near) {
      const understood = understandWhere(form.near, lang);
      if ('notFound' in understood) notFound = { text: form.near, candidates: understood.candidates };
      else {
        where = understood.input;
        const radius = kilometres(lang, form.radius_km && /^\d+(\.\d+)?$/.test(form.radius_km) ? Number(form.radius_km) : 10).replace(/[.,]0$/, '');
        if (understood.input.country) heading = t.search.inHeading(understood.label ?? understood.input.country);
        else if (understood.label) heading = t.search.nearHeading(understood.label, radius);
        else {
          const point = pointOf(form.near);
          const town = point ? townNear(point.lat, point.lng, lang) : null;
          heading = t.search.nearPoint(town ? `${form.near} (${t.search.nearTown(town)})` : form.near);
        }
      }
    }
    const input = searchInputOf(form, where);
    const ctx = { t, lang, langQuery: langQuery(lang), form, input, categories: suggestions, heading, startedIn: startCountry ? countryName(lang, startCountry) : null };
    if (notFound) {
      const others = Object.fromEntries(Object.entries(form).filter(([name]) => name !== 'near' && name !== 'cursor'));
      const problem = html`<div class="notice bad" role="alert"><p><strong>${t.search.badRequest}:</strong> ${t.search.placeNotFound(notFound.text)}</p>${
        notFound.candidates.length > 0
          ? html`<p>${t.search.placesLike}: ${notFound.candidates.map((c, i) => html`${i > 0 ? ' · ' : ''}<a href="/${queryString({ ...others, near: c, lang: lang === 'en' ? undefined : lang })}">${c}</a>`)}</p>`
          : null
      }</div>`;
      return send(request, reply, lang, renderSearchPage(ctx, null, problem), 0);
    }
    try {
      const { body } = await run<SearchOutcome>('search_businesses', input);
      const page = keptFor(body, request, lang) ? keptPage(searchJsonPath(input), Object.keys(form).length === 0) : renderSearchPage(ctx, body, null);
      // Drawn from the URL (and, bare, the language asked for) and the answer alone: replayed while the search would hand that answer back.
      offerReplay(request, () => context.search.answerHolds(body));
      return send(request, reply, lang, page, form.open_now ? 60 : 180, body);
    } catch (error) {
      if (!(error instanceof Problem)) throw error;
      const candidates = Array.isArray(error.extensions.candidates) ? (error.extensions.candidates as string[]) : [];
      const problem = html`<div class="notice bad" role="alert"><p><strong>${t.search.badRequest}:</strong> ${error.code === 'cursor_expired' ? t.search.expired : error.message}</p>${
        candidates.length > 0 ? html`<p>${t.search.didYouMean}: ${candidates.map((c) => html`<a href="/?category=${encodeURIComponent(c)}${lang === 'en' ? '' : `&lang=${lang}`}">${c}</a> `)}</p>` : null
      }${(error.fields ?? []).length > 0 ? html`<ul>${(error.fields ?? []).map((f) => html`<li><code>${f.path}</code>: ${f.message}</li>`)}</ul>` : null}</div>`;
      const page = renderSearchPage(ctx, null, problem);
      if (error.status >= 500) page.status = error.status;
      if (error.status === 410) page.status = 410;
      for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
      return send(request, reply, lang, page, 0);
    }
  });

  /**
   * Places as one types in "where" (the page's script fills its suggestions from this): names that
   * begin so, in the page's language, each with its point. For the pages only, not part of the API.
   */
  app.get('/places', async (request, reply) => {
    const lang = languageOf(request);
    const asked = (request.query as Record<string, unknown>).q;
    const places = placeSuggestions(typeof asked === 'string' ? asked.slice(0, 120) : '', lang);
    reply.header('cache-control', 'public, max-age=86400');
    appendVary(reply, 'Accept-Encoding');
    return answerWithEtag(request, reply, JSON.stringify({ places, credit: `${GAZETTEER_CREDIT.name} (${GAZETTEER_CREDIT.licence})` }));
  });

  /**
   * Pages drawn from an answer made afresh by each read (the ranking rules) are kept with a
   * stand-in for that answer, named by the answer's own text: the same text, the same stand-in (and
   * so the kept bytes); any change in it (a new rules version) draws the page anew, exactly when its
   * JSON changes.
   */
  const signedSources = new Map<string, { signature: unknown; source: object }>();
  // A signature is a text, or an answer that is the same object while it says the same (the rules document).
  const sourceSignedBy = (key: string, signature: unknown): object => {
    const known = signedSources.get(key);
    if (known && known.signature === signature) return known.source;
    if (signedSources.size >= 2_000) signedSources.clear();
    const source = {};
    signedSources.set(key, { signature, source });
    return source;
  };
  /**
   * A business page is drawn from its view and its check link alone. The view is the same object
   * while it holds (business-views.ts: no listing written, the same hour, the same minute where it
   * reads its zone's clock, its member still answering or not): its pages are kept with it, per
   * language and check link, and go when it goes.
   */
  const businessSources = new WeakMap<object, Map<string, object>>();
  const businessSourceOf = (lang: DirectoryLanguage, view: ListingView, checkLink: CheckLink | null): object => {
    const key = checkLink ? `${lang}\n${checkLink.href}\n${checkLink.text}` : lang;
    let sources = businessSources.get(view);
    if (!sources) businessSources.set(view, (sources = new Map()));
    let source = sources.get(key);
    if (!source) {
      if (sources.size >= 16) sources.clear();
      sources.set(key, (source = {}));
    }
    return source;
  };

  app.get<{ Params: { domain: string } }>('/businesses/:domain', async (request, reply) => {
    const lang = languageOf(request);
    const t = MESSAGES[lang];
    try {
      const { body } = await run<ListingView>('get_business', { domain: request.params.domain });
      const { link: checkLink, holds: linkHolds } = await checkLinkOf(t, lang, body.domain);
      const source = businessSourceOf(lang, body, checkLink);
      // Replayed while the view and its check link would both be drawn the same (answer-replay.ts).
      if (linkHolds) offerReplay(request, () => context.businesses.holds(body.domain, body) && linkHolds());
      const page = keptFor(source, request, lang)
        ? keptPage(`/v1/businesses/${encodeURIComponent(body.domain)}`, body.source !== 'found')
        : renderBusinessPage(t, body, lang, checkLink);
      return send(request, reply, lang, page, 180, source);
    } catch (error) {
      if (!(error instanceof Problem)) throw error;
      return send(request, reply, lang, errorPage(t, error, `/businesses/${encodeURIComponent(request.params.domain)}`), 0);
    }
  });

  /**
   * Pages drawn only from what changes with the software (the category groups and their place
   * categories, CATEGORIES_VERSION; the check form) are kept per language and address, each with a
   * stand-in for its answer, and replayed in front of the framework for as long as the process runs.
   */
  const softwareSources = new Map<string, object>();
  const softwareSourceOf = (key: string): object => {
    let source = softwareSources.get(key);
    if (!source) softwareSources.set(key, (source = {}));
    return source;
  };
  const holdsWhileRunning = () => true;

  app.get('/categories', async (request, reply) => {
    const lang = languageOf(request);
    const source = softwareSourceOf('categories');
    let page = keptFor(source, request, lang) ? keptPage('/v1/categories', true) : null;
    if (!page) {
      const { body } = await run<{ categories: { slug: string; labels: Record<string, string>; kind: string }[] }>('list_categories', {});
      page = renderCategories(MESSAGES[lang], lang, body.categories);
    }
    offerReplay(request, holdsWhileRunning);
    return send(request, reply, lang, page, 3600, source);
  });

  app.get<{ Params: { slug: string } }>('/categories/:slug', async (request, reply) => {
    const lang = languageOf(request);
    const t = MESSAGES[lang];
    try {
      const { body } = await run<Parameters<typeof renderCategoryGroup>[3]>('list_categories', { group: request.params.slug });
      // Only a group that exists gets here (list_categories refuses the others): a bounded set of sources.
      const source = softwareSourceOf(`categories/${request.params.slug}`);
      const page = keptFor(source, request, lang) ? keptPage(`/v1/categories?group=${encodeURIComponent(request.params.slug)}`, true) : renderCategoryGroup(t, lang, request.params.slug, body);
      if (page) {
        offerReplay(request, holdsWhileRunning);
        return send(request, reply, lang, page, 3600, source);
      }
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
      const drawnAt = context.domain.clock.now();
      const { body } = await run<Record<string, unknown>>('get_ranking_rules', version === null ? {} : { version });
      const source = sourceSignedBy(`ranking ${version ?? ''}`, body);
      const page = keptFor(source, request, lang) ? keptPage(version === null ? '/v1/ranking' : `/v1/ranking?version=${version}`, true) : renderRanking(t, body, version);
      offerUntil(request, drawnAt, rulesDocumentHoldsUntil(drawnAt));
      return send(request, reply, lang, page, 3600, source);
    } catch (error) {
      if (!(error instanceof Problem)) throw error;
      return send(request, reply, lang, errorPage(t, error, '/ranking'), 0);
    }
  });

  app.get('/stats', async (request, reply) => {
    const lang = languageOf(request);
    const { body } = await run<StatsDocument>('get_stats', {});
    const page = keptFor(body, request, lang) ? keptPage('/v1/stats', true) : renderStatsPage(MESSAGES[lang], lang, body);
    offerReplay(request, () => context.stats.holds(body));
    return send(request, reply, lang, page, 60, body);
  });

  const groupLabeller = async (lang: DirectoryLanguage): Promise<(slug: string) => string> => {
    const groups = await categorySuggestions(lang);
    return (slug) => groups.find((g) => g.slug === slug)?.label ?? slug;
  };

  /**
   * A business's check result in a few words, for its page (none while never checked or hidden by its
   * owner), and whether that would still be so now, known without waiting (null: not known).
   */
  const checkLinkOf = async (t: DirectoryMessages, lang: DirectoryLanguage, domain: string): Promise<{ link: CheckLink | null; holds: (() => boolean) | null }> => {
    try {
      const { body } = await run<CheckResultView>('get_check_result', { domain });
      const holds = () => context.checks.documentHolds(body.domain, body);
      if (body.state === 'not_checked' || body.state === 'hidden') return { link: null, holds };
      const text = body.state === 'done' && body.grade ? `${t.check.grade} ${body.grade} · ${body.agentic_score} ${t.check.outOf}` : (t.check.states[body.state] ?? body.state);
      return { link: { href: `/b/${body.domain}${langQuery(lang)}`, text }, holds };
    } catch (error) {
      // A name that cannot be checked (the demo's reserved names) has no result to link, ever; a suppressed one until its check is written.
      if (error instanceof Problem) return { link: null, holds: context.checks.checkable(domain) ? null : () => true };
      throw error;
    }
  };

  /** The directory's page of a member holding this domain (a found entry is named by the result itself). */
  const memberPageOf = async (domain: string): Promise<string | null> => {
    try {
      const { body } = await run<ListingView>('get_business', { domain });
      return body.source === 'member' ? `/businesses/${encodeURIComponent(body.domain)}` : null;
    } catch (error) {
      if (error instanceof Problem) return null;
      throw error;
    }
  };

  app.get('/check', async (request, reply) => {
    const lang = languageOf(request);
    const source = softwareSourceOf('check');
    offerReplay(request, holdsWhileRunning);
    return send(request, reply, lang, keptFor(source, request, lang) ? keptPage('', true) : renderCheckSitePage(MESSAGES[lang], lang), 3600, source);
  });

  app.get<{ Params: { domain: string } }>('/b/:domain', async (request, reply) => {
    const lang = languageOf(request);
    const t = MESSAGES[lang];
    try {
      const { body } = await run<CheckResultView>('get_check_result', { domain: request.params.domain });
      const askedParam = (request.query as Record<string, unknown>).asked;
      const asked = askedParam === 'queued' || askedParam === 'recent' ? askedParam : null;
      const page = keptFor(body, request, lang)
        ? keptPage(`/b/${body.domain}.json`, body.indexable === true)
        : renderCheckResultPage({ t, lang, baseUrl: options.baseUrl, groupLabel: await groupLabeller(lang), memberPage: await memberPageOf(body.domain), asked }, body);
      offerReplay(request, () => context.checks.documentHolds(body.domain, body));
      // A check under way (or one that may start any moment) is never served from a cache without asking.
      return send(request, reply, lang, page, ACTIVE_STATES.has(body.state) || body.state === 'not_checked' ? 0 : 60, body);
    } catch (error) {
      if (!(error instanceof Problem)) throw error;
      return send(request, reply, lang, errorPage(t, error, `/b/${encodeURIComponent(request.params.domain)}`), 0);
    }
  });

  // The badge holds our words and numbers only (views/badge.ts); kept with the result it was drawn from.
  const badges = new WeakMap<object, { bytes: Buffer; etag: string }>();
  app.get<{ Params: { domain: string } }>('/b/:domain/badge.svg', async (request, reply) => {
    const { body } = await run<CheckResultView>('get_check_result', { domain: request.params.domain });
    let badge = badges.get(body);
    if (!badge) {
      const bytes = Buffer.from(badgeSvg(body), 'utf8');
      badge = { bytes, etag: etagOfText(bytes) };
      badges.set(body, badge);
    }
    reply
      .header('content-security-policy', "default-src 'none'")
      .header('x-content-type-options', 'nosniff')
      .header('cross-origin-resource-policy', 'cross-origin')
      .header('cache-control', 'public, max-age=300')
      .header('vary', 'Accept-Encoding')
      .type('image/svg+xml');
    const held = matchingTag(request, badge.etag);
    if (held !== undefined) return reply.code(304).header('etag', held).send();
    offerReplay(request, () => context.checks.documentHolds(body.domain, body));
    return reply.header('etag', badge.etag).send(badge.bytes);
  });

  app.get('/leaderboard', async (request, reply) => {
    const lang = languageOf(request);
    const t = MESSAGES[lang];
    const form = boardFormOf(request.query as Record<string, unknown>);
    const groups = await categorySuggestions(lang);
    try {
      const { body } = await run<BoardView>('get_leaderboard', boardInputOf(form));
      const page = keptFor(body, request, lang) ? keptPage(boardJsonPath(form), body.named.length > 0) : renderLeaderboardPage(t, lang, form, body, null, groups);
      offerReplay(request, () => context.checks.leaderboardHolds(body));
      return send(request, reply, lang, page, 60, body);
    } catch (error) {
      if (!(error instanceof Problem)) throw error;
      const problem = html`<div class="notice bad" role="alert"><p><strong>${t.search.badRequest}:</strong> ${error.message}</p>${
        (error.fields ?? []).length > 0 ? html`<ul>${(error.fields ?? []).map((f) => html`<li><code>${f.path}</code>: ${f.message}</li>`)}</ul>` : null
      }</div>`;
      return send(request, reply, lang, renderLeaderboardPage(t, lang, form, null, problem, groups), 0);
    }
  });

  // A version's document is made afresh by each read; the first of the same version and status keeps its pages.
  const scoreRulesSources = new Map<string, object>();
  app.get('/score-rules', async (request, reply) => {
    const lang = languageOf(request);
    const t = MESSAGES[lang];
    const asked = (request.query as Record<string, unknown>).version;
    const version = typeof asked === 'string' && /^\d{1,6}$/.test(asked) ? Number(asked) : null;
    try {
      const drawnAt = context.domain.clock.now();
      const { body } = await run<Parameters<typeof renderScoreRules>[2]>('get_score_rules', version === null ? {} : { version });
      const key = `${version ?? ''}|${body.version}|${body.status}|${body.changelog?.length ?? 0}`;
      let source = scoreRulesSources.get(key);
      if (!source) {
        if (scoreRulesSources.size > 100) scoreRulesSources.clear();
        scoreRulesSources.set(key, (source = body));
      }
      const page = keptFor(source, request, lang)
        ? keptPage(version === null ? '/v1/score-rules' : `/v1/score-rules?version=${version}`, true)
        : renderScoreRules(t, lang, body, version, await groupLabeller(lang));
      offerUntil(request, drawnAt, scoreRulesHoldUntil(drawnAt));
      return send(request, reply, lang, page, 3600, source);
    } catch (error) {
      if (!(error instanceof Problem)) throw error;
      return send(request, reply, lang, errorPage(t, error, '/score-rules'), 0);
    }
  });

  // /favicon.ico (every browser asks for it) and /favicon.svg (the pages name it): drawn from the software alone.
  installFavicon(app, (request) => offerReplay(request, holdsWhileRunning));

  /**
   * GET /c/{id} answers a person's browser with a page and a program with the JSON of the contract
   * (negotiate.ts; Vary: Accept on both). `?format=json` gives a browser the JSON (the page's link to
   * its JSON). Both are drawn from the software alone (the taxonomy), so both are replayed.
   */
  app.addHook('preHandler', async (request, reply) => {
    if (request.routeOptions.url !== PLACE_CATEGORY_ROUTE || request.method !== 'GET') return;
    appendVary(reply, 'Accept');
    const query = request.query as Record<string, unknown>;
    const wantsJson = query.format === 'json';
    if (!wantsJson && !prefersHtml(request.headers.accept)) return;
    const lang = languageOf(request);
    const t = MESSAGES[lang];
    const id = (request.params as { id: string }).id;
    try {
      const { body } = await run<PlaceCategoryDocument>('get_place_category', { id });
      offerReplay(request, holdsWhileRunning);
      if (wantsJson) {
        reply.header('cache-control', 'public, max-age=86400');
        return answerWithEtag(request, reply, JSON.stringify(body));
      }
      const source = softwareSourceOf(`c/${body.id}`);
      const page = keptFor(source, request, lang) ? keptPage(`/c/${encodeURIComponent(body.id)}`, true) : renderPlaceCategory(t, lang, body);
      return send(request, reply, lang, { ...page, json: `/c/${encodeURIComponent(body.id)}?format=json` }, 86400, source);
    } catch (error) {
      if (!(error instanceof Problem)) throw error;
      return send(request, reply, lang, errorPage(t, error, `/c/${encodeURIComponent(id)}`), 0);
    }
  });

  // "Check a site" and "check again": HTML forms posting to POST /check (check-form-route.ts).
  const refusal = (t: DirectoryMessages, lang: DirectoryLanguage, typed: string, status: number, message: string): RenderedPage =>
    renderCheckRefusal(t, lang, typed, status, message, status === 429 ? t.checkForm.limited : t.checkForm.refused);
  installCheckForm(app, {
    publicOrigin: new URL(options.baseUrl).origin,
    answer: async (request, reply, form) => {
      const lang = languageOf(request, form);
      const t = MESSAGES[lang];
      const typed = (form.get('url') ?? '').trim().slice(0, 2048);
      try {
        const { body, status } = await run<CheckResultView>('check_business', { url: typed }, request.ip);
        // Post/redirect/get: the result page, saying what became of the asking.
        return reply
          .code(303)
          .header('location', `/b/${body.domain}?asked=${status === 200 ? 'recent' : 'queued'}${langQuery(lang, false)}`)
          .header('cache-control', 'no-store')
          .send();
      } catch (error) {
        if (!(error instanceof Problem)) throw error;
        for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
        const retryAfter = Number(error.headers['retry-after']);
        const fields = (error.fields ?? []).map((f) => f.message).filter((m) => !error.message.includes(m));
        const message = [error.message, ...fields, error.status === 429 && Number.isFinite(retryAfter) ? t.checkForm.retryAfter(retryAfter) : ''].filter(Boolean).join(' ');
        return send(request, reply, lang, refusal(t, lang, typed, error.status, message), 0);
      }
    },
    foreign: (request, reply, form) => {
      const lang = languageOf(request, form);
      const t = MESSAGES[lang];
      return send(request, reply, lang, refusal(t, lang, form.get('url') ?? '', 403, t.checkForm.foreign), 0);
    },
    refusalPage: (request, reply, status, message) => {
      const lang = languageOf(request, request.body instanceof URLSearchParams ? request.body : undefined);
      const t = MESSAGES[lang];
      setPageHeaders(reply, { cacheControl: 'no-store', robots: 'noindex', language: lang });
      return renderFrame({ lang, t, baseUrl: options.baseUrl, here: '/check', assets }, refusal(t, lang, '', status, message));
    },
  });
}
