/**
 * A site's check result (GET /b/{domain}, built from GET /b/{domain}.json): every state of the check
 * as it goes (not checked, queued with its place in the queue, checking, scoring) and how it ended
 * (done with the score, grade, the five answers with their doors and dates, every capability, the
 * fixes with how, the rank and the doors; blocked, failed, hidden, not checkable). A badge to embed
 * and "check again" (a plain form posting to POST /check). Indexed only as the JSON says
 * (`indexable`: agent-ready and not opted out); an opted-out site is never named, only its domain
 * (which is the page's address) is shown. Every value the site wrote (a tool's name in `via`, a
 * door's address) is escaped by `html` and never a link unless it is http(s).
 */
import { html, safeHref, type Html } from '@svc/shared';
import { DOOR_PREFERENCE } from '../../../domain/checks/assess.js';
import type { DirectoryMessages } from '../messages.js';
import type { RenderedPage } from '../page-frame.js';
import { badgeSnippet } from './badge.js';
import { checkAgainForm } from './check-form.js';
import { when, whenText } from './when.js';

export interface CheckResultView {
  domain: string;
  url: string;
  state: string;
  indexable: boolean;
  queue?: { position: number; budget: 'open' | 'spent' | 'paused'; retry_after_s?: number };
  checked_at?: string;
  rules?: { version: number; url: string };
  agentic_score?: number;
  grade?: string;
  level?: string;
  agent_ready?: boolean;
  ai_opt_out?: boolean;
  profile?: { id: string; label: string; from: string; category?: { group: string; label: string } };
  answers?: { capability: string; answer: string; door: { type: string; url: string } | null; how: string; checked_at: string }[];
  capabilities?: {
    id: string;
    group: string;
    state: string;
    evidence: string | null;
    basis?: string;
    via?: string;
    door?: { type: string; url: string };
    source_url?: string;
    weight: number;
    points: number;
    experimental?: boolean;
  }[];
  fixes?: { capability: string; points: number; title: string; how: string }[];
  doors?: { type: string; url: string; level: string; status: string; kinds: string[]; experimental?: boolean; failures?: number; last_live_at?: string | null; failing_since?: string }[];
  rank?: { text: string; scope: { category?: string; country?: string; place?: string }; position: number; of: number; overall: { position: number; of: number } };
  listing?: { listed: boolean; url?: string; because?: string };
  usage?: { requests: number; bytes: number };
  reason?: string | null;
  next_check_at?: string;
  check_again_from?: string;
  last?: { state: string; checked_at?: string; agentic_score?: number; grade?: string };
}

export interface ResultPageContext {
  t: DirectoryMessages;
  lang: string;
  baseUrl: string;
  /** The label of a category group in the page's language. */
  groupLabel: (slug: string) => string;
  /** The directory's page of this business when a member holds the domain (the result's `listing` covers found entries). */
  memberPage: string | null;
  /** What the visitor just asked for through the form (?asked=): queued, or too soon after the last check. */
  asked: 'queued' | 'recent' | null;
}

export const ACTIVE_STATES = new Set(['queued', 'checking', 'scoring']);

function langQuery(lang: string, first = true): string {
  return lang === 'en' ? '' : `${first ? '?' : '&'}lang=${lang}`;
}

function answerBadge(value: string, text: string): Html {
  const tone = value === 'yes' ? ' accent' : value === 'partly' || value === 'partial' ? ' warn' : value === 'no' ? ' bad' : '';
  return html`<span class="badge${tone}">${text}</span>`;
}

function leaderboardLink(scope: Record<string, string | undefined>, lang: string): string {
  const params = new URLSearchParams();
  for (const key of ['category', 'country', 'place']) if (scope[key]) params.set(key, scope[key] as string);
  if (lang !== 'en') params.set('lang', lang);
  const query = params.toString();
  return `/leaderboard${query ? `?${query}` : ''}`;
}

function scoreSection(ctx: ResultPageContext, r: CheckResultView): Html {
  const { t, lang } = ctx;
  const c = t.check;
  const rank = r.rank;
  const scopeWords = rank ? [rank.scope.category ? ctx.groupLabel(rank.scope.category) : null, rank.scope.country, rank.scope.place].filter(Boolean).join(' · ') : '';
  const software = r.profile?.category?.group === 'software-ai';
  return html`<section class="card scorecard" aria-labelledby="score-title"><h2 id="score-title" class="visually-hidden">${c.score}</h2>
<p class="grade grade-${r.grade ?? 'none'}" aria-label="${c.grade} ${r.grade ?? ''}">${r.grade}</p>
<div><p class="score-number">${r.agentic_score} <span class="small muted">${c.outOf}</span></p><p class="small muted">${c.score}</p></div>
<dl class="facts">
${r.level ? html`<dt>${c.level}</dt><dd>${t.levels[r.level] ?? r.level}</dd>` : null}
${r.profile ? html`<dt>${c.profile}</dt><dd>${t.profileNames[r.profile.id] ?? r.profile.label}${r.profile.category ? html` · ${ctx.groupLabel(r.profile.category.group)}` : null}</dd>` : null}
${rank ? html`<dt>${c.rank}</dt><dd><a href="${leaderboardLink(rank.scope, lang)}">${c.rankIn(rank.position, rank.of)}</a>${scopeWords ? html` <span class="small muted">(${scopeWords})</span>` : null}<br><a href="${leaderboardLink(software ? { category: 'software-ai' } : {}, lang)}">${c.rankOverall(rank.overall.position, rank.overall.of)}</a></dd>` : null}
${r.checked_at ? html`<dt>${c.checkedAt}</dt><dd>${when(lang, r.checked_at)}</dd>` : null}
${r.rules ? html`<dt>${t.nav.scoreRules}</dt><dd><a href="/score-rules?version=${r.rules.version}${langQuery(lang, false)}">${c.rules(r.rules.version)}</a></dd>` : null}
</dl></section>`;
}

function howOf(t: DirectoryMessages, r: CheckResultView, answer: NonNullable<CheckResultView['answers']>[number]): string {
  const c = t.check;
  if (answer.answer === 'yes') return answer.door ? c.through(c.doorNames[answer.door.type] ?? answer.door.type) : c.throughData;
  if (answer.answer === 'partly') return r.capabilities?.find((x) => x.id === answer.capability)?.experimental ? c.onlyExperimental : c.onlyPage;
  if (answer.answer === 'no') return c.nothing;
  return c.notApplicable;
}

function answersSection(ctx: ResultPageContext, r: CheckResultView): Html {
  const { t, lang } = ctx;
  const c = t.check;
  return html`<section class="card" aria-labelledby="answers-title"><h2 id="answers-title">${c.answersTitle}</h2><div class="table-wrap" tabindex="0" role="region" aria-labelledby="answers-title"><table class="answers"><thead><tr><th scope="col">${t.scoreRules.question}</th><th scope="col">${c.answer}</th><th scope="col">${c.how}</th><th scope="col">${c.door}</th><th scope="col">${c.checkedAt}</th></tr></thead><tbody>${(r.answers ?? []).map(
    (a) => html`<tr><th scope="row">${c.questions[a.capability] ?? a.capability}</th><td>${answerBadge(a.answer, c.answers[a.answer] ?? a.answer)}</td><td>${howOf(t, r, a)}</td><td>${
      a.door ? html`${c.doorNames[a.door.type] ?? a.door.type}<br><code class="small">${a.door.url}</code>` : html`<span class="muted">—</span>`
    }</td><td class="small">${when(lang, a.checked_at, true)}</td></tr>`,
  )}</tbody></table></div></section>`;
}

function fixesSection(ctx: ResultPageContext, r: CheckResultView): Html {
  const { t } = ctx;
  const c = t.check;
  const fixes = r.fixes ?? [];
  const best = DOOR_PREFERENCE.find((type) => (r.doors ?? []).some((d) => d.type === type && d.status === 'live')) ?? 'none';
  const words = (fix: (typeof fixes)[number]): { title: Html; how: Html } => {
    const own = c.fixes?.[fix.capability];
    if (own && c.fixDoors) return { title: html`${own.title}`, how: html`${own.how.replace('{door}', c.fixDoors[best] ?? c.fixDoors.none ?? '')}` };
    // The result's own words (English), marked as such on a page in another language.
    return t.lang === 'en' ? { title: html`${fix.title}`, how: html`${fix.how}` } : { title: html`<span lang="en">${fix.title}</span>`, how: html`<span lang="en">${fix.how}</span>` };
  };
  return html`<section class="card" aria-labelledby="fixes-title"><h2 id="fixes-title">${c.fixesTitle}</h2>${
    fixes.length === 0
      ? html`<p class="muted">${c.noFixes}</p>`
      : html`<ol class="fixes">${fixes.map((fix) => {
          const w = words(fix);
          return html`<li><strong>${w.title}</strong> <span class="badge accent">${c.plusPoints(fix.points)}</span> <span class="small muted">(${t.capabilityNames[fix.capability] ?? fix.capability})</span><br>${w.how}</li>`;
        })}</ol>`
  }</section>`;
}

function capabilitiesSection(ctx: ResultPageContext, r: CheckResultView): Html {
  const { t } = ctx;
  const c = t.check;
  return html`<section class="card" aria-labelledby="capabilities-title"><h2 id="capabilities-title">${c.capabilitiesTitle}</h2><div class="table-wrap" tabindex="0" role="region" aria-labelledby="capabilities-title"><table class="capabilities"><thead><tr><th scope="col">${c.capability}</th><th scope="col">${c.group}</th><th scope="col">${c.state}</th><th scope="col">${c.evidence}</th><th scope="col">${c.points}</th></tr></thead><tbody>${(r.capabilities ?? []).map((cap) => {
    const source = safeHref(cap.source_url);
    return html`<tr${cap.state === 'na' ? html` class="muted"` : null}><th scope="row">${t.capabilityNames[cap.id] ?? cap.id}</th><td>${t.groupNames[cap.group] ?? cap.group}</td><td>${answerBadge(cap.state, c.capabilityStates[cap.state] ?? cap.state)}${cap.experimental ? html` <span class="badge">${c.experimental}</span>` : null}</td><td class="small">${
      cap.via ? html`${cap.via}` : null
    }${cap.door ? html`<br>${c.doorNames[cap.door.type] ?? cap.door.type}` : null}${source ? html`<br><a href="${source}" rel="nofollow noopener noreferrer">${new URL(source).pathname}</a>` : null}</td><td class="num">${cap.state === 'na' ? '—' : cap.points.toFixed(1)}</td></tr>`;
  })}</tbody></table></div></section>`;
}

/** When a door last answered, and its failures: a door is failing after three in seven days (docs/checks.md). */
function doorHistory(lang: string, c: DirectoryMessages['check'], door: NonNullable<CheckResultView['doors']>[number]): Html | null {
  if (door.last_live_at === undefined) return null;
  const parts: (Html | string)[] = [];
  if (door.failing_since) parts.push(html`${c.doorFailingSince} ${when(lang, door.failing_since)}`);
  if ((door.failures ?? 0) > 0 && !door.failing_since) parts.push(c.doorFailures(door.failures ?? 0));
  parts.push(door.last_live_at === null ? c.doorNeverLive : html`${c.doorLastLive} ${when(lang, door.last_live_at)}`);
  return html`<br><span class="small door-history">${parts.map((p, i) => (i === 0 ? html`${p}` : html` · ${p}`))}</span>`;
}

function doorsSection(ctx: ResultPageContext, r: CheckResultView): Html {
  const { t, lang } = ctx;
  const c = t.check;
  const doors = r.doors ?? [];
  return html`<section class="card" aria-labelledby="result-doors-title"><h2 id="result-doors-title">${c.doorsTitle}</h2>${
    doors.length === 0
      ? html`<p class="muted">${c.noDoors}</p>`
      : html`<ul>${doors.map(
          (door) => html`<li><strong>${c.doorNames[door.type] ?? door.type}</strong> <span class="badge${door.status === 'live' ? ' accent' : ' warn'}">${door.status}</span> <span class="small">${t.levels[door.level] ?? door.level}${door.kinds.length > 0 ? ` · ${door.kinds.join(', ')}` : ''}${door.experimental ? ` · ${c.experimental}` : ''}</span><br><code class="small">${door.url}</code>${doorHistory(lang, c, door)}</li>`,
        )}</ul>`
  }</section>`;
}

function listingSection(ctx: ResultPageContext, r: CheckResultView): Html {
  const { t, lang } = ctx;
  const c = t.check;
  const page = `/businesses/${encodeURIComponent(r.domain)}${langQuery(lang)}`;
  let body: Html;
  if (r.listing?.listed) body = html`<p>${c.listedFound} <a href="${page}">${c.businessPage}</a></p>`;
  else if (ctx.memberPage) body = html`<p>${c.listedMember} <a href="${ctx.memberPage}${langQuery(lang)}">${c.businessPage}</a></p>`;
  else {
    const because = r.listing?.because;
    const words = because ? (c.because?.[because] ?? because) : null;
    body = html`<p>${c.notListed}${words ? html`: ${t.lang !== 'en' && !c.because?.[because as string] ? html`<span lang="en">${words}</span>` : words}` : null}.</p>`;
  }
  return html`<section class="card" aria-labelledby="listing-title"><h2 id="listing-title">${c.listingTitle}</h2>${body}${
    r.usage ? html`<p class="small muted">${c.usage(r.usage.requests, Math.ceil(r.usage.bytes / 1024))}</p>` : null
  }</section>`;
}

function badgeSection(ctx: ResultPageContext, r: CheckResultView): Html {
  const { t, baseUrl } = ctx;
  const c = t.check;
  const alt = c.badgeAlt(r.domain);
  return html`<section class="card" aria-labelledby="badge-title"><h2 id="badge-title">${c.badgeTitle}</h2><p>${c.badgeIntro}</p>
<p><img src="/b/${r.domain}/badge.svg" alt="${alt}" height="20"></p>
<label for="badge-snippet">${c.snippet}</label><textarea id="badge-snippet" class="snippet" readonly rows="3">${badgeSnippet(baseUrl, r.domain, alt)}</textarea></section>`;
}

function reasonLine(t: DirectoryMessages, r: CheckResultView): Html | null {
  if (!r.reason) return null;
  // Our own words (the crawler's), in English.
  return html`<p class="small"><strong>${t.check.why}:</strong> ${t.lang === 'en' ? r.reason : html`<span lang="en">${r.reason}</span>`}</p>`;
}

function stateSection(ctx: ResultPageContext, r: CheckResultView): Html {
  const { t, lang } = ctx;
  const c = t.check;
  const dates = html`<dl class="facts">${r.checked_at ? html`<dt>${c.checkedAt}</dt><dd>${when(lang, r.checked_at)}</dd>` : null}${
    r.next_check_at ? html`<dt>${c.nextCheck}</dt><dd>${when(lang, r.next_check_at)}</dd>` : null
  }</dl>`;
  switch (r.state) {
    case 'not_checked':
      return html`<p class="notice">${c.notChecked}</p>${checkAgainForm(t, lang, r.domain, c.checkThis)}`;
    case 'queued':
    case 'checking':
    case 'scoring': {
      const queue = r.queue;
      const words =
        r.state === 'queued'
          ? html`${queue ? c.queuePosition(queue.position) : null} ${
              queue?.budget === 'spent' ? c.budgetSpent(Math.max(1, Math.ceil((queue.retry_after_s ?? 0) / 3600))) : queue?.budget === 'paused' ? c.budgetPaused : c.budgetOpen
            }`
          : html`${r.state === 'checking' ? c.checking : c.scoring} ${c.budgetOpen}`;
      const last = r.last;
      return html`<div class="notice" role="status" data-check-progress="/b/${r.domain}.json" data-state="${r.state}" data-position="${queue?.position ?? ''}"><p><strong>${c.states[r.state]}.</strong> ${words}</p><p><a href="/b/${r.domain}${langQuery(lang)}">${c.reload}</a></p></div>${
        last
          ? html`<section class="card" aria-labelledby="last-title"><h2 id="last-title">${c.last}</h2><p>${c.states[last.state] ?? last.state}${
              last.grade ? html` · ${c.grade} <strong>${last.grade}</strong> (${last.agentic_score} ${c.outOf})` : null
            }${last.checked_at ? html` · ${when(lang, last.checked_at)}` : null}</p></section>`
          : null
      }`;
    }
    case 'blocked':
      return html`<p class="notice warn">${c.blocked}</p>${reasonLine(t, r)}${dates}`;
    case 'failed':
      return html`<p class="notice warn">${c.failed}</p>${reasonLine(t, r)}${dates}`;
    case 'hidden':
      return html`<p class="notice">${c.hidden}</p>`;
    case 'not_checkable':
      return html`<p class="notice warn">${c.notCheckable}</p>${reasonLine(t, r)}${dates}`;
    default:
      return html``;
  }
}

function doneSections(ctx: ResultPageContext, r: CheckResultView): Html {
  const c = ctx.t.check;
  return html`${r.ai_opt_out ? html`<p class="notice warn">${c.optOut}</p>` : null}
${scoreSection(ctx, r)}
${answersSection(ctx, r)}
${fixesSection(ctx, r)}
<div class="business-grid">${doorsSection(ctx, r)}${listingSection(ctx, r)}</div>
${capabilitiesSection(ctx, r)}`;
}

function description(t: DirectoryMessages, r: CheckResultView): string {
  const c = t.check;
  if (r.state === 'done' && r.grade) {
    const answers = (r.answers ?? []).filter((a) => a.answer !== 'not_applicable').map((a) => `${t.capabilityNames[a.capability] ?? a.capability}: ${(c.answers[a.answer] ?? a.answer).toLowerCase()}`);
    return `${r.domain}: ${c.grade} ${r.grade}, ${r.agentic_score} ${c.outOf}. ${answers.join(', ')}.`;
  }
  return `${r.domain}: ${c.states[r.state] ?? r.state}.`;
}

export function renderCheckResultPage(ctx: ResultPageContext, r: CheckResultView): RenderedPage {
  const { t, lang } = ctx;
  const c = t.check;
  const active = ACTIVE_STATES.has(r.state);
  const canAskAgain = !active && r.state !== 'hidden' && r.state !== 'not_checked';
  const notice =
    ctx.asked === 'queued' && active
      ? html`<p class="notice ok" role="status">${c.askedQueued}</p>`
      : ctx.asked === 'recent' && !active
        ? html`<p class="notice" role="status">${c.askedRecent}</p>`
        : null;
  const body = html`<p><a href="/leaderboard${langQuery(lang)}">← ${t.nav.leaderboard}</a></p>
<h1>${c.title(r.domain)}</h1>
<p class="lead"><span class="badge${r.state === 'done' ? ' accent' : ''}">${c.states[r.state] ?? r.state}</span> ${c.intro}</p>
${notice}
${stateSection(ctx, r)}
${r.state === 'done' ? doneSections(ctx, r) : null}
${canAskAgain ? html`<section class="card" aria-labelledby="again-title"><h2 id="again-title">${c.again}</h2>${r.check_again_from ? html`<p class="small">${c.againFrom(whenText(lang, r.check_again_from))}</p>` : null}${checkAgainForm(t, lang, r.domain, c.again)}</section>` : null}
${active ? html`<p class="small muted">${c.underWay}</p>` : null}
${r.state === 'done' ? badgeSection(ctx, r) : null}
<section class="card" aria-labelledby="owner-title"><h2 id="owner-title">${c.ownerTitle}</h2><ul><li>${c.ownerHide}</li><li>${c.ownerOptOut}</li><li>${c.ownerClaim}</li></ul></section>
<p class="small muted">${t.notCertification}</p>`;
  return {
    title: c.title(r.domain),
    description: description(t, r),
    canonical: `/b/${r.domain}`,
    json: `/b/${r.domain}.json`,
    // Exactly as the result says (directory spec §4): agent-ready and not opted out.
    indexable: r.indexable === true,
    section: 'leaderboard',
    script: active ? 'check-progress' : null,
    body,
  };
}
