/**
 * One business: its doors for agents, hours with "open now" in its own zone, services, receipts and
 * reputation, and for a business the directory found (not a member) every fact with its source and
 * date. A found business is never indexed (directory spec §4: X-Robots-Tag noindex); its page says it
 * was found and links to how to correct or remove it.
 */
import { html, safeHref, type Html } from '@svc/shared';
import type { DirectoryMessages } from '../messages.js';
import type { RenderedPage } from '../page-frame.js';
import { openBadge, whyText, type ListingView } from './listing-card.js';
import { calendarDate, countryName, languageName, placeLabel, scoreNumber, wholeNumber } from './words.js';

const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;

function link(url: string | undefined, text?: string): Html | string {
  const href = safeHref(url);
  return href ? html`<a href="${href}" rel="nofollow noopener noreferrer">${text ?? href}</a>` : (text ?? url ?? '');
}

function factValue(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** The business's agentic check result, when it has one: where it is and what it says in a few words. */
export interface CheckLink {
  href: string;
  text: string;
}

export function renderBusinessPage(t: DirectoryMessages, listing: ListingView, lang: string, check: CheckLink | null = null): RenderedPage {
  const b = t.business;
  const where = [listing.address?.street, listing.address?.postal_code, listing.city ?? listing.address?.locality, listing.country ? countryName(lang, listing.country) : undefined].filter(Boolean).join(', ');
  const doors = listing.doors ?? [];
  const hours = listing.hours;
  const facts = listing.facts ?? [];
  const body = html`<p><a href="/${lang === 'en' ? '' : `?lang=${lang}`}">← ${t.nav.search}</a></p>
<h1>${listing.name}</h1>
<p>${openBadge(t, listing)}${listing.level ? html` <span class="badge">${t.levels[listing.level] ?? listing.level}</span>` : null}${
    listing.source ? html` <span class="badge${listing.source === 'member' ? ' accent' : ''}">${t.sources[listing.source] ?? listing.source}</span>` : null
  }</p>
${listing.found ? html`<p class="notice warn">${b.found} <a href="${safeHref(listing.found.about_url) ?? '#'}">${b.about}</a></p>` : null}
${listing.description ? html`<p>${listing.description}</p>` : null}
${listing.why ? html`<p class="why"><strong>${t.search.why}:</strong> ${whyText(listing, lang)}</p>` : null}
<div class="business-grid">
<section class="card" aria-labelledby="about-title"><h2 id="about-title">${listing.name}</h2><dl class="facts">
${where ? html`<dt>${b.address}</dt><dd>${where}</dd>` : null}
${listing.url ? html`<dt>${b.website}</dt><dd>${link(listing.url)}</dd>` : null}
${listing.languages.length > 0 ? html`<dt>${b.languages}</dt><dd>${listing.languages.map((tag) => languageName(lang, tag)).join(', ')}</dd>` : null}
${listing.rank_pos !== undefined ? html`<dt>${b.place}</dt><dd>${wholeNumber(lang, listing.rank_pos)}</dd>` : null}
${check ? html`<dt>${b.check}</dt><dd><a href="${check.href}">${check.text}</a></dd>` : null}
${listing.category ? html`<dt>${t.search.category}</dt><dd><a href="/c/${encodeURIComponent(listing.category.primary.id)}${lang === 'en' ? '' : `?lang=${lang}`}">${placeLabel(lang, listing.category.primary.id, listing.category.primary.label)}</a></dd>` : null}
</dl></section>
<section class="card" aria-labelledby="doors-title"><h2 id="doors-title">${b.doors}</h2>${
    doors.length === 0
      ? html`<p class="muted">${b.noDoors}</p>`
      : html`<ul>${doors.map(
          (door) => html`<li><strong>${t.check.doorNames[door.type] ?? door.type}</strong> <span class="badge${door.status === 'live' ? ' accent' : ' warn'}">${t.doorStates[door.status] ?? door.status}</span> <span class="small">${t.levels[door.level] ?? door.level} · ${door.kinds.map((kind) => t.kinds[kind] ?? kind).join(', ')}</span><br><code class="small">${door.url}</code></li>`,
        )}</ul>`
  }</section>
<section class="card" aria-labelledby="hours-title"><h2 id="hours-title">${b.hours}</h2>${
    hours
      ? html`<p class="small muted">${b.timezone(hours.timezone)}</p><table class="hours"><tbody>${DAYS.map(
          (day) => html`<tr><th scope="row">${t.days[day]}</th><td>${(hours.weekly[day] ?? []).length === 0 ? b.closed : (hours.weekly[day] ?? []).map(([from, to]) => `${from}–${to}`).join(', ')}</td></tr>`,
        )}</tbody></table>${hours.closures.length > 0 ? html`<p class="small">${b.closures}: ${hours.closures.map((c) => (c.from === c.to ? calendarDate(lang, c.from) : `${calendarDate(lang, c.from)} – ${calendarDate(lang, c.to)}`)).join('; ')}</p>` : null}`
      : html`<p class="muted">${t.search.noHours}</p>`
  }</section>
${listing.services.length > 0 ? html`<section class="card" aria-labelledby="services-title"><h2 id="services-title">${b.services}</h2><ul>${listing.services.map((s) => html`<li>${s.name} <span class="small muted">(${t.itemTypes[s.type] ?? s.type})</span></li>`)}</ul></section>` : null}
<section class="card" aria-labelledby="receipts-title"><h2 id="receipts-title">${b.receipts}</h2><dl class="facts">
<dt>${b.issued}</dt><dd>${wholeNumber(lang, listing.receipts.issued)}</dd><dt>${b.acknowledged}</dt><dd>${wholeNumber(lang, listing.receipts.acknowledged)}</dd>${
    listing.receipts.customers !== undefined ? html`<dt>${b.customers}</dt><dd>${wholeNumber(lang, listing.receipts.customers)}</dd>` : null
  }</dl>
${listing.reputation ? html`<h3>${b.reputation}</h3><dl class="facts"><dt>${b.tier}</dt><dd>${t.tiers[listing.reputation.tier] ?? listing.reputation.tier}</dd><dt>${b.score}</dt><dd>${scoreNumber(lang, listing.reputation.score)}</dd><dt>${b.kept}</dt><dd>${wholeNumber(lang, listing.reputation.kept)}</dd><dt>${b.broken}</dt><dd>${wholeNumber(lang, listing.reputation.broken)}</dd></dl>` : null}
</section>
</div>
${facts.length > 0 ? html`<section class="card" aria-labelledby="facts-title"><h2 id="facts-title">${b.facts}</h2><div class="table-wrap"><table><thead><tr><th scope="col">${b.field}</th><th scope="col">${b.value}</th><th scope="col">${b.source}</th><th scope="col">${b.seen}</th></tr></thead><tbody>${facts.map(
    (fact) => html`<tr><td><code>${fact.field}</code></td><td>${factValue(fact.v)}</td><td>${t.factSources[fact.src] ?? fact.src}${fact.url ? html` · ${link(fact.url, new URL(fact.url).hostname)}` : null}${fact.via ? html` <span class="small muted">(${fact.via})</span>` : null}</td><td><time datetime="${fact.at}">${calendarDate(lang, fact.at)}</time></td></tr>`,
  )}</tbody></table></div></section>` : null}`;
  return {
    title: listing.name,
    description: listing.description ?? [listing.name, listing.city].filter(Boolean).join(', '),
    canonical: `/businesses/${encodeURIComponent(listing.domain)}`,
    json: `/v1/businesses/${encodeURIComponent(listing.domain)}`,
    // A business the directory found is never indexed (directory spec §4).
    indexable: listing.source !== 'found',
    section: 'none',
    body,
  };
}
