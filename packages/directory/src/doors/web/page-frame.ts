/**
 * The frame of every public page of the directory (docs/web.md): language, canonical URL, Open Graph
 * tags, the JSON the page is built from (link rel=alternate), and whether it may be indexed (a robots
 * meta tag beside the X-Robots-Tag header). A page is a definition (public-pages.ts) over its JSON.
 */
import { attr, html, type Html, type StaticAsset } from '@svc/shared';
import type { DirectoryLanguage, DirectoryMessages } from './messages.js';

/** The pages' scripts: each page loads at most one, and works without it. */
export type PageScript = 'near-me' | 'check-progress';

export interface PageAssets {
  styles: StaticAsset;
  scripts: Record<PageScript, StaticAsset | null>;
}

export interface RenderedPage {
  status?: number;
  title: string;
  /** One sentence for search engines and link previews. */
  description: string;
  /** Path (and query) of the page's canonical URL, under the public base URL. */
  canonical: string;
  /** Path (and query) of the JSON this page is built from. */
  json: string | null;
  /** false: noindex (found listings, filtered or paged searches, errors). */
  indexable: boolean;
  section: 'search' | 'leaderboard' | 'categories' | 'ranking' | 'score-rules' | 'stats' | 'none';
  /** The one script the page is better with, if any. */
  script?: PageScript | null;
  body: Html;
}

export interface FrameContext {
  lang: DirectoryLanguage;
  t: DirectoryMessages;
  baseUrl: string;
  /** The path and query asked for, for the language links. */
  here: string;
  assets: PageAssets;
}

function languageLinks(ctx: FrameContext): Html {
  const [path, query] = ctx.here.split('?');
  const params = new URLSearchParams(query ?? '');
  const links = (['en', 'pt'] as const).map((lang) => {
    params.set('lang', lang);
    const name = lang === 'en' ? 'English' : 'Português';
    return lang === ctx.lang ? html`<span lang="${lang}">${name}</span>` : html`<a href="${path}?${params.toString()}" lang="${lang}" hreflang="${lang}">${name}</a>`;
  });
  return html`<span class="lang-switch" role="group" aria-label="${ctx.t.language}">${links[0]} · ${links[1]}</span>`;
}

export function renderFrame(ctx: FrameContext, page: RenderedPage): string {
  const t = ctx.t;
  const canonical = `${ctx.baseUrl}${page.canonical}`;
  const current = (section: RenderedPage['section']) => attr('aria-current', page.section === section ? 'page' : null);
  const script = page.script ? ctx.assets.scripts[page.script] : null;
  return html`<!doctype html>
<html lang="${ctx.lang}" prefix="og: https://ogp.me/ns#"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${page.title} · ${t.siteName}</title>
<meta name="description" content="${page.description}">
<meta name="robots" content="${page.indexable ? 'index,follow' : 'noindex,follow'}">
<link rel="canonical" href="${canonical}">
${page.json ? html`<link rel="alternate" type="application/json" href="${ctx.baseUrl}${page.json}">` : null}
<meta property="og:type" content="website"><meta property="og:site_name" content="${t.siteName}"><meta property="og:title" content="${page.title}">
<meta property="og:description" content="${page.description}"><meta property="og:url" content="${canonical}"><meta property="og:locale" content="${ctx.lang === 'pt' ? 'pt_PT' : 'en_GB'}">
<meta name="twitter:card" content="summary">
<link rel="icon" href="/favicon.svg" type="image/svg+xml"><link rel="stylesheet" href="${ctx.assets.styles.path}">
${script ? html`<script type="module" src="${script.path}"></script>` : null}
</head><body>
<a class="skip" href="#main">${t.skip}</a>
<header class="top"><div class="bar"><a class="brand" href="/">${t.siteName}</a>
<nav aria-label="${t.nav.menu}"><ul><li><a href="/"${current('search')}>${t.nav.search}</a></li><li><a href="/leaderboard"${current('leaderboard')}>${t.nav.leaderboard}</a></li><li><a href="/categories"${current('categories')}>${t.nav.categories}</a></li><li><a href="/ranking"${current('ranking')}>${t.nav.ranking}</a></li><li><a href="/score-rules"${current('score-rules')}>${t.nav.scoreRules}</a></li><li><a href="/stats"${current('stats')}>${t.nav.stats}</a></li></ul></nav>
${languageLinks(ctx)}</div></header>
<main id="main" tabindex="-1">${page.body}</main>
<footer class="foot">${page.json ? html`<a href="${page.json}" type="application/json">${t.json}</a>` : null}</footer>
</body></html>`.text;
}
