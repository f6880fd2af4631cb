/**
 * The home page: the search form (a GET form that works without a script; the script only fills
 * "near" from the device's location) and one page of results in the published order, paged by the
 * answer's cursor. The JSON it is built from is the same search at /v1/businesses.
 */
import { attr, html, queryString, type Html } from '@svc/shared';
import type { DirectoryMessages } from '../messages.js';
import type { RenderedPage } from '../page-frame.js';
import { checkSiteForm } from './check-form.js';
import { renderCard, selected, type ListingView } from './listing-card.js';

export const SEARCH_FIELDS = ['q', 'near', 'radius_km', 'category', 'language', 'country', 'open_now', 'item_type', 'level', 'source', 'has_inbox', 'order', 'cursor'] as const;
export type SearchForm = Partial<Record<(typeof SEARCH_FIELDS)[number], string>>;

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

/** The search's input from the form: numbers and booleans read as the API reads them. */
export function searchInputOf(form: SearchForm): Record<string, unknown> {
  const input: Record<string, unknown> = { limit: 20 };
  for (const [name, value] of Object.entries(form)) {
    if (name === 'open_now' || name === 'has_inbox') input[name] = value === 'true' || value === '1' || value === 'on' ? true : value === 'false' ? false : value;
    else if (name === 'radius_km') input[name] = /^[+-]?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
    else input[name] = value;
  }
  return input;
}

/** The JSON of the same search (without the page's own fields). */
export function searchJsonPath(form: SearchForm): string {
  const input = searchInputOf(form);
  delete input.limit;
  return `/v1/businesses${queryString(Object.fromEntries(Object.entries(input).map(([k, v]) => [k, String(v)])))}`;
}

export interface SearchOutcome {
  businesses: ListingView[];
  next_cursor: string | null;
}

export function renderSearchPage(
  t: DirectoryMessages,
  form: SearchForm,
  outcome: SearchOutcome | null,
  problem: Html | null,
  categories: { slug: string; label: string }[],
  langQuery: string,
  lang: string,
): RenderedPage {
  const s = t.search;
  const input = (name: keyof SearchForm, label: string, extra: Html | null = null, type = 'text') =>
    html`<div><label for="f-${name}">${label}</label><input type="${type}" id="f-${name}" name="${name}" value="${form[name] ?? ''}"${extra}></div>`;
  const filters = html`<form class="card search-form" method="get" action="/" role="search">
${lang !== 'en' ? html`<input type="hidden" name="lang" value="${lang}">` : null}
<div class="row">
${input('q', s.q, html` placeholder="${s.qPlaceholder}" maxlength="80"`, 'search')}
<div><label for="f-category">${s.category}</label><input type="text" id="f-category" name="category" value="${form.category ?? ''}" list="category-suggestions" maxlength="120" autocomplete="off">
<datalist id="category-suggestions">${categories.map((c) => html`<option value="${c.slug}">${c.label}</option>`)}</datalist></div>
</div>
<div class="row">
<div><label for="f-near">${s.near}</label><input type="text" id="f-near" name="near" value="${form.near ?? ''}" inputmode="decimal" placeholder="38.72,-9.14" maxlength="60" pattern="-?[0-9]+(\\.[0-9]+)?,\\s*-?[0-9]+(\\.[0-9]+)?">
<button type="button" data-near-me hidden>${s.nearMe}</button></div>
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
<div class="actions"><button type="submit" class="primary">${s.submit}</button></div>
</form>`;
  const { cursor: _cursor, ...withoutCursor } = form;
  const base = searchInputOf(withoutCursor);
  delete base.limit;
  const baseQuery = Object.fromEntries(Object.entries(base).map(([k, v]) => [k, String(v)]));
  const results = outcome
    ? html`<section aria-labelledby="results-title"><h2 id="results-title">${s.results}</h2>${
        outcome.businesses.length === 0
          ? html`<p class="card muted">${s.none}</p>`
          : html`<ol class="results">${outcome.businesses.map((listing) => renderCard(t, listing, langQuery))}</ol>`
      }<nav class="pager" aria-label="${s.results}">${form.cursor ? html`<a href="/${queryString({ ...baseQuery, lang: lang === 'en' ? undefined : lang })}">${s.first}</a>` : null}${
        outcome.next_cursor ? html`<a rel="next" href="/${queryString({ ...baseQuery, cursor: outcome.next_cursor, lang: lang === 'en' ? undefined : lang })}">${s.next}</a>` : null
      }</nav></section>`
    : null;
  const filtered = Object.keys(form).length > 0;
  return {
    title: s.title,
    description: s.intro,
    canonical: '/',
    json: searchJsonPath(form),
    // The home page may be indexed; its filtered and paged variants are endless, so they are not.
    indexable: !filtered,
    section: 'search',
    script: 'near-me',
    status: problem ? 400 : 200,
    body: html`<h1>${s.title}</h1><p>${s.intro}</p>${filters}${problem}${results}${checkSiteForm(t, lang)}`,
  };
}
