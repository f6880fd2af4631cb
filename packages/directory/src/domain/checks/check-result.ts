/**
 * The check result document (directory spec §2 "Check result", GET /b/{domain}.json, MCP
 * check_business): `domain`, `url`, `state`, `indexable` always; while queued, where it stands in
 * the queue and whether the day's crawler budget holds it back; once done, the score and grade,
 * the five answers, every capability with its evidence, the doors, the fixes worth most points and
 * its rank. A check under way still shows the last finished result under `last`. Nothing the site
 * wrote is put into our sentences: its own words appear only as values (a name, a tool's name in
 * `via`), cleaned, and MCP fences them.
 */
import type { CheckRecord } from '../../store/store.js';
import type { CheckOutcome } from './assess.js';
import { notListedBecause } from './found-listing.js';
import { scoreRulesUrl } from './score-rules.js';

export interface QueueView {
  position: number;
  /** open: checks run; spent: the day's crawler budget is used up; paused: the crawler is off. */
  budget: 'open' | 'spent' | 'paused';
  retry_after_s?: number;
}

export interface RankView {
  text: string;
  scope: { category?: string; country?: string; place?: string };
  position: number;
  of: number;
  overall: { position: number; of: number };
}

export interface ResultContext {
  baseUrl: string;
  nowMs: number;
  queue?: QueueView;
  rank?: RankView | null;
  /** The found listing of this domain is listed now. */
  listed?: boolean;
  /** The earliest a new check of this domain may be asked for. */
  nextCheckAllowedAt?: number | null;
}

const iso = (ms: number) => new Date(ms).toISOString();

export function resultUrl(baseUrl: string, domain: string): string {
  return `${baseUrl}/b/${domain}.json`;
}

const OWNER = {
  hide: 'Publish /.well-known/svc-check.json on your site with {"result": "hidden"}, then POST /check/visibility with your domain (or wait for the next check): the result is hidden at once. {"result": "shown"} shows it again.',
  opt_out: 'A Content-Signal line with ai-input=no (or ai-train=no) in robots.txt keeps the business out of the listing and the leaderboards; Disallow for svc-check keeps the crawler out.',
  claim: 'Register your own inbox with POST /v1/instances: a member speaks for itself and takes the place of a found entry.',
};

export const NOT_CERTIFICATION = 'What the business\'s published doors declare an agent can do, by published rules: not a certification, a review or a promise.';

function outcomeFields(o: CheckOutcome, baseUrl: string): Record<string, unknown> {
  return {
    checked_at: iso(o.checkedAt),
    rules: { version: o.rulesVersion, url: scoreRulesUrl(baseUrl, o.rulesVersion) },
    agentic_score: o.score,
    grade: o.grade,
    level: o.level,
    agent_ready: o.agentReady,
    ai_opt_out: o.aiOptOut,
    profile: o.profile,
    answers: o.answers,
    capabilities: o.capabilities,
    fixes: o.fixes,
    doors: o.doors,
    readable: o.readable,
  };
}

/** The document of a domain with no check yet. */
export function notCheckedDocument(domain: string, baseUrl: string): Record<string, unknown> {
  return {
    domain,
    url: `https://${domain}/`,
    state: 'not_checked',
    indexable: false,
    result_url: resultUrl(baseUrl, domain),
    how_to_check: `POST ${baseUrl}/check with {"url": "${domain}"}, or the MCP tool check_business. Reading this never starts a check.`,
  };
}

export function checkResultDocument(check: CheckRecord, ctx: ResultContext): Record<string, unknown> {
  const { baseUrl } = ctx;
  const o = check.outcome;
  const url = o?.url ?? `https://${check.domain}/`;
  const base = { domain: check.domain, url, result_url: resultUrl(baseUrl, check.domain) };
  if (check.state === 'hidden') {
    return { ...base, state: 'hidden', indexable: false, reason: check.lastReason ?? 'Its owner hides this result.', owner: OWNER };
  }
  const active = check.state === 'queued' || check.state === 'checking' || check.state === 'scoring';
  const doneNow = check.state === 'done' && o !== null;
  const indexable = doneNow && o.agentReady && !o.aiOptOut;
  const doc: Record<string, unknown> = { ...base, state: check.state, indexable };
  if (check.state === 'queued' && ctx.queue) doc.queue = ctx.queue;
  if (doneNow) {
    Object.assign(doc, outcomeFields(o, baseUrl));
    if (ctx.rank) doc.rank = ctx.rank;
    const because = notListedBecause(o, false);
    doc.listing = ctx.listed
      ? { listed: true, url: `${baseUrl}/v1/businesses/${check.domain}`, source: 'found' }
      : { listed: false, ...(because ? { because } : {}) };
    doc.usage = { requests: o.usage.requests, bytes: o.usage.bytes, skipped: o.usage.skipped };
  } else if (!active && check.state !== 'done') {
    doc.reason = check.lastReason ?? null;
    if (check.checkedAt !== null) doc.checked_at = iso(check.checkedAt);
  }
  if (active && check.lastState !== null) {
    doc.last = {
      state: check.lastState,
      ...(check.checkedAt !== null ? { checked_at: iso(check.checkedAt) } : {}),
      ...(check.lastState === 'done' && o ? { agentic_score: o.score, grade: o.grade, level: o.level } : {}),
    };
  }
  if (!active && check.nextCheckAt !== null) doc.next_check_at = iso(check.nextCheckAt);
  if (!active && ctx.nextCheckAllowedAt) doc.check_again_from = iso(ctx.nextCheckAllowedAt);
  doc.owner = OWNER;
  doc.not_certification = NOT_CERTIFICATION;
  return doc;
}
