/**
 * "Check a site": a plain form posting to POST /check (the operation check_business), so it works
 * without a script; the answer is a redirect to the result page (check-form-route.ts), or this form
 * again with the refusal when the site cannot be checked or the caller asked too often.
 */
import { html, type Html } from '@svc/shared';
import type { DirectoryMessages } from '../messages.js';
import type { RenderedPage } from '../page-frame.js';

function languageField(lang: string): Html | null {
  return lang === 'en' ? null : html`<input type="hidden" name="lang" value="${lang}">`;
}

/** The form with a field for any site (home page, leaderboard, a refusal). */
export function checkSiteForm(t: DirectoryMessages, lang: string, typed = '', headingLevel: 'h1' | 'h2' = 'h2'): Html {
  const f = t.checkForm;
  const heading = headingLevel === 'h1' ? html`<h1 id="check-site-title">${f.title}</h1>` : html`<h2 id="check-site-title">${f.title}</h2>`;
  return html`<section class="card check-site" aria-labelledby="check-site-title">${heading}<p>${f.intro}</p>
<form method="post" action="/check">${languageField(lang)}<div class="row"><div><label for="check-url">${f.url}</label>
<input type="text" id="check-url" name="url" value="${typed}" inputmode="url" autocomplete="url" placeholder="${f.placeholder}" maxlength="2048" required></div>
<div class="actions"><button type="submit" class="primary">${f.submit}</button></div></div></form>
<p class="small"><a href="/leaderboard${lang === 'en' ? '' : `?lang=${lang}`}">${t.nav.leaderboard}</a> · <a href="/score-rules${lang === 'en' ? '' : `?lang=${lang}`}">${t.nav.scoreRules}</a></p></section>`;
}

/** One button asking for a new check of a known domain (a result page). */
export function checkAgainForm(t: DirectoryMessages, lang: string, domain: string, label: string): Html {
  return html`<form method="post" action="/check" class="actions">${languageField(lang)}<input type="hidden" name="url" value="${domain}"><button type="submit" class="primary">${label}</button></form>`;
}

/** GET /check: the form on a page of its own (the home page and the leaderboard carry it too). */
export function renderCheckSitePage(t: DirectoryMessages, lang: string): RenderedPage {
  return { title: t.checkForm.title, description: t.checkForm.intro, canonical: '/check', json: null, indexable: true, section: 'none', body: checkSiteForm(t, lang, '', 'h1') };
}

/** The answer to a form that asked for a check and was refused: the form again, as typed, with why. */
export function renderCheckRefusal(t: DirectoryMessages, lang: string, typed: string, status: number, message: string, title: string): RenderedPage {
  return {
    status,
    title,
    description: message,
    canonical: '/check',
    json: null,
    indexable: false,
    section: 'none',
    body: html`<p class="notice bad" role="alert"><strong>${title}:</strong> ${message}</p>${checkSiteForm(t, lang, typed, 'h1')}`,
  };
}
