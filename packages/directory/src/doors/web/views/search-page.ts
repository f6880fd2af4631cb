/**
 * The home page: the search form (a GET form that works without a script; the script suggests places
 * as one types and fills "where" from the device's position) and one page of results in the
 * published order, paged by the answer's cursor. The JSON it is built from is the same search at
 * /v1/businesses, with "where" as the API takes it (a place's point, or a country).
 *
 * On a phone the results come first: the form shows what and where and the button, and every other
 * filter is folded (a <details> open when one of them is set).
 */
import { attr, html, queryString, type Html } from '@svc/shared';
import { GAZETTEER_CREDIT } from '../../../domain/places/gazetteer.js';
import type { DirectoryMessages } from '../messages.js';
import type { RenderedPage } from '../page-frame.js';
import { checkSiteForm } from './check-form.js';
import { renderCard, selected, type ListingView } from './listing-card.js';
import { whatMatched } from './matched.js';

export const SEARCH_FIELDS = ['q', 'near', 'radius_km', 'category', 'language', 'country', 'open_now', 'item_type', 'level', 'source', 'has_inbox', 'order', 'cursor'] as const;
export type SearchForm = Partial<Record<(typeof SEARCH_FIELDS)[number], string>>;
/** The filters folded under "more filters". */
const FOLDED: readonly (keyof SearchForm)[] = ['category', 'radius_km', 'language', 'country', 'open_now', 'item_type', 'level', 'source', 'has_inbox', 'order'];

const ITEM_TYPES = ['booking', 'order', 'quote_request', 'message'] as const;
const LEVELS = ['readable', 'askable', 'bookable', 'orderable', 'payable'] as const;
const SOURCES = ['member', 'registered', 'found'] as const;

/** The form's fields as they came (text), only the ones the search takes. */
export function searchFormOf(query: Record<string, unknown>): SearchForm {
  const form: SearchForm = {};
  for (const name of SEARCH_FIELDS) {
    const value = query[name];
    if (typeof value === 'string' && value.trim() !== '') form[name] = value.trim().slice(0, 620);
  }
  return form;
}

/** Whether the address asks for anything (a field sent empty counts: "everywhere" is `?near=`). */
export function asksAnything(query: Record<string, unknown>): boolean {
  return SEARCH_FIELDS.some((name) => query[name] !== undefined);
}

/**
 * The search's input from the form: numbers and booleans read as the API reads them, and "where"
 * as the page understood it (`where`: the API's near or country in place of the text typed).
 */
export function searchInputOf(form: SearchForm, where: { near?: string; country?: string } | null = null): Record<string, unknown> {
  const input: Record<string, unknown> = { limit: 20 };
  for (const [name, value] of Object.entries(form)) {
    if (name === 'near' && where) continue;
    if (name === 'open_now' || name === 'has_inbox') input[name] = value === 'true' || value === '1' || value === 'on' ? true : value === 'false' ? false : value;
    else if (name === 'radius_km') input[name] = /^[+-]?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
    else input[name] = value;
  }
  if (where?.near) input.near = where.near;
  // A country typed in "where" and one chosen among the filters: the filter, the more precise ask, holds.
  if (where?.country && input.country === undefined) input.country = where.country;
  return input;
}

/** The JSON of the same search (without the page's own fields). */
export function searchJsonPath(input: Record<string, unknown>): string {
  const { limit: _limit, ...rest } = input;
  return `/v1/businesses${queryString(Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, String(v)])))}`;
}

export interface SearchOutcome {
  businesses: ListingView[];
  next_cursor: string | null;
}

export interface SearchPageContext {
  t: DirectoryMessages;
  lang: string;
  langQuery: string;
  form: SearchForm;
  /** The API's input the results come from (the JSON alternate). */
  input: Record<string, unknown>;
  categories: { slug: string; label: string }[];
  /** What "where" was understood as, in words (the results' heading); null: everywhere. */
  heading: string | null;
  /** The home page opened near the visitor: the country it chose, in words. */
  startedIn: string | null;
}

export function renderSearchPage(ctx: SearchPageContext, outcome: SearchOutcome | null, problem: Html | null): RenderedPage {
  const { t, form, lang } = ctx;
  const s = t.search;
  const input = (name: keyof SearchForm, label: string, extra: Html | null = null, type = 'text') =>
    html`<div><label for="f-${name}">${label}</label><input type="${type}" id="f-${name}" name="${name}" value="${form[name] ?? ''}"${extra}></div>`;
  const foldedSet = FOLDED.filter((name) => form[name] !== undefined).length;
  const filters = html`<form class="card search-form" method="get" action="/" role="search"${attr('data-start-near', ctx.startedIn !== null ? 'true' : null)}>
${lang !== 'en' ? html`<input type="hidden" name="lang" value="${lang}">` : null}
<div class="row main-row">
${input('q', s.q, html` placeholder="${s.qPlaceholder}" maxlength="80"`, 'search')}
<div class="where"><label for="f-near">${s.near}</label><input type="text" id="f-near" name="near" value="${form.near ?? ctx.startedIn ?? ''}" placeholder="${s.nearPlaceholder}" maxlength="120" list="place-suggestions" autocomplete="off" aria-describedby="near-hint" data-places="/places${ctx.langQuery}">
<datalist id="place-suggestions"></datalist><p class="small muted hint" id="near-hint">${s.nearHint} <button type="button" class="link" data-near-me hidden>${s.nearMe}</button></p></div>
<div class="actions"><button type="submit" class="primary">${s.submit}</button></div>
</div>
<details class="filters"${attr('open', foldedSet > 0 ? '' : null)}><summary>${s.moreFilters}${foldedSet > 0 ? html` <span class="muted small">(${s.filtersSet(foldedSet)})</span>` : null}</summary>
<div class="row">
<div><label for="f-category">${s.category}</label><input type="text" id="f-category" name="category" value="${form.category ?? ''}" list="category-suggestions" maxlength="120" autocomplete="off">
<datalist id="category-suggestions">${ctx.categories.map((c) => html`<option value="${c.slug}">${c.label}</option>`)}</datalist></div>
${input('radius_km', s.radius, html` inputmode="decimal" maxlength="8"`)}
${input('language', s.language, html` maxlength="12" placeholder="pt"`)}
${input('country', s.country, html` maxlength="2" placeholder="PT"`)}
</div>
<div class="row">
<div><label for="f-item_type">${s.itemType}</label><select id="f-item_type" name="item_type"><option value="">${s.anyItemType}</option>${ITEM_TYPES.map(
    (type) => html`<option value="${type}"${selected(form.item_type === type)}>${t.itemTypes[type]}</option>`,
  )}</select></div>
<div><label for="f-level">${s.level}</label><select id="f-level" name="level"><option value="">${s.anyLevel}</option>${LEVELS.map(
    (level) => html`<option value="${level}"${selected(form.level === level)}>${t.levels[level]}</option>`,
  )}</select></div>
<div><label for="f-source">${s.source}</label><select id="f-source" name="source"><option value=""></option>${SOURCES.map(
    (source) => html`<option value="${source}"${selected(form.source === source)}>${t.sources[source]}</option>`,
  )}</select></div>
<div><label for="f-order">${s.order}</label><select id="f-order" name="order"><option value="">${s.orderRank}</option><option value="nearest"${selected(form.order === 'nearest')}>${s.orderNearest}</option></select></div>
</div>
<div class="row">
<label class="inline"><input type="checkbox" name="open_now" value="true"${attr('checked', form.open_now === 'true' || form.open_now === '1' ? 'checked' : null)}> ${s.openNow}</label>
<label class="inline"><input type="checkbox" name="has_inbox" value="true"${attr('checked', form.has_inbox === 'true' || form.has_inbox === '1' ? 'checked' : null)}> ${s.hasInbox}</label>
</div>
</details>
</form>`;
  const { cursor: _cursor, ...withoutCursor } = form;
  const pageQuery = Object.fromEntries(Object.entries(withoutCursor).map(([k, v]) => [k, String(v)]));
  const langParam = lang === 'en' ? undefined : lang;
  const results = outcome
    ? html`<section aria-labelledby="results-title"><h2 id="results-title">${ctx.heading ?? s.results}</h2>${
        ctx.startedIn !== null ? html`<p class="small">${s.startedIn(ctx.startedIn)} <a href="/?near=${langParam ? `&lang=${langParam}` : ''}">${s.everywhere}</a></p>` : null
      }${
        outcome.businesses.length === 0
          ? html`<p class="card muted">${s.none}</p>`
          : html`<ol class="results">${outcome.businesses.map((listing) =>
              renderCard(t, listing, { lang, langQuery: ctx.langQuery, matched: whatMatched(t, lang, listing, form.q, form.category) }),
            )}</ol>`
      }<nav class="pager" aria-label="${s.results}">${form.cursor ? html`<a href="/${queryString({ ...pageQuery, lang: langParam })}">${s.first}</a>` : null}${
        outcome.next_cursor ? html`<a rel="next" href="/${queryString({ ...pageQuery, cursor: outcome.next_cursor, lang: langParam })}">${s.next}</a>` : null
      }</nav></section>`
    : null;
  const credit = html`<p class="small muted">${s.placesCredit} <a href="${GAZETTEER_CREDIT.url}" rel="noopener">${GAZETTEER_CREDIT.name}</a> (<a href="${GAZETTEER_CREDIT.licenceUrl}" rel="noopener license">${GAZETTEER_CREDIT.licence}</a>).</p>`;
  const filtered = Object.keys(form).length > 0;
  return {
    title: s.title,
    description: s.intro,
    canonical: '/',
    json: searchJsonPath(ctx.input),
    // The home page may be indexed; its filtered and paged variants are endless, so they are not.
    indexable: !filtered,
    section: 'search',
    script: 'near-me',
    status: problem ? 400 : 200,
    body: html`<h1>${s.title}</h1><p class="intro">${s.intro}</p>${filters}${problem}${results}${credit}${checkSiteForm(t, lang)}`,
  };
}
