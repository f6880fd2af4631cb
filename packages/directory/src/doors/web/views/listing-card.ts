/**
 * One result of a search, saying why it is in its place (the listing's own `why`, in the page's
 * language), what it matched, its place and what it takes. Data words (category, country, distance,
 * level) in the page's language.
 */
import { attr, html, type Html } from '@svc/shared';
import type { DirectoryMessages } from '../messages.js';
import { whyInLanguage } from './why-words.js';
import { countryName, kilometres, placeLabel } from './words.js';

export interface ListingView {
  domain: string;
  name: string;
  description?: string;
  city?: string;
  country?: string;
  address?: { street?: string; locality?: string; postal_code?: string; country?: string };
  categories: string[];
  tags: string[];
  languages: string[];
  item_types: string[];
  protocols: Record<string, string>;
  hours?: { timezone: string; weekly: Record<string, [string, string][]>; closures: { from: string; to: string }[] };
  open_now: boolean | null;
  services: { name: string; type: string }[];
  url?: string;
  receipts: { issued: number; acknowledged: number; customers?: number; last_at?: string };
  answering: boolean;
  rank_pos?: number;
  distance_km?: number;
  reputation?: { ranked: boolean; score: number; tier: string; kept: number; broken: number; customers: number; rules_url: string };
  source?: string;
  claimed?: boolean;
  level?: string;
  doors?: { type: string; url: string; level: string; status: string; kinds: string[]; src: string; protocol?: string; checked_at?: string }[];
  category?: { primary: { id: string; label: string }; alternates?: { id: string; label: string }[]; path: string[]; group?: string };
  why?: string;
  found?: { note: string; checked_at: string; about_url: string };
  facts?: { field: string; v: unknown; src: string; at: string; url?: string; via?: string }[];
  outcomes?: Record<string, number>;
}

export function openBadge(t: DirectoryMessages, listing: Pick<ListingView, 'open_now'>): Html {
  if (listing.open_now === true) return html`<span class="badge accent">${t.search.openBadge}</span>`;
  if (listing.open_now === false) return html`<span class="badge">${t.search.closedBadge}</span>`;
  return html`<span class="badge muted">${t.search.noHours}</span>`;
}

/** The `why` in the page's language; a sentence it has no words for stays English, marked so. */
export function whyText(listing: Pick<ListingView, 'why'>, lang: string): Html | null {
  if (!listing.why) return null;
  return html`${whyInLanguage(listing.why, lang).map((part, i) => html`${i > 0 ? ' ' : ''}${part.lang === lang ? part.text : html`<span lang="${part.lang}">${part.text}</span>`}`)}`;
}

export interface CardContext {
  lang: string;
  langQuery: string;
  /** What it matched, in words (matched.ts); none when nothing was asked for. */
  matched: string[];
}

export function renderCard(t: DirectoryMessages, listing: ListingView, card: CardContext): Html {
  const { lang } = card;
  const where = [listing.city, listing.country ? countryName(lang, listing.country) : undefined].filter(Boolean).join(', ');
  const category = listing.category ? placeLabel(lang, listing.category.primary.id, listing.category.primary.label) : '';
  return html`<li class="card result">
<h3><a href="/businesses/${encodeURIComponent(listing.domain)}${card.langQuery}">${listing.name}</a> ${listing.rank_pos !== undefined ? html`<span class="muted small">${t.search.place(listing.rank_pos)}</span>` : null}</h3>
<p class="meta small">${[where, category].filter(Boolean).join(' · ')}${listing.distance_km !== undefined ? html` · <span class="distance">${t.search.km(kilometres(lang, listing.distance_km))}</span>` : null}</p>
<p class="badges">${openBadge(t, listing)}${listing.level ? html` <span class="badge">${t.levels[listing.level] ?? listing.level}</span>` : null}${
    listing.source ? html` <span class="badge${listing.source === 'member' ? ' accent' : ''}">${t.sources[listing.source] ?? listing.source}</span>` : null
  }</p>
${card.matched.length > 0 ? html`<p class="matched small"><strong>${t.search.matchedLabel}:</strong> ${card.matched.join('; ')}</p>` : null}
${listing.description ? html`<p>${listing.description}</p>` : null}
${listing.why ? html`<p class="why small"><strong>${t.search.why}:</strong> ${whyText(listing, lang)}</p>` : null}
${listing.services.length > 0 ? html`<p class="small muted">${listing.services.slice(0, 4).map((s) => s.name).join(' · ')}</p>` : null}
</li>`;
}

export function selected(condition: boolean): Html {
  return attr('selected', condition ? 'selected' : null);
}
