/**
 * A date and time as two selects whose words the server writes (the day in the app's language, the
 * time 24-hour, in the business's zone), not the browser's date-time input, which a browser draws in
 * its own locale (AM/PM, month first); and the way back, read in the business's zone. The item page's
 * moves and the setup pages (a key's expiry, a webhook's replay) use them.
 */
import { Problem, attr, html, type Html } from '@svc/shared';
import { DateTime } from 'luxon';
import type { AppCall } from '../app-kit.js';
import { formatDayLong, fromLocalInput } from './format.js';

function clock(minutes: number): string {
  return `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}

/** Every quarter hour from 06:00 to 23:45: the times a move offers. */
export const DAY_QUARTERS: readonly string[] = Array.from({ length: 72 }, (_, n) => clock((n + 24) * 15));
/** Every quarter hour of the day, 00:00 to 23:45. */
export const ALL_QUARTERS: readonly string[] = Array.from({ length: 96 }, (_, n) => clock(n * 15));

export interface DateTimeChoice {
  /** The instant the days are counted from (today in the business's zone is day 0). */
  nowMs: number;
  /** The first day offered, from today (negative for past days); 0 unless told. */
  firstDay?: number;
  /** The last day offered, from today; 59 unless told. */
  lastDay?: number;
  /** The times offered; a current value outside them is kept. DAY_QUARTERS unless told. */
  times?: readonly string[];
  /** The time selected when there is no current value; 10:00 unless told. */
  defaultTime?: string;
}

/**
 * The two selects, `<name>.date` and `<name>.time`, in a fieldset whose legend is the label and the
 * zone. `current` is a local value `yyyy-mm-ddThh:mm` in the business's zone, or ''. An optional one
 * offers no day ("—") first. Read back by dateTimeOf.
 */
export function dateTimeFields(app: AppCall, id: string, name: string, label: string, current: string, required: boolean, choice: DateTimeChoice): Html {
  const zone = app.profile.timeZone;
  const today = DateTime.fromMillis(choice.nowMs, { zone }).startOf('day');
  const [currentDate = '', currentTime = ''] = current ? current.split('T') : [];
  const days: { value: string; text: string }[] = [];
  for (let d = choice.firstDay ?? 0; d <= (choice.lastDay ?? 59); d += 1) {
    const day = today.plus({ days: d });
    days.push({ value: day.toISODate() ?? '', text: formatDayLong(day.toMillis(), zone, app.lang) });
  }
  if (currentDate && !days.some((day) => day.value === currentDate)) {
    const day = DateTime.fromISO(currentDate, { zone });
    if (day.isValid) days.unshift({ value: currentDate, text: formatDayLong(day.toMillis(), zone, app.lang) });
  }
  const offered = choice.times ?? DAY_QUARTERS;
  const time = currentTime ? currentTime.slice(0, 5) : '';
  const times = time && !offered.includes(time) ? [time, ...offered] : offered;
  const selectedTime = time || (choice.defaultTime ?? '10:00');
  return html`<fieldset class="when"><legend>${label} <span class="muted small">(${zone})</span></legend><div class="row">
<div><label for="${id}-date">${app.t.item.day}</label><select id="${id}-date" name="${name}.date"${attr('required', required ? 'required' : null)}>${
    required ? null : html`<option value="">\u2014</option>`
  }${days.map((day) => html`<option value="${day.value}"${attr('selected', day.value === currentDate ? 'selected' : null)}>${day.text}</option>`)}</select></div>
<div><label for="${id}-time">${app.t.item.time}</label><select id="${id}-time" name="${name}.time">${times.map(
    (value) => html`<option value="${value}"${attr('selected', value === selectedTime ? 'selected' : null)}>${value}</option>`,
  )}</select></div></div></fieldset>`;
}

/** The local value `yyyy-mm-ddThh:mm` the two selects of `name` sent; null when no day was chosen. */
export function localDateTimeOf(form: URLSearchParams, name: string): string | null {
  const day = form.get(`${name}.date`)?.trim() ?? '';
  if (day === '') return null;
  return `${day}T${form.get(`${name}.time`)?.trim() ?? ''}`;
}

/**
 * What the two selects of `name` sent, as an ISO 8601 instant with the business's offset; null when
 * no day was chosen. A value that is no date and time is refused (invalid_input) naming `label`, and
 * the page says so.
 */
export function dateTimeOf(app: AppCall, form: URLSearchParams, name: string, label: string): string | null {
  const local = localDateTimeOf(form, name);
  if (local === null) return null;
  const iso = fromLocalInput(local, app.profile.timeZone);
  if (iso === null) throw notDateTime(app, name, label, local);
  return iso;
}

/** The refusal of a value that is no date and time, in the app's language. */
export function notDateTime(app: AppCall, path: string, label: string, value: string): Problem {
  const message = `"${value}" ${app.t.item.notWhen}.`;
  return new Problem('invalid_input', `${label}: ${message}`, { fields: [{ path, problem: 'invalid', message }] });
}

/** Like dateTimeOf for a date and time the form must have: no day chosen is refused too. */
export function requiredDateTimeOf(app: AppCall, form: URLSearchParams, name: string, label: string): string {
  const iso = dateTimeOf(app, form, name, label);
  if (iso !== null) return iso;
  const message = `${app.t.item.noDay}.`;
  throw new Problem('invalid_input', `${label}: ${message}`, { fields: [{ path: name, problem: 'missing', message }] });
}
