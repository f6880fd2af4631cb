/**
 * An observation scored by the rules in force: the profile of the business's kind, each
 * capability's state with the evidence it rests on, the score and grade, the level of its doors,
 * the five answers and the fixes worth most points. Pure: the same observation and rules give the
 * same outcome.
 */
import { levelRank, type Kind, type Level, type RequestKind } from '../listings/listing.js';
import { groupBySlug, kindOfGroup } from '../vocab/groups.js';
import { fold } from '../vocab/fold.js';
import type { CategoryResolution } from '../registration/member-listing.js';
import { ANSWER_CAPABILITIES, CAPABILITY_IDS, FIXES, groupOf, profileOfGroup, type CapabilityId, type CapabilityState, type Grade } from './capabilities.js';
import { kindOf, levelOfCapabilities, type Basis, type Evidence, type SeenDoor, type SiteFacts, type SiteObservation } from './observation.js';
import { scoreProfile, type ScoredState } from './score.js';

export interface AssessedCapability {
  id: CapabilityId;
  group: string;
  state: CapabilityState;
  evidence: 'declared' | null;
  basis?: Basis;
  via?: string;
  door?: { type: string; url: string };
  source_url?: string;
  checked_at?: string;
  weight: number;
  points: number;
  experimental?: boolean;
  note?: string;
}

export interface AssessedDoor {
  type: string;
  url: string;
  level: Level;
  status: 'live' | 'failing';
  kinds: RequestKind[];
  src: 'declared' | 'seen';
  protocol?: string;
  checked_at: string;
  experimental?: boolean;
  note?: string;
  /** Failures within the last seven days (door-history.ts). */
  failures?: number;
  /** When it last answered; null when it never did. */
  last_live_at?: string | null;
  /** Since when it is failing. */
  failing_since?: string;
}

export interface Answer {
  capability: CapabilityId;
  answer: 'yes' | 'partly' | 'no' | 'not_applicable';
  door: { type: string; url: string } | null;
  how: string;
  checked_at: string;
}

export interface Fix {
  capability: CapabilityId;
  points: number;
  title: string;
  how: string;
}

/** What a finished check keeps (stored as JSON with the result row). */
export interface CheckOutcome {
  domain: string;
  url: string;
  checkedAt: number;
  rulesVersion: number;
  score: number;
  grade: Grade;
  level: Level;
  agentReady: boolean;
  aiOptOut: boolean;
  profile: { id: string; label: string; from: 'category' | 'signals' | 'default'; category?: { group: string; label: string } };
  group: string | null;
  kind: Kind | null;
  /** The place of a business with a town: lower-case letters, digits and hyphens. */
  place: string | null;
  country: string | null;
  capabilities: AssessedCapability[];
  answers: Answer[];
  fixes: Fix[];
  doors: AssessedDoor[];
  readable: string[];
  facts: SiteFacts;
  usage: SiteObservation['usage'];
}

const DOOR_WORDS: Readonly<Record<string, string>> = {
  inbox: 'your inbox',
  mcp: 'your MCP server',
  a2a: 'your A2A agent',
  openapi: 'your API',
  ucp: 'your UCP profile',
  acp: 'your ACP endpoint',
  nlweb: 'your NLWeb endpoint',
};
/** The door a fix names, best first (the result page names it the same way in other languages). */
export const DOOR_PREFERENCE: readonly string[] = ['inbox', 'mcp', 'openapi', 'a2a', 'ucp', 'acp', 'nlweb'];

/** A place name as a leaderboard `place`: folded, lower case, letters and digits joined by hyphens. */
export function placeSlug(locality: string): string | null {
  const slug = fold(locality).replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 80).replace(/-+$/, '');
  return slug.length > 0 ? slug : null;
}

function rankOf(state: ScoredState): number {
  return state === 'yes' ? 2 : state === 'partial' ? 1 : 0;
}

export function assess(observation: SiteObservation, rulesVersion: number, resolveCategories: (terms: string[]) => CategoryResolution): CheckOutcome {
  const checkedAt = new Date(observation.checkedAt).toISOString();
  const liveDoors = observation.doors.filter((d) => d.status === 'live');
  const liveKey = new Set(liveDoors.map((d) => `${d.type} ${d.url}`));
  // Evidence counts only from a live door, or from data on the site's own pages.
  const counted = observation.evidence.filter((e) => !e.door || liveKey.has(`${e.door.type} ${e.door.url}`));

  const resolution = resolveCategories(observation.facts.categoryTerms.slice(0, 10));
  const group = resolution.groups.find((g) => g !== 'software-ai') ?? (resolution.software || observation.facts.software ? 'software-ai' : null);
  const profile = profileOfGroup(group);
  const applicable = new Set(profile.applicable);

  // Each capability's best evidence: yes over partial, a door over data, not experimental over experimental.
  const best = new Map<CapabilityId, Evidence>();
  for (const e of counted) {
    const state: ScoredState = e.experimental ? 'partial' : e.state;
    const held = best.get(e.capability);
    const heldState: ScoredState | null = held ? (held.experimental ? 'partial' : held.state) : null;
    if (!held || rankOf(state) > rankOf(heldState as ScoredState) || (rankOf(state) === rankOf(heldState as ScoredState) && held.experimental && !e.experimental)) best.set(e.capability, e);
  }
  const states: Partial<Record<CapabilityId, ScoredState>> = {};
  for (const [capability, e] of best) if (applicable.has(capability)) states[capability] = e.experimental ? 'partial' : e.state;
  const outcome = scoreProfile(profile, states);

  const capabilities: AssessedCapability[] = CAPABILITY_IDS.map((id) => {
    const e = best.get(id);
    const weights = outcome.weights[id] ?? { weight: 0, points: 0 };
    const state: CapabilityState = !applicable.has(id) ? 'na' : (states[id] ?? 'no');
    return {
      id,
      group: groupOf(id).id,
      state,
      evidence: e && state !== 'na' ? 'declared' : null,
      ...(e && state !== 'na'
        ? { basis: e.basis, via: e.via, ...(e.door ? { door: e.door } : {}), source_url: e.sourceUrl, checked_at: checkedAt, ...(e.experimental ? { experimental: true } : {}) }
        : {}),
      weight: weights.weight,
      points: weights.points,
      ...(state === 'na' ? { note: `does not apply to a ${profile.noun}` } : {}),
    };
  });

  // Doors: their level from what they declare (experimental declarations raise nothing).
  const doors: AssessedDoor[] = observation.doors.map((d: SeenDoor) => {
    const declared = observation.evidence.filter((e) => e.door && e.door.type === d.type && e.door.url === d.url && !e.experimental && e.state === 'yes').map((e) => e.capability);
    const kinds = [...new Set(declared.map(kindOf).filter((k): k is RequestKind => k !== null))];
    return {
      type: d.type,
      url: d.url,
      level: d.experimental ? 'readable' : levelOfCapabilities(declared),
      status: d.status,
      kinds,
      src: d.src,
      ...(d.protocol ? { protocol: d.protocol } : {}),
      checked_at: checkedAt,
      ...(d.experimental ? { experimental: true } : {}),
      ...(d.note ? { note: d.note } : {}),
    };
  });
  let level: Level = observation.readable.length > 0 ? 'readable' : 'listed';
  for (const d of doors) if (d.status === 'live' && !d.experimental && levelRank(d.level) > levelRank(level)) level = d.level;

  const bestDoor = DOOR_PREFERENCE.map((type) => doors.find((d) => d.type === type && d.status === 'live')).find((d) => d !== undefined);
  // Our words only: the door is named by its kind, never by an address the site chose (its address is in `doors`).
  const doorWords = bestDoor ? (DOOR_WORDS[bestDoor.type] ?? 'your agent door') : 'an agent door (an inbox, an MCP server or an API)';
  const fixes: Fix[] = outcome.fixes.slice(0, 5).map((f) => ({ capability: f.capability, points: f.points, title: FIXES[f.capability].title, how: FIXES[f.capability].how.replace('<door>', doorWords) }));

  const answers: Answer[] = ANSWER_CAPABILITIES.map((capability) => {
    const c = capabilities.find((x) => x.id === capability) as AssessedCapability;
    const answer = c.state === 'yes' ? 'yes' : c.state === 'partial' ? 'partly' : c.state === 'na' ? 'not_applicable' : 'no';
    const how =
      answer === 'yes'
        ? `through ${c.door ? `${DOOR_WORDS[c.door.type] ?? 'a door'}`.replace('your ', 'its ') : 'its published data'}`
        : answer === 'partly'
          ? c.experimental
            ? 'only through a tool declared in a web page (WebMCP, experimental)'
            : 'only through a web page, not a door for agents'
          : answer === 'not_applicable'
            ? `does not apply to a ${profile.noun}`
            : 'nothing the site publishes offers it';
    return { capability, answer, door: c.door ?? null, how, checked_at: checkedAt };
  });

  const kind: Kind | null = group ? kindOfGroup(group) : null;
  const locality = observation.facts.locality?.v ?? null;
  const country = observation.facts.country?.v ?? null;
  return {
    domain: observation.domain,
    url: observation.url,
    checkedAt: observation.checkedAt,
    rulesVersion,
    score: outcome.score,
    grade: outcome.grade,
    level,
    agentReady: levelRank(level) >= levelRank('askable'),
    aiOptOut: observation.aiOptOut !== null,
    profile: { id: profile.id, label: profile.label, from: group ? 'category' : 'default', ...(group ? { category: { group, label: groupBySlug(group)?.labels.en ?? group } } : {}) },
    group,
    kind,
    place: country && locality ? placeSlug(locality) : null,
    country,
    capabilities,
    answers,
    fixes,
    doors,
    readable: observation.readable,
    facts: observation.facts,
    usage: observation.usage,
  };
}

/** What a leaderboard row shows of an outcome besides its columns (the name only when the site may be named). */
export interface BoardSummary {
  name: string | null;
  grade: Grade;
  level: Level;
  answers: Partial<Record<CapabilityId, Answer['answer']>>;
}

export function boardSummary(o: CheckOutcome): BoardSummary {
  return {
    name: o.aiOptOut ? null : (o.facts.name?.v ?? null),
    grade: o.grade,
    level: o.level,
    answers: Object.fromEntries(o.answers.map((a) => [a.capability, a.answer])),
  };
}
