/**
 * GET /v1/stats for a person (issue 38: the page showed the JSON's keys, "Api ok", "Mcp" and ISO
 * timestamps): every count says what it counts, in the page's language, with numbers and times as
 * the language writes them. The numbers are the JSON's, one for one.
 */
import { html, type Html } from '@svc/shared';
import type { DirectoryMessages } from '../messages.js';
import type { RenderedPage } from '../page-frame.js';
import { localeOf, wholeNumber } from './words.js';

export interface StatsDocument {
  instances_online: number;
  businesses_listed: number;
  activity_24h: { bookings: number; orders: number; quotes: number; messages: number };
  receipts_issued: number;
  receipts_acknowledged: number;
  reviews_published: number;
  status: { api: string; jobs_lag_seconds: number; last_sweep_at: string | null };
  directory: { checked: number; agent_ready: number; software_and_ai?: number; capabilities: Record<string, number>; doors: Record<string, number>; as_of: string };
  generated_at: string;
}

/** The zero time the contract gives as_of before any count was taken. */
const NO_COUNTS = '0001-01-01T00:00:00Z';

function utcTime(t: DirectoryMessages, lang: string, iso: string): string {
  const at = Date.parse(iso);
  if (!Number.isFinite(at)) return iso;
  return t.stats.utc(new Intl.DateTimeFormat(localeOf(lang), { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }).format(at));
}

export function renderStatsPage(t: DirectoryMessages, lang: string, stats: StatsDocument): RenderedPage {
  const s = t.stats;
  const n = (value: number) => wholeNumber(lang, value);
  const row = (label: string, value: number, json: string): Html => html`<tr><th scope="row">${label}</th><td class="num" data-json="${json}">${n(value)}</td></tr>`;
  const table = (id: string, caption: string, rows: Html[], head: [string, string] | null = null) =>
    html`<section class="card" aria-labelledby="${id}"><h2 id="${id}">${caption}</h2><div class="table-wrap"><table class="narrow">${
      head ? html`<thead><tr><th scope="col">${head[0]}</th><th scope="col">${head[1]}</th></tr></thead>` : null
    }<tbody>${rows}</tbody></table></div></section>`;
  const counted = stats.directory.as_of !== NO_COUNTS && !stats.directory.as_of.startsWith('0001-');
  const body = html`<h1>${s.title}</h1><p>${s.intro}</p>
${table('network-title', s.network, [row(s.instancesOnline, stats.instances_online, 'instances_online'), row(s.listed, stats.businesses_listed, 'businesses_listed')])}
<section class="card" aria-labelledby="activity-title"><h2 id="activity-title">${s.activity}</h2><p class="small muted">${s.activityNote}</p><div class="table-wrap"><table class="narrow"><tbody>
${row(s.bookings, stats.activity_24h.bookings, 'activity_24h.bookings')}${row(s.orders, stats.activity_24h.orders, 'activity_24h.orders')}${row(s.quotes, stats.activity_24h.quotes, 'activity_24h.quotes')}${row(s.messages, stats.activity_24h.messages, 'activity_24h.messages')}
</tbody></table></div></section>
${table('promises-title', s.promises, [row(s.receiptsIssued, stats.receipts_issued, 'receipts_issued'), row(s.receiptsAcknowledged, stats.receipts_acknowledged, 'receipts_acknowledged'), row(s.reviews, stats.reviews_published, 'reviews_published')])}
<section class="card" aria-labelledby="check-title"><h2 id="check-title">${s.check}</h2>${counted ? html`<p class="small muted">${s.asOf} ${utcTime(t, lang, stats.directory.as_of)}</p>` : html`<p class="notice warn">${s.notTaken}</p>`}
<div class="table-wrap"><table class="narrow"><tbody>${row(s.checked, stats.directory.checked, 'directory.checked')}${row(s.agentReady, stats.directory.agent_ready, 'directory.agent_ready')}${
    stats.directory.software_and_ai !== undefined ? row(s.software, stats.directory.software_and_ai, 'directory.software_and_ai') : null
  }</tbody></table></div>
<h3 id="capabilities-title">${s.capabilities}</h3><div class="table-wrap"><table class="narrow" aria-labelledby="capabilities-title"><thead><tr><th scope="col">${s.capability}</th><th scope="col">${s.count}</th></tr></thead><tbody>${Object.entries(
    stats.directory.capabilities,
  ).map(([key, value]) => row(t.capabilityNames[key] ?? key, value, `directory.capabilities.${key}`))}</tbody></table></div>
<h3 id="doors-title">${s.doors}</h3><div class="table-wrap"><table class="narrow" aria-labelledby="doors-title"><thead><tr><th scope="col">${s.door}</th><th scope="col">${s.count}</th></tr></thead><tbody>${Object.entries(
    stats.directory.doors,
  ).map(([key, value]) => row(t.check.doorNames[key] ?? key, value, `directory.doors.${key}`))}</tbody></table></div></section>
<section class="card" aria-labelledby="service-title"><h2 id="service-title">${s.service}</h2><dl class="facts">
<dt>${s.api}</dt><dd>${s.apiStates[stats.status.api] ?? stats.status.api}</dd>
<dt>${s.jobsLag}</dt><dd>${s.seconds(n(Math.round(stats.status.jobs_lag_seconds)))}</dd>
<dt>${s.lastOrder}</dt><dd>${stats.status.last_sweep_at ? utcTime(t, lang, stats.status.last_sweep_at) : s.never}</dd>
</dl><p class="small muted">${s.asOf} ${utcTime(t, lang, stats.generated_at)}</p></section>`;
  return { title: s.title, description: s.intro, canonical: '/stats', json: '/v1/stats', indexable: true, section: 'stats', body };
}
