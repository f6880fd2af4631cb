/**
 * The owner's day: Today (/app/today) and the calendar (/app/calendar?view=day|week&date=YYYY-MM-DD),
 * docs/web.md "Today" and "The calendar". They read the day's bookings by start and what waits for
 * the owner straight from the store's indexed reads (items by start; the same states as the title's
 * count), the services and the schedule, and are kept like the inbox (topic owner_pages, the minute).
 * A date that is no date, or a view the calendar does not have, answers 400 with a page saying so.
 */
import { html } from '@svc/shared';
import type { DateTime } from 'luxon';
import { readSchedule } from '../../domain/context.js';
import { dayBounds, parseLocalDate, todayIn, weekStart } from '../../domain/availability/day-plan.js';
import { AWAITING_OWNER } from '../../domain/notifications/owner-notices.js';
import type { AppCall } from './app-kit.js';
import type { InboxStore } from '../../store/store.js';
import type { AppRoutes } from './app-routes.js';
import { notice, type PageFrame } from './views/layout.js';
import type { DayData } from './views/day-data.js';
import { renderCalendarDay, renderCalendarWeek } from './views/calendar.js';
import { NEEDS_YOU_SHOWN, renderToday } from './views/today.js';
import { handoverWordsOf } from './views/item-summary.js';


/** The most bookings one page reads (a day or a week); a span with more says so. */
const MOST_BOOKINGS = 1500;
/** Who writes on the customer's side of a conversation. */
const CUSTOMER_SIDE: ReadonlySet<string> = new Set(['customer_agent', 'customer_human', 'connector']);
/** Words of a message shown in a list. */
export const FIRST_WORDS_CHARS = 140;

/** The first words of the customer's last message of each item given (a quote request's description when it has none). */
export async function firstWordsOfItems(store: InboxStore, items: readonly { id: string; type: string; payload: Record<string, unknown> }[]): Promise<Map<string, string>> {
  const last = await store.items.lastMessagesBy(items.map((item) => item.id), [...CUSTOMER_SIDE]);
  const words = new Map<string, string>();
  for (const item of items) {
    const text = last.get(item.id) ?? (item.type === 'quote_request' ? String((item.payload as { description?: string }).description ?? '') : '');
    if (text) words.set(item.id, firstWordsOf(text));
  }
  return words;
}

/** The first words of a text, cut at a word, with an ellipsis when cut. */
export function firstWordsOf(text: string, chars = FIRST_WORDS_CHARS): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= chars) return flat;
  const cut = flat.slice(0, chars);
  const space = cut.lastIndexOf(' ');
  return `${(space > chars / 2 ? cut.slice(0, space) : cut).trimEnd()}\u2026`;
}

async function loadSpan(routes: AppRoutes, fromMs: number, toMs: number, withWaiting: boolean): Promise<DayData> {
  const store = routes.env.deps.store;
  const [bookings, waiting, waitingTotal, services, schedule] = await Promise.all([
    store.items.bookingsBetween(fromMs, toMs, MOST_BOOKINGS + 1),
    withWaiting ? store.items.listAwaiting(AWAITING_OWNER, NEEDS_YOU_SHOWN) : Promise.resolve([]),
    withWaiting ? store.items.countAwaiting(AWAITING_OWNER) : Promise.resolve(0),
    store.catalogue.listServices({ activeOnly: false, limit: 200 }),
    readSchedule(store),
  ]);
  const talking = waiting.slice(0, NEEDS_YOU_SHOWN).filter((item) => item.type === 'message' || item.type === 'quote_request');
  const firstWords = await firstWordsOfItems(store, talking);
  return {
    bookings: bookings.slice(0, MOST_BOOKINGS),
    truncated: bookings.length > MOST_BOOKINGS,
    waiting,
    waitingTotal,
    firstWords,
    services,
    openingHours: schedule.openingHours,
    closures: schedule.closures,
  };
}

function refusal(app: AppCall, text: string): PageFrame {
  return { title: app.t.calendar.title, section: 'calendar', status: 400, body: html`<h1>${app.t.calendar.title}</h1>${notice('bad', text)}<p><a href="/app/calendar">${app.t.calendar.today}</a></p>` };
}

/** The date asked for (today when none), or null when what was given is no date. */
function dayAsked(app: AppCall, query: Record<string, unknown>, nowMs: number): { day: DateTime; today: DateTime } | null {
  const zone = app.profile.timeZone;
  const today = todayIn(nowMs, zone);
  const asked = query.date;
  if (asked === undefined || asked === '') return { day: today, today };
  const day = typeof asked === 'string' ? parseLocalDate(asked, zone) : null;
  return day ? { day, today } : null;
}

export function installDayPages(routes: AppRoutes): void {
  const now = () => routes.env.deps.clock.now();

  routes.page(
    '/app/today',
    async (app, request) => {
      const nowMs = now();
      const asked = dayAsked(app, request.query as Record<string, unknown>, nowMs);
      if (!asked) return { ...refusal(app, app.t.day.badDate), title: app.t.day.title, section: 'today' };
      const { fromMs, toMs } = dayBounds(asked.day);
      const [data, handover] = await Promise.all([loadSpan(routes, fromMs, toMs, true), handoverWordsOf(app)]);
      return renderToday(app, asked.day, asked.today, data, nowMs, handover);
    },
    { keep: 'owner_pages' },
  );

  routes.page(
    '/app/calendar',
    async (app, request) => {
      const nowMs = now();
      const query = request.query as Record<string, unknown>;
      const view = query.view === undefined || query.view === '' ? 'day' : query.view;
      if (view !== 'day' && view !== 'week') return refusal(app, app.t.day.badView);
      const asked = dayAsked(app, query, nowMs);
      if (!asked) return refusal(app, app.t.day.badDate);
      if (view === 'day') {
        const { fromMs, toMs } = dayBounds(asked.day);
        return renderCalendarDay(app, asked.day, asked.today, await loadSpan(routes, fromMs, toMs, false), nowMs);
      }
      const monday = weekStart(asked.day);
      const fromMs = dayBounds(monday).fromMs;
      const toMs = dayBounds(monday.plus({ days: 6 })).toMs;
      return renderCalendarWeek(app, monday, asked.today, await loadSpan(routes, fromMs, toMs, false), nowMs);
    },
    { keep: 'owner_pages' },
  );
}
