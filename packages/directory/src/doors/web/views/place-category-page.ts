/**
 * One place category for a person (GET /c/{id} asked for by a browser; a program still gets the
 * JSON at the same address): its name in the page's language, where it sits (its group and the
 * categories above it, each a link), the categories below it, a search of the businesses in it, why
 * only members are listed in a regulated one, and the taxonomy it comes from with its licence.
 */
import { html } from '@svc/shared';
import { loadTaxonomy } from '../../../domain/vocab/taxonomy.js';
import type { DirectoryMessages } from '../messages.js';
import type { RenderedPage } from '../page-frame.js';
import { groupLabel, placeLabel } from './words.js';

export interface PlaceCategoryDocument {
  id: string;
  label: string;
  labels?: Record<string, string>;
  parent: string | null;
  path: string[];
  group?: string;
  regulated?: string;
  taxonomy?: { name: string; release: string; licence: string; url: string };
}

export function renderPlaceCategory(t: DirectoryMessages, lang: string, doc: PlaceCategoryDocument): RenderedPage {
  const langQuery = lang === 'en' ? '' : `?lang=${lang}`;
  const name = doc.labels?.[lang] ?? placeLabel(lang, doc.id, doc.label);
  const [groupSlug, ...above] = doc.path.slice(0, -1);
  const children = loadTaxonomy().childrenOf(doc.id);
  const crumbs = html`<nav aria-label="${t.categories.where}"><ol class="crumbs"><li><a href="/categories${langQuery}">${t.categories.title}</a></li>${
    groupSlug ? html`<li><a href="/categories/${encodeURIComponent(groupSlug)}${langQuery}">${groupLabel(lang, groupSlug)}</a></li>` : null
  }${above.map((id) => html`<li><a href="/c/${encodeURIComponent(id)}${langQuery}">${placeLabel(lang, id)}</a></li>`)}<li aria-current="page">${name}</li></ol></nav>`;
  const search = `/?category=${encodeURIComponent(doc.id)}${lang === 'en' ? '' : `&lang=${lang}`}`;
  const body = html`${crumbs}<h1>${name}</h1>
<p><a class="button primary" href="${search}">${t.categories.search}</a></p>
${doc.regulated ? html`<p class="notice warn"><strong>${t.categories.regulated}.</strong> <span lang="en">${doc.regulated}</span></p>` : null}
${children.length > 0 ? html`<section class="card" aria-labelledby="below-title"><h2 id="below-title">${t.categories.below}</h2><ul class="columns">${children.map(
    (c) => html`<li><a href="/c/${encodeURIComponent(c.id)}${langQuery}">${placeLabel(lang, c.id, c.label)}</a></li>`,
  )}</ul></section>` : null}
<p class="small muted">${t.categories.id}: <code>${doc.id}</code>${
    doc.taxonomy ? html` · ${t.categories.taxonomy}: <a href="${doc.taxonomy.url}" rel="noopener">${doc.taxonomy.name}</a> ${doc.taxonomy.release} (${doc.taxonomy.licence})` : html` · ${t.categories.ownCategory}`
  }</p>`;
  return {
    title: name,
    description: `${name}: ${t.categories.intro}`,
    canonical: `/c/${encodeURIComponent(doc.id)}`,
    json: `/c/${encodeURIComponent(doc.id)}`,
    indexable: true,
    section: 'categories',
    body,
  };
}
