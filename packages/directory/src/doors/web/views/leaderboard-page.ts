/**
 * The leaderboard (GET /leaderboard, built from GET /leaderboard.json): businesses checked, by agentic
 * score, in a scope chosen with a plain GET form (category group, country, place) and by links, fifty
 * named a page. Saying plainly that it is not the search order; how many were checked and not named;
 * software and AI companies on their own board. Names are the businesses' own words (escaped).
 */
import { html, queryString, type Html } from '@svc/shared';
import type { DirectoryMessages } from '../messages.js';
import type { RenderedPage } from '../page-frame.js';
import { checkSiteForm } from './check-form.js';
import { selected } from './listing-card.js';
import { when } from './when.js';

export const BOARD_FIELDS = ['category', 'country', 'place', 'page'] as const;
export type BoardForm = Partial<Record<(typeof BOARD_FIELDS)[number], string>>;

export interface BoardRowView {
  position: number;
  domain: string;
  name: string;
  score: number;
  grade: string;
  level?: string;
  category?: string;
  country?: string;
  place?: string;
  answers?: Record<string, string>;
  checked_at: string;
}

export interface BoardView {
  scope: Record<string, string>;
  rules: { version: number; url: string };
  total: number;
  unnamed: number;
  software_and_ai?: number;
  page: number;
  next_page: number | null;
  named: BoardRowView[];
}

const ANSWERS = ['message', 'book', 'order', 'cancel', 'negotiate'] as const;

/** The form's fields as they came, only the ones the board takes. */
export function boardFormOf(query: Record<string, unknown>): BoardForm {
  const form: BoardForm = {};
  for (const name of BOARD_FIELDS) {
    const value = query[name];
    if (typeof value === 'string' && value.trim() !== '') form[name] = value.trim().slice(0, 120);
  }
  return form;
}

/** The board's input, read as the API reads its query (page a number when it is one). */
export function boardInputOf(form: BoardForm): Record<string, unknown> {
  const input: Record<string, unknown> = { ...form };
  if (form.page !== undefined) input.page = /^\d{1,3}$/.test(form.page) ? Number(form.page) : form.page;
  return input;
}

/** The scope as a query, in one order (canonical URLs and links); page 1 is the page without one. */
export function boardQuery(scope: { category?: string | undefined; country?: string | undefined; place?: string | undefined }, page = 1, lang = 'en'): string {
  return queryString({ category: scope.category, country: scope.country, place: scope.place, page: page > 1 ? page : undefined, lang: lang === 'en' ? undefined : lang });
}

/** The JSON a board page is built from: the same parameters. */
export function boardJsonPath(form: BoardForm): string {
  return `/leaderboard.json${queryString({ ...form })}`;
}

function answerCell(t: DirectoryMessages, value: string | undefined): Html {
  if (!value) return html`<span class="muted">—</span>`;
  const tone = value === 'yes' ? ' accent' : value === 'partly' ? ' warn' : value === 'no' ? ' bad' : '';
  return value === 'not_applicable' ? html`<span class="muted"><span aria-hidden="true">—</span><span class="visually-hidden">${t.check.answers.not_applicable}</span></span>` : html`<span class="badge${tone}">${t.check.answers[value] ?? value}</span>`;
}

function scopeForm(t: DirectoryMessages, lang: string, form: BoardForm, groups: { slug: string; label: string }[]): Html {
  const b = t.leaderboard;
  return html`<form class="card board-form" method="get" action="/leaderboard" aria-labelledby="scope-title"><h2 id="scope-title">${b.scope}</h2>
${lang !== 'en' ? html`<input type="hidden" name="lang" value="${lang}">` : null}
<div class="row">
<div><label for="b-category">${b.category}</label><select id="b-category" name="category"><option value="">${b.allLocal}</option>${groups.map(
    (g) => html`<option value="${g.slug}"${selected(form.category === g.slug)}>${g.label}</option>`,
  )}</select></div>
<div><label for="b-country">${b.country}</label><input type="text" id="b-country" name="country" value="${form.country ?? ''}" maxlength="2" placeholder="PT" autocomplete="country"></div>
<div><label for="b-place">${b.place}</label><input type="text" id="b-place" name="place" value="${form.place ?? ''}" maxlength="80" aria-describedby="b-place-help"><p class="help" id="b-place-help">${b.placeHelp}</p></div>
</div>
<div class="actions"><button type="submit" class="primary">${b.show}</button> <a class="button" href="/leaderboard${lang === 'en' ? '' : `?lang=${lang}`}">${b.everyone}</a></div>
</form>`;
}

export function renderLeaderboardPage(
  t: DirectoryMessages,
  lang: string,
  form: BoardForm,
  board: BoardView | null,
  problem: Html | null,
  groups: { slug: string; label: string }[],
): RenderedPage {
  const b = t.leaderboard;
  const label = (slug: string) => groups.find((g) => g.slug === slug)?.label ?? slug;
  const scope = board ? { category: board.scope.category, country: board.scope.country, place: board.scope.place } : { category: form.category, country: form.country, place: form.place };
  const scopeWords = [scope.category ? label(scope.category) : b.allLocal, scope.country, scope.place].filter(Boolean).join(' · ');
  const langSuffix = lang === 'en' ? '' : `?lang=${lang}`;
  let results: Html | null = null;
  if (board) {
    const rows = board.named;
    results = html`<section aria-labelledby="board-title"><h2 id="board-title">${scopeWords}${board.page > 1 ? ` · ${b.page(board.page)}` : ''}</h2>
<p>${b.counts(board.total, board.total - board.unnamed)} ${board.unnamed > 0 ? b.unnamed(board.unnamed) : ''}</p>
${board.software_and_ai ? html`<p class="small">${b.software(board.software_and_ai)} <a href="/leaderboard${boardQuery({ category: 'software-ai', country: scope.country, place: scope.place }, 1, lang)}">${b.softwareLink}</a></p>` : null}
${
  rows.length === 0
    ? html`<p class="card muted">${b.none}</p>`
    : html`<div class="table-wrap card" tabindex="0" role="region" aria-labelledby="board-title"><table class="board"><caption class="visually-hidden">${t.leaderboard.title}: ${scopeWords}</caption><thead><tr><th scope="col">${b.position}</th><th scope="col">${b.business}</th><th scope="col">${t.check.grade}</th><th scope="col">${t.check.score}</th>${ANSWERS.map(
        (a) => html`<th scope="col">${t.capabilityNames[a] ?? a}</th>`,
      )}<th scope="col">${b.where}</th><th scope="col">${t.check.checkedAt}</th></tr></thead><tbody>${rows.map(
        (row) => html`<tr><td class="num">${row.position}</td><th scope="row"><a href="/b/${row.domain}${langSuffix}">${row.name}</a><br><span class="small muted">${row.domain}</span></th><td><span class="grade-chip grade-${row.grade}">${row.grade}</span></td><td class="num">${row.score}</td>${ANSWERS.map(
          (a) => html`<td>${answerCell(t, row.answers?.[a])}</td>`,
        )}<td class="small">${row.category ? html`<a href="/leaderboard${boardQuery({ category: row.category, country: scope.country }, 1, lang)}">${label(row.category)}</a>` : null}${
          row.country ? html`<br><a href="/leaderboard${boardQuery({ category: scope.category, country: row.country }, 1, lang)}">${row.country}</a>` : null
        }${row.country && row.place ? html` · <a href="/leaderboard${boardQuery({ category: scope.category, country: row.country, place: row.place }, 1, lang)}">${row.place}</a>` : null}</td><td class="small">${when(lang, row.checked_at, true)}</td></tr>`,
      )}</tbody></table></div>`
}
<nav class="pager" aria-label="${b.title}">${board.page > 1 ? html`<a rel="prev" href="/leaderboard${boardQuery(scope, board.page - 1, lang)}">${b.previous}</a>` : null}${
      board.next_page ? html`<a rel="next" href="/leaderboard${boardQuery(scope, board.next_page, lang)}">${b.next}</a>` : null
    }</nav>
<p class="small muted">${b.order} <a href="/score-rules${board.rules.version ? `?version=${board.rules.version}${lang === 'en' ? '' : `&lang=${lang}`}` : ''}">${b.rulesLink}</a></p></section>`;
  }
  const page = board?.page ?? 1;
  return {
    status: problem ? 400 : 200,
    title: board && (scope.category || scope.country) ? `${b.title}: ${scopeWords}` : b.title,
    description: `${b.intro} ${b.notSearch}`,
    canonical: `/leaderboard${boardQuery(scope, page)}`,
    json: boardJsonPath(form),
    // A board with no one named says nothing worth finding; a refused scope is an error page.
    indexable: board !== null && board.named.length > 0,
    section: 'leaderboard',
    body: html`<h1>${b.title}</h1><p>${b.intro}</p>
<p class="notice"><strong>${b.notSearch}</strong> <a href="/ranking${langSuffix}">${t.nav.ranking}</a></p>
${scopeForm(t, lang, form, groups)}${problem}${results}${checkSiteForm(t, lang)}`,
  };
}
