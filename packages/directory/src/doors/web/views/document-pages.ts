/**
 * Pages over documents people read: categories (and one place category) and the ranking rules. Rules documents are nested and versioned, so they are rendered generically and
 * readably: each key as a heading or a term, its words as text, lists as lists.
 */
import { html, safeHref, type Html } from '@svc/shared';
import type { DirectoryMessages } from '../messages.js';
import type { RenderedPage } from '../page-frame.js';
import { placeLabel } from './words.js';

function label(key: string): string {
  const words = key.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Any JSON value as nested definition lists and lists; text escaped like every value. */
export function readableJson(value: unknown, depth = 0): Html {
  if (value === null || value === undefined) return html`<span class="muted">—</span>`;
  if (Array.isArray(value)) {
    if (value.every((entry) => typeof entry !== 'object' || entry === null)) return html`<ul>${value.map((entry) => html`<li>${String(entry)}</li>`)}</ul>`;
    return html`<ol>${value.map((entry) => html`<li>${readableJson(entry, depth + 1)}</li>`)}</ol>`;
  }
  if (typeof value === 'object') {
    return html`<dl class="doc">${Object.entries(value as Record<string, unknown>).map(
      ([key, inner]) => html`<dt>${label(key)}</dt><dd>${readableJson(inner, depth + 1)}</dd>`,
    )}</dl>`;
  }
  // The documents' own links (a rules version's url) are links; /v1 ones open their page's JSON.
  const href = typeof value === 'string' && /^https?:\/\//.test(value) ? safeHref(value) : null;
  return href ? html`<a href="${href}">${value as string}</a>` : html`${String(value)}`;
}

interface Category {
  slug: string;
  labels: Record<string, string>;
  kind: string;
}

export function renderCategories(t: DirectoryMessages, lang: string, categories: Category[]): RenderedPage {
  const kinds = [...new Set(categories.map((c) => c.kind))];
  const body = html`<h1>${t.categories.title}</h1><p>${t.categories.intro}</p>${kinds.map(
    (kind) => html`<section class="card" aria-labelledby="kind-${kind}"><h2 id="kind-${kind}">${t.categories.kinds[kind] ?? kind}</h2><ul class="columns">${categories
      .filter((c) => c.kind === kind)
      .map((c) => html`<li><a href="/categories/${encodeURIComponent(c.slug)}${lang === 'en' ? '' : `?lang=${lang}`}">${c.labels[lang] ?? c.labels.en ?? c.slug}</a></li>`)}</ul></section>`,
  )}`;
  return { title: t.categories.title, description: t.categories.intro, canonical: '/categories', json: '/v1/categories', indexable: true, section: 'categories', body };
}

interface Group {
  categories: Category[];
  place_categories?: { id: string; label: string; parent: string | null }[];
  taxonomy?: { name: string; release: string; licence: string; url: string };
}

export function renderCategoryGroup(t: DirectoryMessages, lang: string, slug: string, group: Group): RenderedPage | null {
  const category = group.categories.find((c) => c.slug === slug);
  if (!category) return null;
  const name = category.labels[lang] ?? category.labels.en ?? slug;
  const places = group.place_categories ?? [];
  const body = html`<p><a href="/categories${lang === 'en' ? '' : `?lang=${lang}`}">← ${t.categories.title}</a></p><h1>${name}</h1>
<p><a class="button primary" href="/?category=${encodeURIComponent(slug)}${lang === 'en' ? '' : `&lang=${lang}`}">${t.categories.search}</a></p>
${places.length > 0 ? html`<section class="card"><ul class="columns">${places.map(
    (p) => html`<li><a href="/?category=${encodeURIComponent(p.id)}${lang === 'en' ? '' : `&lang=${lang}`}">${placeLabel(lang, p.id, p.label)}</a> <a class="small muted" href="/c/${encodeURIComponent(p.id)}${lang === 'en' ? '' : `?lang=${lang}`}"><code>${p.id}</code></a></li>`,
  )}</ul></section>` : null}
${group.taxonomy ? html`<p class="small muted">${t.categories.taxonomy}: ${group.taxonomy.name} ${group.taxonomy.release} (${group.taxonomy.licence})</p>` : null}`;
  return { title: name, description: `${name}: ${t.categories.intro}`, canonical: `/categories/${encodeURIComponent(slug)}`, json: `/v1/categories?group=${encodeURIComponent(slug)}`, indexable: true, section: 'categories', body };
}

export function renderRanking(t: DirectoryMessages, rules: Record<string, unknown>, asked: number | null): RenderedPage {
  const { version, status, summary, ...rest } = rules as { version: number; status: string; summary?: string };
  const body = html`<h1>${t.ranking.title}</h1><p>${t.ranking.intro}</p>
<p><span class="badge accent">${t.ranking.version} ${version}</span> <span class="badge">${t.ranking.status}: ${status}</span></p>
${summary ? html`<p class="lead">${summary}</p>` : null}
<section class="card doc-body">${readableJson(rest)}</section>`;
  return {
    title: `${t.ranking.title} (${version})`,
    description: summary ?? t.ranking.intro,
    canonical: asked === null ? '/ranking' : `/ranking?version=${asked}`,
    json: asked === null ? '/v1/ranking' : `/v1/ranking?version=${asked}`,
    indexable: true,
    section: 'ranking',
    body,
  };
}
