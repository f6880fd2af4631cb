/**
 * Setup: the week editor (set_opening_hours) and closures (set_closures), in the business's own time
 * zone. Each weekday has rows of opening periods; an empty row is no period. Without the script a
 * day shows its periods and one empty row; the script adds rows on demand.
 */
import { html, Problem, type Html } from '@svc/shared';
import type { AppCall } from './app-kit.js';
import type { AppRoutes } from './app-routes.js';
import { KEPT, asPage, setupPage, textOf, type SetupRenderer } from './setup-kit.js';
import { postForm } from './views/layout.js';

interface Availability {
  timeZone: string;
  openingHours: { dayOfWeek: number; opens: string; closes: string }[];
  closures: { id: string; startDate: string; endDate: string; reason: string | null }[];
}

/** Rows a day shows at least (its periods, then empty ones up to this). */
const MIN_ROWS = 2;
/** Rows the form reads per day at most: more than anyone opens in a day. */
const MAX_ROWS = 8;
const EMPTY_CLOSURE_ROWS = 2;

function periodRow(app: AppCall, day: number, index: number, opens: string, closes: string): Html {
  const dayName = app.t.hours.weekdays[day - 1] ?? String(day);
  const n = index + 1;
  return html`<div class="row period" data-period>
<div><label for="d${day}-${n}-opens">${app.t.hours.opens} <span class="visually-hidden">${dayName}, ${app.t.hours.window(n)}</span></label><input type="time" id="d${day}-${n}-opens" name="d${day}.${n}.opens" value="${opens}" step="300"></div>
<div><label for="d${day}-${n}-closes">${app.t.hours.closes} <span class="visually-hidden">${dayName}, ${app.t.hours.window(n)}</span></label><input type="time" id="d${day}-${n}-closes" name="d${day}.${n}.closes" value="${closes}" step="300"></div>
</div>`;
}

const renderHours: SetupRenderer = async (app, problem) => {
  const availability = await app.call<Availability>('get_availability');
  const t = app.t.hours;
  const days = [1, 2, 3, 4, 5, 6, 7].map((day) => {
    const periods = availability.openingHours.filter((range) => range.dayOfWeek === day).sort((a, b) => a.opens.localeCompare(b.opens));
    const rows = Math.max(MIN_ROWS, periods.length + 1);
    const dayName = t.weekdays[day - 1] ?? String(day);
    return html`<fieldset class="card day" data-day="${day}" data-max-rows="${MAX_ROWS}"><legend><strong>${dayName}</strong>${periods.length === 0 ? html` <span class="badge">${t.closed}</span>` : null}</legend>
${Array.from({ length: rows }, (_, index) => periodRow(app, day, index, periods[index]?.opens ?? '', periods[index]?.closes ?? ''))}
</fieldset>`;
  });
  const hoursForm = postForm(
    '/app/setup/hours',
    app.session.csrfToken,
    app.formKey(),
    html`<p>${t.intro(availability.timeZone)}</p>${days}<div class="actions"><button type="submit" class="primary">${t.saveHours}</button></div>`,
    html` class="week-editor"`,
  );
  const closureRows = [
    ...availability.closures.map((closure) => ({ from: closure.startDate, to: closure.endDate, reason: closure.reason ?? '' })),
    ...Array.from({ length: EMPTY_CLOSURE_ROWS }, () => ({ from: '', to: '', reason: '' })),
  ].map(
    (row, index) => html`<div class="row">
<div><label for="c${index}-from">${t.from}</label><input type="date" id="c${index}-from" name="c${index}.from" value="${row.from}"></div>
<div><label for="c${index}-to">${t.to}</label><input type="date" id="c${index}-to" name="c${index}.to" value="${row.to}"></div>
<div><label for="c${index}-reason">${t.reason}</label><input type="text" id="c${index}-reason" name="c${index}.reason" value="${row.reason}" maxlength="300"></div>
</div>`,
  );
  const closuresForm = postForm(
    '/app/setup/closures',
    app.session.csrfToken,
    app.formKey(),
    html`<p>${t.closuresIntro}</p>${closureRows}<div class="actions"><button type="submit" class="primary">${t.saveClosures}</button></div>`,
  );
  const body = html`${hoursForm}<section class="card" aria-labelledby="closures-title"><h2 id="closures-title">${t.closures}</h2>${closuresForm}</section>`;
  return setupPage(app, 'hours', problem, body);
};

export function installHoursPages(routes: AppRoutes): void {
  routes.page('/app/setup/hours', asPage(renderHours), KEPT);
  routes.action(
    '/app/setup/hours',
    async (app, form) => {
      const openingHours: { dayOfWeek: number; opens: string; closes: string }[] = [];
      for (let day = 1; day <= 7; day++) {
        for (let n = 1; n <= MAX_ROWS; n++) {
          const opens = textOf(form, `d${day}.${n}.opens`);
          const closes = textOf(form, `d${day}.${n}.closes`);
          if (opens === null && closes === null) continue;
          if (opens === null || closes === null) {
            const name = app.t.hours.weekdays[day - 1] ?? String(day);
            throw new Problem('invalid_input', `${name}: ${app.t.hours.window(n)} ${app.t.hours.opens} / ${app.t.hours.closes}?`, {
              fields: [{ path: `openingHours.${day}.${n}`, problem: 'missing', message: 'A period needs both its opening and its closing time.' }],
            });
          }
          openingHours.push({ dayOfWeek: day, opens: opens.slice(0, 5), closes: closes.slice(0, 5) });
        }
      }
      await app.call('set_opening_hours', { openingHours, idempotency_key: form.get('idempotency_key') });
      return '/app/setup/hours?done=saved';
    },
    asPage(renderHours),
  );
  routes.action(
    '/app/setup/closures',
    async (app, form) => {
      const closures: { startDate: string; endDate: string; reason: string | null }[] = [];
      for (let index = 0; index < 600; index++) {
        const from = textOf(form, `c${index}.from`);
        const to = textOf(form, `c${index}.to`);
        if (from === null && to === null) {
          if (!form.has(`c${index}.from`)) break;
          continue;
        }
        closures.push({ startDate: from ?? to ?? '', endDate: to ?? from ?? '', reason: textOf(form, `c${index}.reason`) });
      }
      await app.call('set_closures', { closures, idempotency_key: form.get('idempotency_key') });
      return '/app/setup/hours?done=saved';
    },
    asPage(renderHours),
  );
}
