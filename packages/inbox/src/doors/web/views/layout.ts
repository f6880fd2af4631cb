/** The page every screen of the owner app sits in: header, navigation, sign-out, language, notices. */
import { attr, html, queryString, type Html, type HtmlValue, type StaticAsset } from '@svc/shared';
import type { AppLanguage } from '../app-kit.js';
import type { Messages } from '../messages-en.js';

export interface LayoutAssets {
  styles: StaticAsset;
  script: StaticAsset | null;
}

export interface PageFrame {
  title: string;
  section: 'today' | 'calendar' | 'inbox' | 'setup' | 'none';
  /** A page that says the request was wrong (a date that is none) answers with this status. */
  status?: number | undefined;
  body: Html;
  /** Attributes the client script reads (live updates). */
  live?: { since: string; item?: string | undefined } | undefined;
}

export interface LayoutContext {
  lang: AppLanguage;
  t: Messages;
  businessName: string;
  /** null on the sign-in page. */
  csrf: string | null;
  /** The current path and query, for the language links. */
  here: string;
  assets: LayoutAssets;
  /** How many items wait for the owner: "(3)" before the title, so a tab in the background shows it. */
  waiting?: number | undefined;
}

function languageLinks(ctx: LayoutContext): Html {
  const [path, query] = ctx.here.split('?');
  const params = new URLSearchParams(query ?? '');
  const links = (['en', 'pt'] as const).map((lang) => {
    params.set('lang', lang);
    const name = lang === 'en' ? 'English' : 'Português';
    return lang === ctx.lang ? html`<span aria-current="true" lang="${lang}">${name}</span>` : html`<a href="${path}?${params.toString()}" lang="${lang}" hreflang="${lang}">${name}</a>`;
  });
  return html`<span class="lang-switch" role="group" aria-label="${ctx.t.language}">${links[0]} · ${links[1]}</span>`;
}

export function renderLayout(ctx: LayoutContext, page: PageFrame, notices: HtmlValue = null): string {
  const t = ctx.t;
  const current = (section: PageFrame['section']) => (page.section === section ? 'page' : null);
  const nav =
    ctx.csrf === null
      ? null
      : html`<nav aria-label="${t.nav.menu}"><ul>
<li><a href="/app/today" ${attr('aria-current', current('today'))}>${t.nav.today}</a></li>
<li><a href="/app/calendar" ${attr('aria-current', current('calendar'))}>${t.nav.calendar}</a></li>
<li><a href="/app/inbox" ${attr('aria-current', current('inbox'))}>${t.nav.inbox}</a></li>
<li><a href="/app/setup" ${attr('aria-current', current('setup'))}>${t.nav.setup}</a></li>
<li><form method="post" action="/app/sign-out"><input type="hidden" name="csrf" value="${ctx.csrf}"><button type="submit">${t.nav.signOut}</button></form></li>
</ul></nav>`;
  const live = page.live ? html`${attr('data-live-since', page.live.since)}${attr('data-live-item', page.live.item)}` : null;
  const doc = html`<!doctype html>
<html lang="${ctx.lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex,nofollow"><title>${ctx.waiting ? `(${ctx.waiting}) ` : ''}${page.title} · ${ctx.businessName}</title>
<link rel="stylesheet" href="${ctx.assets.styles.path}">
${ctx.assets.script ? html`<script type="module" src="${ctx.assets.script.path}"></script>` : null}
</head><body${live}>
<a class="skip" href="#main">${t.skipToContent}</a>
<header class="top"><div class="bar"><a class="brand" href="/app/today">${ctx.businessName}</a>${nav}${languageLinks(ctx)}</div></header>
<main id="main" tabindex="-1">
<div id="live-announcer" class="visually-hidden" role="status" aria-live="polite"></div>
${notices}
${page.body}
</main>
</body></html>`;
  return doc.text;
}

export function notice(kind: 'ok' | 'bad' | 'warn', text: HtmlValue): Html {
  return html`<p class="notice ${kind}" role="${kind === 'bad' ? 'alert' : 'status'}">${text}</p>`;
}

/** A form that posts to the app with its CSRF token and a fresh idempotency key. */
export function postForm(action: string, csrf: string, formKey: string, inner: HtmlValue, attributes: HtmlValue = null): Html {
  return html`<form method="post" action="${action}"${attributes}><input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="idempotency_key" value="${formKey}">${inner}</form>`;
}

export { queryString };
