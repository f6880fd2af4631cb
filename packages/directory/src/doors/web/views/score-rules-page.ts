/**
 * The score rules (GET /score-rules[?version=n], built from GET /v1/score-rules): the capabilities,
 * their groups and weights, the profile of each kind of business, the formula, the grades, the
 * states, the fixes and the changelog as tables and sentences people read; anything else a version
 * publishes is rendered generically (readableJson), so a new version needs no new template. The
 * rules are published in English; on a page in another language their words are marked so.
 */
import { html, type Html } from '@svc/shared';
import type { DirectoryMessages } from '../messages.js';
import type { RenderedPage } from '../page-frame.js';
import { readableJson } from './document-pages.js';
import { when } from './when.js';

interface ScoreRulesView {
  version: number;
  name?: string;
  status: string;
  effective_at?: string;
  summary?: string;
  capabilities?: { id: string; journey?: string; label?: string; question?: string; group?: string }[];
  groups: { id: string; weight: number; members?: string[]; scored?: boolean }[];
  profiles: { id: string; label?: string; noun?: string; applicable?: string[]; either?: string[][]; groups?: string[] }[];
  formula: string;
  grades?: { grade: string; min: number }[];
  states?: Record<string, string>;
  fixes?: { rule?: string; texts?: Record<string, { title: string; how: string }> };
  changelog?: { version: number; published_at?: string; effective_at?: string; summary?: string }[];
  [key: string]: unknown;
}

const SHOWN = new Set(['version', 'name', 'status', 'published_at', 'effective_at', 'summary', 'url', 'capabilities', 'groups', 'profiles', 'formula', 'grades', 'states', 'fixes', 'changelog']);

export function renderScoreRules(t: DirectoryMessages, lang: string, rules: ScoreRulesView, asked: number | null, groupLabel: (slug: string) => string): RenderedPage {
  const s = t.scoreRules;
  /** Words of the published document (English). */
  const doc = (text: string | undefined): Html | string => (text === undefined ? '' : lang === 'en' ? text : html`<span lang="en">${text}</span>`);
  const capability = (id: string) => t.capabilityNames[id] ?? id;
  const langSuffix = lang === 'en' ? '' : `&lang=${lang}`;
  const rest = Object.fromEntries(Object.entries(rules).filter(([key]) => !SHOWN.has(key)));

  const body = html`<h1>${s.title}</h1><p>${s.intro}</p>
<p><span class="badge accent">${s.version} ${rules.version}</span> <span class="badge">${s.status}: ${s.statuses[rules.status] ?? rules.status}</span>${rules.effective_at ? html` <span class="small muted">${s.inForceSince} ${when(lang, rules.effective_at, true)}</span>` : null}</p>
${rules.summary ? html`<p class="lead">${doc(rules.summary)}</p>` : null}
${lang === 'en' ? null : html`<p class="small muted">${s.documentLanguage}</p>`}
<section class="card" aria-labelledby="groups-title"><h2 id="groups-title">${s.groups}</h2><div class="table-wrap" tabindex="0" role="region" aria-labelledby="groups-title"><table><thead><tr><th scope="col">${t.check.group}</th><th scope="col">${s.weight}</th><th scope="col">${s.members}</th></tr></thead><tbody>${rules.groups.map(
    (g) => html`<tr><th scope="row">${t.groupNames[g.id] ?? g.id} <code class="small muted">${g.id}</code></th><td class="num">${g.weight}${g.weight === 0 ? html` <span class="small muted">(${s.unscored})</span>` : null}</td><td>${(g.members ?? []).map(capability).join(', ')}</td></tr>`,
  )}</tbody></table></div></section>
${rules.capabilities ? html`<section class="card" aria-labelledby="capabilities-title"><h2 id="capabilities-title">${s.capabilities}</h2><div class="table-wrap" tabindex="0" role="region" aria-labelledby="capabilities-title"><table><thead><tr><th scope="col">${t.check.capability}</th><th scope="col">${s.question}</th><th scope="col">${t.check.group}</th><th scope="col">${s.journey}</th></tr></thead><tbody>${rules.capabilities.map(
    (c) => html`<tr><th scope="row">${capability(c.id)} <code class="small muted">${c.id}</code></th><td>${doc(c.question)}</td><td>${c.group ? (t.groupNames[c.group] ?? c.group) : ''}</td><td>${doc(c.journey)}</td></tr>`,
  )}</tbody></table></div></section>` : null}
<section class="card" aria-labelledby="profiles-title"><h2 id="profiles-title">${s.profiles}</h2><div class="table-wrap" tabindex="0" role="region" aria-labelledby="profiles-title"><table><thead><tr><th scope="col">${s.profile}</th><th scope="col">${s.applies}</th><th scope="col">${s.categoryGroups}</th></tr></thead><tbody>${rules.profiles.map(
    (p) => html`<tr><th scope="row">${t.profileNames[p.id] ?? p.label ?? p.id}</th><td>${(p.applicable ?? []).map(capability).join(', ')}${
      (p.either ?? []).length > 0 ? html`<br><span class="small">${(p.either ?? []).map((set) => `${s.either}: ${set.map(capability).join(' / ')}`).join('; ')}</span>` : null
    }</td><td>${(p.groups ?? []).map((g, i) => html`${i > 0 ? ', ' : ''}<a href="/categories/${encodeURIComponent(g)}${lang === 'en' ? '' : `?lang=${lang}`}">${groupLabel(g)}</a>`)}</td></tr>`,
  )}</tbody></table></div></section>
<section class="card" aria-labelledby="formula-title"><h2 id="formula-title">${s.formula}</h2><p>${doc(rules.formula)}</p>${
    rules.grades ? html`<h3 id="grades-title">${s.grades}</h3><div class="table-wrap" tabindex="0" role="region" aria-labelledby="grades-title"><table class="narrow"><thead><tr><th scope="col">${s.grade}</th><th scope="col">${s.from}</th></tr></thead><tbody>${rules.grades.map(
      (g) => html`<tr><th scope="row"><span class="grade-chip grade-${g.grade}">${g.grade}</span></th><td class="num">${g.min}</td></tr>`,
    )}</tbody></table></div>` : null
  }</section>
${rules.states ? html`<section class="card" aria-labelledby="states-title"><h2 id="states-title">${s.states}</h2><dl class="facts">${Object.entries(rules.states).map(
    ([state, meaning]) => html`<dt>${t.check.capabilityStates[state] ?? state}</dt><dd>${doc(meaning)}</dd>`,
  )}</dl></section>` : null}
${rules.fixes ? html`<section class="card" aria-labelledby="fixes-title"><h2 id="fixes-title">${s.fixes}</h2>${rules.fixes.rule ? html`<p>${doc(rules.fixes.rule)}</p>` : null}<div class="table-wrap" tabindex="0" role="region" aria-labelledby="fixes-title"><table><thead><tr><th scope="col">${t.check.capability}</th><th scope="col">${s.fix}</th></tr></thead><tbody>${Object.entries(rules.fixes.texts ?? {}).map(
    ([id, fix]) => html`<tr><th scope="row">${capability(id)}</th><td><strong>${doc(fix.title)}</strong><br>${doc(fix.how)}</td></tr>`,
  )}</tbody></table></div></section>` : null}
${rules.changelog ? html`<section class="card" aria-labelledby="changelog-title"><h2 id="changelog-title">${s.changelog}</h2><ol class="plain">${rules.changelog.map(
    (entry) => html`<li><a href="/score-rules?version=${entry.version}${langSuffix}">${s.version} ${entry.version}</a>${entry.effective_at ? html` · ${when(lang, entry.effective_at, true)}` : null}${entry.summary ? html`<br>${doc(entry.summary)}` : null}</li>`,
  )}</ol></section>` : null}
${Object.keys(rest).length > 0 ? html`<section class="card doc-body" aria-labelledby="rest-title"${lang === 'en' ? null : html` lang="en"`}><h2 id="rest-title"${lang === 'en' ? null : html` lang="${lang}"`}>${s.rest}</h2>${readableJson(rest)}</section>` : null}`;
  return {
    title: `${s.title} (${rules.version})`,
    description: rules.summary ?? s.intro,
    canonical: asked === null ? '/score-rules' : `/score-rules?version=${asked}`,
    json: asked === null ? '/v1/score-rules' : `/v1/score-rules?version=${asked}`,
    indexable: true,
    section: 'score-rules',
    body,
  };
}
