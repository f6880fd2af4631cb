/**
 * The inbox: items newest first, by type, state and flags, with search; real items and sandbox
 * (test) items on separate tabs. The filters are a GET form (it works without the script); the list
 * region is what live updates replace (client/owner-app.ts).
 */
import { attr, html, queryString, type Html } from '@svc/shared';
import type { AppCall } from '../app-kit.js';
import { formatShort } from './format.js';
import { handoverWordsOf, itemStateLabel, stateLabel, typeLabel, whatOf, whoOf, type HandoverWords, type ListedItem } from './item-summary.js';
import type { PageFrame } from './layout.js';

const TYPES = ['booking', 'order', 'quote_request', 'message', 'refund'] as const;
const STATES = [
  'requested', 'needs_info', 'proposed', 'confirmed', 'received', 'accepted', 'awaiting_payment', 'payment_failed', 'paid', 'fulfilling',
  'fulfilled', 'quoted', 'open', 'answered', 'approved', 'completed', 'no_show', 'cancelled', 'cancelled_late', 'cancelled_by_business',
  'declined', 'expired', 'charged_back', 'closed', 'spam', 'rejected', 'refunded',
] as const;

export interface InboxQuery {
  type?: string | undefined;
  state?: string | undefined;
  needsHuman: boolean;
  openOnly: boolean;
  sandbox: boolean;
  q?: string | undefined;
  cursor?: string | undefined;
}

export function inboxQueryOf(query: Record<string, unknown>): InboxQuery {
  const text = (name: string): string | undefined => {
    const value = query[name];
    return typeof value === 'string' && value.trim() !== '' ? value.trim().slice(0, 200) : undefined;
  };
  const submitted = query.f === '1';
  const type = text('type');
  const state = text('state');
  return {
    type: type && (TYPES as readonly string[]).includes(type) ? type : undefined,
    state: state && (STATES as readonly string[]).includes(state) ? state : undefined,
    needsHuman: query.needs_human === '1',
    // Open only is on until the filter form is sent with it off.
    openOnly: submitted ? query.open_only === '1' : true,
    sandbox: query.sandbox === '1',
    q: text('q'),
    cursor: text('cursor'),
  };
}

function linkOf(query: InboxQuery, change: Partial<InboxQuery>): string {
  const next = { ...query, ...change };
  return `/app/inbox${queryString({
    f: '1',
    type: next.type,
    state: next.state,
    needs_human: next.needsHuman ? '1' : undefined,
    open_only: next.openOnly ? '1' : '0',
    sandbox: next.sandbox ? '1' : undefined,
    q: next.q,
    cursor: next.cursor,
  })}`;
}

/** The first words of the customer's last message, per conversation listed (day-pages.ts firstWordsOfItems). */
export type FirstWords = (items: readonly ListedItem[]) => Promise<Map<string, string>>;

export async function renderInbox(app: AppCall, query: InboxQuery, nowMs: number, firstWords?: FirstWords): Promise<PageFrame> {
  const t = app.t;
  const since = new Date(nowMs).toISOString();
  const answer = await app.call<{ items: ListedItem[]; next_cursor: string | null }>('list_items', {
    type: query.type,
    state: query.state,
    needs_human: query.needsHuman ? true : undefined,
    open_only: query.openOnly,
    sandbox: query.sandbox,
    q: query.q,
    cursor: query.cursor,
    limit: 50,
  });
  const [words, handover] = await Promise.all([
    firstWords ? firstWords(answer.items.filter((item) => item.type === 'message')) : new Map<string, string>(),
    handoverWordsOf(app),
  ]);
  const rows = answer.items.map((item) => renderRow(app, item, nowMs, words.get(item.id), handover));
  const tabs = html`<nav class="tabs" aria-label="${t.inbox.filters}">
<a href="${linkOf(query, { sandbox: false, cursor: undefined })}" ${attr('aria-current', query.sandbox ? null : 'page')}>${t.inbox.real}</a>
<a href="${linkOf(query, { sandbox: true, cursor: undefined })}" ${attr('aria-current', query.sandbox ? 'page' : null)}>${t.inbox.sandbox}</a>
</nav>`;
  // Folded unless a filter is in use: on a phone the list comes first and the filters take one line.
  const filtering = Boolean(query.type || query.state || query.q || query.needsHuman || !query.openOnly);
  const filters = html`<details class="filters-fold card"${attr('open', filtering ? '' : null)}><summary>${t.inbox.filters}</summary><form class="filters" method="get" action="/app/inbox" role="search">
<input type="hidden" name="f" value="1">${query.sandbox ? html`<input type="hidden" name="sandbox" value="1">` : null}
<label for="q">${t.inbox.search}</label><input type="search" id="q" name="q" value="${query.q ?? ''}" placeholder="${t.inbox.searchPlaceholder}">
<label for="type">${t.inbox.type}</label><select id="type" name="type"><option value="">${t.inbox.anyType}</option>${TYPES.map(
    (type) => html`<option value="${type}"${attr('selected', query.type === type ? 'selected' : null)}>${typeLabel(t, type)}</option>`,
  )}</select>
<label for="state">${t.inbox.state}</label><select id="state" name="state"><option value="">${t.inbox.anyState}</option>${STATES.map(
    (state) => html`<option value="${state}"${attr('selected', query.state === state ? 'selected' : null)}>${handover.states[state] ?? stateLabel(t, state)}</option>`,
  )}</select>
<fieldset><legend>${t.inbox.flags}</legend>
<label class="inline"><input type="checkbox" name="needs_human" value="1"${attr('checked', query.needsHuman ? 'checked' : null)}> ${t.inbox.needsHuman}</label>
<label class="inline"><input type="checkbox" name="open_only" value="1"${attr('checked', query.openOnly ? 'checked' : null)}> ${t.inbox.openOnly}</label>
</fieldset>
<button type="submit" class="primary">${t.inbox.apply}</button>
</form></details>`;
  const list =
    rows.length === 0 ? html`<p class="card muted">${t.inbox.empty}</p>` : html`<ul class="items">${rows}</ul>`;
  const pager = html`<div class="pager">${query.cursor ? html`<a href="${linkOf(query, { cursor: undefined })}">${t.inbox.newest}</a>` : null}${
    answer.next_cursor ? html`<a href="${linkOf(query, { cursor: answer.next_cursor })}" rel="next">${t.inbox.more}</a>` : null
  }</div>`;
  const body = html`<h1>${t.inbox.title}${query.sandbox ? html` <span class="badge warn">sandbox</span>` : null}</h1>
${tabs}
<div class="inbox">
<section aria-labelledby="list-title" class="inbox-list"><h2 id="list-title" class="visually-hidden">${t.inbox.title}</h2>
<p class="muted small live-status">${t.inbox.live}</p>
<div data-live-region="list">${list}${pager}</div>
</section>
<div class="inbox-filters">${filters}</div>
</div>`;
  // Live updates only on the first page: older pages stay as they were read.
  return { title: t.inbox.title, section: 'inbox', body, live: query.cursor ? undefined : { since } };
}

function renderRow(app: AppCall, item: ListedItem, nowMs: number, words: string | undefined, handover: HandoverWords): Html {
  const t = app.t;
  const zone = app.profile.timeZone;
  return html`<li${attr('class', item.needsHuman ? 'flagged' : null)} data-item="${item.id}"><a href="/app/items/${item.id}">
<span class="who">${whoOf(item)}</span>
<span class="meta"><span class="badge">${typeLabel(t, item.type)}</span><span class="badge accent">${itemStateLabel(t, item, handover)}</span>${
    item.needsHuman ? html`<span class="badge warn">${t.inbox.needsHuman}</span>` : null
  }${item.sandbox ? html`<span class="badge warn">sandbox</span>` : null}<time datetime="${item.createdAt}">${formatShort(item.createdAt, zone, app.lang, nowMs)}</time></span>
<span class="what">${[whatOf(item, t, zone, app.lang), words].filter(Boolean).join(' · ')}</span>
</a></li>`;
}
