/**
 * The calendar (docs/web.md "The calendar"): a day as a table of quarter hours by lanes (each place
 * of each service, then requests, which hold no place), a booking a cell spanning its rows; a week
 * as a table of lanes by days, each cell the lane's bookings that day. Closed hours and days are
 * shaded and said in words. Plain HTML tables: no script, no inline style (the CSP allows none), a
 * region that scrolls sideways on a phone.
 */
import { attr, html, type Html } from '@svc/shared';
import { DateTime } from 'luxon';
import { HOLDS_PLACES, WAITING, dayBounds, laneLayout, openingOn, type Lane } from '../../../domain/availability/day-plan.js';
import type { ItemRecord, Service } from '../../../domain/types.js';
import type { AppCall } from '../app-kit.js';
import type { Messages } from '../messages-en.js';
import type { DayData } from './day-data.js';
import { formatClock, formatDayLong, formatDayShort } from './format.js';
import { stateLabel } from './item-summary.js';
import type { PageFrame } from './layout.js';
import { dayLink, hoursLine, whoOfRecord } from './today.js';

export type CalendarView = 'day' | 'week';

const QUARTER_MS = 15 * 60_000;
const QUARTER_MIN = 15;

function wallMinutes(hhmm: string): number {
  const [h, m] = hhmm.split(':').map(Number);
  return (h ?? 0) * 60 + (m ?? 0);
}

function laneName(t: Messages, lane: Lane, capacities: ReadonlyMap<string, number>): string {
  if (lane.kind === 'requests') return lane.place > 1 ? `${t.calendar.requests} ${lane.place}` : t.calendar.requests;
  if (lane.kind === 'over') return t.calendar.over(lane.serviceName ?? '');
  return t.calendar.place(lane.serviceName ?? '', lane.place, capacities.get(lane.serviceId ?? '') ?? 1);
}

function laneKey(lane: Lane): string {
  return `${lane.kind} ${lane.serviceId ?? ''} ${lane.place}`;
}

function kindOf(booking: ItemRecord): string {
  return WAITING.has(booking.state) ? 'waiting' : HOLDS_PLACES.has(booking.state) ? 'held' : 'gone';
}

/** The services a span shows: the active ones, and any other that has a booking in it. */
function servicesShown(services: readonly Service[], bookings: readonly ItemRecord[]): Service[] {
  const booked = new Set(bookings.map((b) => b.serviceId));
  return services.filter((s) => s.active || booked.has(s.id));
}

function viewNav(app: AppCall, view: CalendarView, day: DateTime, today: DateTime): Html {
  const t = app.t;
  const step = view === 'day' ? { days: 1 } : { weeks: 1 };
  const link = (d: DateTime, v: CalendarView = view) => dayLink('/app/calendar', d, `&view=${v}`);
  return html`<nav class="day-nav" aria-label="${t.calendar.title}">
<a href="${link(day.minus(step))}" rel="prev">\u2190 ${view === 'day' ? t.calendar.previousDay : t.calendar.previousWeek}</a>
<a href="${link(today)}">${t.calendar.today}</a>
<a href="${link(day.plus(step))}" rel="next">${view === 'day' ? t.calendar.nextDay : t.calendar.nextWeek} \u2192</a>
</nav>
<nav class="tabs" aria-label="${t.calendar.lanes}">
<a href="${link(day, 'day')}" ${attr('aria-current', view === 'day' ? 'page' : null)}>${t.calendar.dayView}</a>
<a href="${link(day, 'week')}" ${attr('aria-current', view === 'week' ? 'page' : null)}>${t.calendar.weekView}</a>
</nav>`;
}

function bookingLabel(app: AppCall, booking: ItemRecord): Html {
  const zone = app.profile.timeZone;
  const start = booking.startAt ?? 0;
  const end = booking.endAt ?? start;
  return html`<a href="/app/items/${booking.id}"><time datetime="${new Date(start).toISOString()}">${formatClock(start, zone, app.lang)}\u2013${formatClock(end, zone, app.lang)}</time> ${whoOfRecord(booking)}</a> <span class="small">${stateLabel(app.t, booking.state)}</span>`;
}

export function renderCalendarDay(app: AppCall, day: DateTime, today: DateTime, data: DayData, nowMs: number): PageFrame {
  const t = app.t;
  const zone = app.profile.timeZone;
  const { fromMs, toMs } = dayBounds(day);
  const services = servicesShown(data.services, data.bookings);
  const capacities = new Map(services.map((s) => [s.id, s.capacity]));
  // Each booking's rows: quarter hours of the local day it covers (at least one).
  const minuteOf = (ms: number): number => {
    if (ms <= fromMs) return 0;
    if (ms >= toMs) return 24 * 60;
    const local = DateTime.fromMillis(ms, { zone });
    return local.hour * 60 + local.minute;
  };
  const rowsOf = new Map<string, { first: number; last: number }>();
  const gridded = data.bookings.map((booking) => {
    const first = Math.floor(minuteOf(booking.startAt ?? fromMs) / QUARTER_MIN);
    const last = Math.max(first + 1, Math.ceil(minuteOf(booking.endAt ?? toMs) / QUARTER_MIN));
    rowsOf.set(booking.id, { first, last });
    // Lanes are laid out on the rows, so two bookings sharing a quarter hour never share a lane.
    return { ...booking, startAt: fromMs + first * QUARTER_MS, endAt: fromMs + last * QUARTER_MS };
  });
  const lanes = laneLayout(services, gridded);
  const periods = openingOn(day, data.openingHours, data.closures).map((p) => ({ opens: wallMinutes(p.opens), closes: p.closes <= p.opens ? 24 * 60 : wallMinutes(p.closes) }));
  const open = (minute: number) => periods.some((p) => p.opens <= minute && minute + QUARTER_MIN <= p.closes);
  // The rows shown: opening hours and every booking, in whole hours (09:00–18:00 when there are neither).
  const spans = [...periods.map((p) => [p.opens, p.closes] as const), ...[...rowsOf.values()].map((r) => [r.first * QUARTER_MIN, r.last * QUARTER_MIN] as const)];
  const firstMinute = spans.length ? Math.min(...spans.map((s) => s[0])) : 9 * 60;
  const lastMinute = spans.length ? Math.max(...spans.map((s) => s[1])) : 18 * 60;
  const firstRow = Math.floor(firstMinute / 60) * 4;
  const lastRow = Math.min(96, Math.ceil(lastMinute / 60) * 4);

  const byId = new Map(data.bookings.map((b) => [b.id, b]));
  const coveredUntil = lanes.map(() => firstRow);
  const next = lanes.map(() => 0);
  const rows: Html[] = [];
  for (let row = firstRow; row < lastRow; row += 1) {
    const minute = row * QUARTER_MIN;
    const isOpen = open(minute);
    const label = `${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`;
    const cells: Html[] = [];
    lanes.forEach((lane, index) => {
      if ((coveredUntil[index] ?? 0) > row) return;
      const booking = lane.bookings[next[index] ?? 0];
      const span = booking ? rowsOf.get(booking.id) : undefined;
      if (booking && span && Math.max(span.first, firstRow) === row) {
        next[index] = (next[index] ?? 0) + 1;
        const rowspan = Math.min(span.last, lastRow) - row;
        coveredUntil[index] = row + rowspan;
        const original = byId.get(booking.id) ?? booking;
        cells.push(html`<td rowspan="${String(rowspan)}" class="bk ${kindOf(original)}">${bookingLabel(app, original)}</td>`);
        return;
      }
      cells.push(html`<td${attr('class', isOpen ? null : 'off')}></td>`);
    });
    rows.push(html`<tr${attr('class', isOpen ? null : 'off')}><th scope="row"${attr('class', minute % 60 === 0 ? 'hour' : null)}>${label}${isOpen ? null : html`<span class="visually-hidden"> (${t.calendar.closedRow})</span>`}</th>${cells}</tr>`);
  }
  const dayName = formatDayLong(fromMs, zone, app.lang);
  const table = html`<div class="cal-scroll" role="region" tabindex="0" aria-label="${t.calendar.scroll}">
<table class="cal cal-day"><caption>${dayName}</caption>
<thead><tr><th scope="col">${t.calendar.time}</th>${lanes.map((lane) => html`<th scope="col" class="${lane.kind}">${laneName(t, lane, capacities)}</th>`)}</tr></thead>
<tbody>${rows}</tbody></table></div>`;
  const body = html`<h1>${t.calendar.title}: ${dayName}</h1>
${viewNav(app, 'day', day, today)}
<p class="muted">${hoursLine(t, day, data)}. ${t.calendar.legend}</p>
${data.truncated ? html`<p class="notice warn">${t.calendar.truncated}</p>` : null}
<div data-live-region="calendar">${table}</div>`;
  return { title: `${t.calendar.title}: ${dayName}`, section: 'calendar', body, live: { since: new Date(nowMs).toISOString() } };
}

export function renderCalendarWeek(app: AppCall, monday: DateTime, today: DateTime, data: DayData, nowMs: number): PageFrame {
  const t = app.t;
  const zone = app.profile.timeZone;
  const days = Array.from({ length: 7 }, (_, i) => monday.plus({ days: i }));
  const services = servicesShown(data.services, data.bookings);
  const capacities = new Map(services.map((s) => [s.id, s.capacity]));
  // Each day's lanes on their own; the week's rows are every lane any day has, in the order of the first.
  const perDay = days.map((day) => {
    const { fromMs, toMs } = dayBounds(day);
    const lanes = laneLayout(services, data.bookings.filter((b) => (b.startAt ?? 0) < toMs && (b.endAt ?? 0) > fromMs));
    return new Map(lanes.map((lane) => [laneKey(lane), lane]));
  });
  const order: Lane[] = [];
  const seen = new Set<string>();
  const place = (lane: Lane) => {
    const key = laneKey(lane);
    if (!seen.has(key)) {
      seen.add(key);
      order.push(lane);
    }
  };
  for (const map of perDay) for (const lane of map.values()) if (lane.kind === 'place') place(lane);
  for (const map of perDay) for (const lane of map.values()) if (lane.kind === 'over') place(lane);
  const requests = Math.max(0, ...perDay.map((map) => [...map.values()].filter((l) => l.kind === 'requests').length));
  for (let n = 1; n <= requests; n += 1) place({ kind: 'requests', serviceId: null, serviceName: null, place: n, bookings: [] });

  const closedDay = days.map((day) => openingOn(day, data.openingHours, data.closures).length === 0);
  const head = days.map((day, i) => {
    const dayMs = dayBounds(day).fromMs;
    const isToday = day.toISODate() === today.toISODate();
    return html`<th scope="col"${attr('class', closedDay[i] ? 'off' : null)}><a href="${dayLink('/app/calendar', day, '&view=day')}"${attr('aria-current', isToday ? 'date' : null)}>${formatDayShort(dayMs, zone, app.lang)}</a><span class="small">${hoursLine(t, day, data)}</span></th>`;
  });
  const rows = order.map((lane) => {
    const key = laneKey(lane);
    const cells = perDay.map((map, i) => {
      const found = map.get(key);
      const list = found && found.bookings.length > 0 ? html`<ul>${found.bookings.map((b) => html`<li class="bk ${kindOf(b)}">${bookingLabel(app, b)}</li>`)}</ul>` : null;
      return html`<td${attr('class', closedDay[i] ? 'off' : null)}>${list}</td>`;
    });
    return html`<tr><th scope="row" class="${lane.kind}">${laneName(t, lane, capacities)}</th>${cells}</tr>`;
  });
  const from = formatDayLong(dayBounds(monday).fromMs, zone, app.lang);
  const to = formatDayLong(dayBounds(monday.plus({ days: 6 })).fromMs, zone, app.lang);
  const title = t.calendar.weekOf(from, to);
  const table = html`<div class="cal-scroll" role="region" tabindex="0" aria-label="${t.calendar.scroll}">
<table class="cal cal-week"><caption>${title}</caption>
<thead><tr><th scope="col">${t.calendar.lanes}</th>${head}</tr></thead>
<tbody>${rows}</tbody></table></div>`;
  const body = html`<h1>${t.calendar.title}</h1>
${viewNav(app, 'week', monday, today)}
<p class="muted">${t.calendar.legend}</p>
${data.truncated ? html`<p class="notice warn">${t.calendar.truncated}</p>` : null}
<div data-live-region="calendar">${table}</div>`;
  return { title: `${t.calendar.title}: ${title}`, section: 'calendar', body, live: { since: new Date(nowMs).toISOString() } };
}
