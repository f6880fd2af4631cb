/**
 * The published score rules (directory spec §4 GET /v1/score-rules, §9): versioned, every version
 * ever published readable. Written from the tables the score itself reads (capabilities.ts), so
 * the document cannot say one thing while the score does another.
 */
import { firstInstantAfter } from '../ranking/rules.js';
import { ANSWER_CAPABILITIES, CAPABILITIES, FIXES, GRADES, GROUPS, PROFILES } from './capabilities.js';

export interface ScoreRulesVersion {
  version: number;
  publishedAt: string;
  effectiveAt: string;
  summary: string;
}

/** Every version ever published, oldest first. */
export const SCORE_RULES_VERSIONS: readonly ScoreRulesVersion[] = Object.freeze([
  {
    version: 1,
    publishedAt: '2026-11-20T00:00:00Z',
    effectiveAt: '2026-11-20T00:00:00Z',
    summary:
      'First rules: twenty capabilities in seven groups, nine profiles by category group, credit yes 1, partial ½, no 0, the score rounded half up to a whole number from 0 to 100, grades A to E, and the fixes worth most points.',
  },
]);

export const SCORE_RULES_NAME = 'Agentic score';

export function scoreRulesInForce(nowMs: number): ScoreRulesVersion {
  const inForce = SCORE_RULES_VERSIONS.filter((v) => Date.parse(v.effectiveAt) <= nowMs);
  return inForce[inForce.length - 1] ?? (SCORE_RULES_VERSIONS[0] as ScoreRulesVersion);
}

/** A version that has been published by `nowMs`, or undefined. */
export function scoreRulesByVersion(version: number, nowMs: number): ScoreRulesVersion | undefined {
  return SCORE_RULES_VERSIONS.find((v) => v.version === version && Date.parse(v.publishedAt) <= nowMs);
}

/**
 * The first instant after `nowMs` at which a score rules document can read otherwise: a version
 * published (the changelog) or coming into force (every status). Infinity while none is announced.
 */
export function scoreRulesHoldUntil(nowMs: number): number {
  return firstInstantAfter(
    SCORE_RULES_VERSIONS.flatMap((v) => [v.publishedAt, v.effectiveAt]),
    nowMs,
  );
}

export function scoreRulesUrl(baseUrl: string, version: number): string {
  return `${baseUrl}/v1/score-rules?version=${version}`;
}

export const FORMULA = [
  'For the business\'s profile, each group of weight W > 0 holds slots: its capabilities that apply to the profile, in the group\'s order, an either-set counting as one slot that takes the best state of its members. A group with no slot is left out.',
  'A slot gives halves: yes 2, partial 1, no 0 (not applicable: no slot).',
  'N = Σ over groups of W × s × (60 / slots), where s is the sum of the group\'s halves; possible = Σ W of the groups with slots; D = 120 × possible.',
  'agentic_score = floor((100 × N + D / 2) / D), a whole number from 0 to 100 (0 when possible is 0).',
  'A capability\'s weight is W / slots of its group (one decimal); its points are what it adds to the score: W / slots × halves × 60 × 100 / D (one decimal), given to the best member of an either-set.',
].join(' ');

/** The whole document of a version, as GET /v1/score-rules answers it. */
export function scoreRulesDocument(rules: ScoreRulesVersion, nowMs: number, baseUrl: string): Record<string, unknown> {
  const status = Date.parse(rules.effectiveAt) > nowMs ? 'announced' : rules === scoreRulesInForce(nowMs) ? 'in_force' : 'retired';
  return {
    version: rules.version,
    name: SCORE_RULES_NAME,
    status,
    published_at: rules.publishedAt,
    effective_at: rules.effectiveAt,
    summary: rules.summary,
    url: scoreRulesUrl(baseUrl, rules.version),
    capabilities: CAPABILITIES.map((c) => ({ id: c.id, journey: c.journey, label: c.label, question: c.question, group: GROUPS.find((g) => g.members.includes(c.id))?.id })),
    groups: GROUPS.map((g) => ({ id: g.id, weight: g.weight, members: [...g.members], scored: g.weight > 0 })),
    profiles: PROFILES.map((p) => ({
      id: p.id,
      label: p.label,
      noun: p.noun,
      applicable: [...p.applicable],
      either: p.either.map((set) => [...set]),
      groups: [...p.groups],
    })),
    profile_from:
      'The profile of the business\'s category group (GET /v1/categories), from what its site publishes; a business whose group no profile names, or whose group is not known, takes the profile general.',
    states: {
      yes: 'a live door of the business declares it (a tool, a skill, an operation, an item type, a protocol), or its published data does where data is enough',
      partial: 'declared, but only through a web page or behind a customer account, or only by an experimental door (WebMCP)',
      no: 'nothing the business published offers it',
      na: 'does not apply to this kind of business',
    },
    credit: { yes: 1, partial: 0.5, no: 0 },
    evidence: {
      declared: 'the business\'s own door or data says so; the check reads and never tries it (no tool is called, no form sent, nothing bought)',
      produced: ['declared'],
    },
    experimental: 'WebMCP tools (declared in a page) are scored as partial at most and never raise a level, a listing or the counts of GET /v1/stats.',
    formula: FORMULA,
    grades: GRADES.map((g) => ({ grade: g.grade, min: g.min })),
    answers: {
      capabilities: [...ANSWER_CAPABILITIES],
      values: { yes: 'the capability is yes', partly: 'it is partial', no: 'it is no', not_applicable: 'it does not apply to this kind of business' },
    },
    levels: {
      order: ['listed', 'readable', 'askable', 'bookable', 'payable'],
      rule: 'A door is readable when it only reads (a catalogue, data), askable when it takes a message or a quote request, bookable when it takes a booking, an order or a sign-up, payable when it takes payment. A business is at the highest level of its live doors; agent-ready from askable. Data on pages, llms.txt and NLWeb make a site readable, never more.',
    },
    fixes: {
      rule: 'For every scored slot without a yes, its first capability is set to yes and the score taken again; fixes worth at least one point are given, most points first, then group order, then vocabulary order. <door> is the business\'s best live door, else "an agent door".',
      texts: Object.fromEntries(Object.entries(FIXES).map(([id, f]) => [id, { title: f.title, how: f.how }])),
    },
    rank:
      'A result\'s rank is its position among the businesses checked in the same category group and country (and place, when known), by agentic score, then most recent check, then domain; overall among all of its kind.',
    named: 'A business is named on leaderboards, and its result may be indexed, only when it is agent-ready (askable or above) and its site does not tell AI systems to keep away (robots.txt Content-Signal ai-input=no or ai-train=no, or Content-Usage train-ai=n). Others are counted, never named.',
    directory:
      'The score never changes the directory\'s order (GET /v1/ranking): search never reads it. A business checked at askable or above, not opted out, in a category the directory lists for businesses that are not members, is listed as found.',
    not_certification:
      'The score says what the business\'s published doors declare an agent can do. It is not a certification, a review or a promise that a booking or an order will succeed.',
    changelog: SCORE_RULES_VERSIONS.filter((v) => Date.parse(v.publishedAt) <= nowMs).map((v) => ({
      version: v.version,
      published_at: v.publishedAt,
      effective_at: v.effectiveAt,
      summary: v.summary,
      url: scoreRulesUrl(baseUrl, v.version),
    })),
    next: null,
  };
}
