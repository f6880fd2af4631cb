/**
 * Today (docs/web.md "Today"): the owner's landing page. What waits for the owner on top (requested
 * bookings, open conversations, quote requests, orders and refunds to act on: the same states as the
 * count in the title), then the day's bookings by start time in the business's zone, with the day's
 * opening hours; links to the previous and next day. Everything is formatted here, on the server.
 */
import { html, type Html } from '@svc/shared';
import type { DateTime } from 'luxon';
import { HOLDS_PLACES, WAITING, closureOn, dayBounds, openingOn } from '../../../domain/availability/day-plan.js';
import type { ItemRecord } from '../../../domain/types.js';
import type { AppCall } from '../app-kit.js';
import type { Messages } from '../messages-en.js';
import { formatClock, formatDayLong, formatShort } from './format.js';
import { itemStateLabel, stateLabel, typeLabel, whatOf, type HandoverWords, type ListedItem } from './item-summary.js';
import type { PageFrame } from './layout.js';
import type { DayData } from './day-data.js';

/** The most a page lists of what waits; the inbox has the rest. */
export const NEEDS_YOU_SHOWN = 20;

export function whoOfRecord(item: ItemRecord): string {
  return item.contact?.name ?? item.contact?.email ?? item.contact?.phone ?? '—';
}

/** The fields item-summary reads, from a stored item. */
export function listedOf(item: ItemRecord): ListedItem {
  return {
    id: item.id,
    type: item.type,
    state: item.state,
    version: item.version,
    sandbox: item.sandbox,
    needsHuman: item.needsHuman,
    priority: item.priority,
    payload: item.payload,
    contact: item.contact,
    createdAt: new Date(item.createdAt).toISOString(),
    updatedAt: new Date(item.updatedAt).toISOString(),
  };
}

/** "09:30–13:00 and 14:00–19:30", or "Closed" / "Closed: Christmas". */
export function hoursLine(t: Messages, day: DateTime, data: DayData): string {
  const closure = closureOn(day, data.closures);
  if (closure) return closure.reason ? t.day.closedFor(closure.reason) : t.day.closed;
  const periods = openingOn(day, data.openingHours, data.closures);
  if (periods.length === 0) return t.day.closed;
  return t.day.open(periods.map((p) => `${p.opens}\u2013${p.closes}`).join(', '));
}

export function dayLink(path: string, day: DateTime, extra = ''): string {
  return `${path}?date=${day.toISODate() ?? ''}${extra}`;
}

/** `handover`: the words of an order's states (settings orders.handover, item-summary.ts handoverWordsOf). */
export function renderToday(app: AppCall, day: DateTime, today: DateTime, data: DayData, nowMs: number, handover: HandoverWords): PageFrame {
  const t = app.t;
  const zone = app.profile.timeZone;
  const isToday = day.toISODate() === today.toISODate();
  const { fromMs } = dayBounds(day);
  const dayName = formatDayLong(fromMs, zone, app.lang);
  const nav = html`<nav class="day-nav" aria-label="${t.day.dayOf}">
<a href="${dayLink('/app/today', day.minus({ days: 1 }))}" rel="prev">\u2190 ${t.day.previous}</a>
${isToday ? html`<span aria-current="date">${t.day.today}</span>` : html`<a href="/app/today">${t.day.today}</a>`}
<a href="${dayLink('/app/today', day.plus({ days: 1 }))}" rel="next">${t.day.next} \u2192</a>
<a href="${dayLink('/app/calendar', day, '&view=day')}">${t.calendar.title}</a>
</nav>`;

  const waiting = data.waiting.slice(0, NEEDS_YOU_SHOWN);
  const needs =
    waiting.length === 0
      ? html`<p class="muted">${t.day.nothingWaits}</p>`
      : html`<ul class="items">${waiting.map((item) => needsRow(app, item, data.firstWords.get(item.id), nowMs, handover))}</ul>${
          data.waitingTotal > waiting.length ? html`<p><a href="/app/inbox">${t.day.more(data.waitingTotal - waiting.length)}</a></p>` : null
        }`;

  const shown = data.bookings.filter((b) => (b.startAt ?? 0) < dayBounds(day).toMs);
  const agenda =
    shown.length === 0
      ? html`<p class="muted">${t.day.noBookings}</p>`
      : html`<ol class="agenda">${shown.map((booking) => agendaRow(app, booking))}</ol>`;

  const body = html`<h1>${isToday ? t.day.title : t.day.dayOf}: ${dayName}</h1>
${nav}
<p class="muted">${hoursLine(t, day, data)}</p>
<div class="today">
<section class="card" aria-labelledby="needs-title"><h2 id="needs-title">${t.day.needsYou}${waiting.length ? ` (${Math.max(data.waitingTotal, waiting.length)})` : ''}</h2>
<div data-live-region="needs">${needs}</div></section>
<section class="card" aria-labelledby="bookings-title"><h2 id="bookings-title">${t.day.bookings}</h2>
<div data-live-region="agenda">${agenda}</div></section>
</div>`;
  return { title: isToday ? t.day.title : dayName, section: 'today', body, live: { since: new Date(nowMs).toISOString() } };
}

function needsRow(app: AppCall, item: ItemRecord, words: string | undefined, nowMs: number, handover: HandoverWords): Html {
  const t = app.t;
  const zone = app.profile.timeZone;
  const listed = listedOf(item);
  const what = item.type === 'message' || item.type === 'quote_request' ? words ?? whatOf(listed, t, zone, app.lang) : whatOf(listed, t, zone, app.lang);
  const since = new Date(item.createdAt).toISOString();
  return html`<li class="flagged" data-item="${item.id}"><a href="/app/items/${item.id}">
<span class="who">${whoOfRecord(item)}</span>
<span class="meta"><span class="badge">${typeLabel(t, item.type)}</span><span class="badge accent">${itemStateLabel(t, item, handover)}</span><span>${t.day.waitingSince} <time datetime="${since}">${formatShort(since, zone, app.lang, nowMs)}</time></span></span>
<span class="what">${what}</span>
</a></li>`;
}

function agendaRow(app: AppCall, booking: ItemRecord): Html {
  const t = app.t;
  const zone = app.profile.timeZone;
  const start = booking.startAt ?? 0;
  const end = booking.endAt ?? start;
  const payload = booking.payload as { serviceName?: string };
  const party = booking.partySize && booking.partySize > 1 ? html` · ${t.day.party(booking.partySize)}` : null;
  const kind = WAITING.has(booking.state) ? 'waiting' : HOLDS_PLACES.has(booking.state) ? 'held' : 'gone';
  return html`<li class="${kind}" data-item="${booking.id}"><time datetime="${new Date(start).toISOString()}">${formatClock(start, zone, app.lang)}\u2013${formatClock(end, zone, app.lang)}</time>
<a href="/app/items/${booking.id}">${whoOfRecord(booking)}</a> <span>${payload.serviceName ?? ''}${party}</span> <span class="badge ${kind === 'waiting' ? 'warn' : 'accent'}">${stateLabel(t, booking.state)}</span></li>`;
}
