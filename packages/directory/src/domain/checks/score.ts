/**
 * The agentic score (GET /v1/score-rules, formula): for the business's profile, each scored group
 * holds slots (its applicable capabilities, an either-set counting as one slot that takes its best
 * state); a slot gives halves (yes 2, partial 1, no 0); a group gives W × s × (60 / slots), where s
 * is its halves; the score is N over D = 120 × possible (the weights of the groups that have
 * slots), rounded half up to a whole number: floor((100 N + D/2) / D). Pure integer arithmetic: 60
 * divides by every slot count a group can have (1 to 5).
 *
 * Fixes: for every slot with no yes, its first capability is set to yes and the score taken again;
 * a fix worth at least one point is kept; most points first, then group order, then vocabulary order.
 */
import { CAPABILITY_IDS, GROUPS, gradeOf, groupOf, vocabularyIndex, type CapabilityGroup, type CapabilityId, type Grade, type Profile } from './capabilities.js';

export type ScoredState = 'yes' | 'partial' | 'no';

const HALVES: Record<ScoredState, number> = { yes: 2, partial: 1, no: 0 };

interface Slot {
  group: CapabilityGroup;
  groupIndex: number;
  /** Applicable members of the slot: one capability, or an either-set's. */
  members: CapabilityId[];
  slotsInGroup: number;
}

export interface ScoreOutcome {
  score: number;
  grade: Grade;
  /** Σ W × s × 60 / slots. */
  n: number;
  /** Σ W of groups with slots. */
  possible: number;
  /** Per capability: its share of its group's weight (W / slots, one decimal) and the points it adds (0–100 scale, one decimal). */
  weights: Partial<Record<CapabilityId, { weight: number; points: number }>>;
  fixes: { capability: CapabilityId; points: number }[];
}

/** The slots of a profile, group by group in rule order (groups of weight 0 and groups with no slot left out). */
export function slotsOf(profile: Profile): Slot[] {
  const applicable = new Set(profile.applicable);
  const slots: Slot[] = [];
  GROUPS.forEach((group, groupIndex) => {
    if (group.weight <= 0) return;
    const inGroup: CapabilityId[][] = [];
    const placed = new Set<CapabilityId>();
    for (const member of group.members) {
      if (!applicable.has(member) || placed.has(member)) continue;
      const set = profile.either.find((s) => s.includes(member));
      const members = set ? set.filter((c) => applicable.has(c)) : [member];
      for (const c of members) placed.add(c);
      inGroup.push(members);
    }
    for (const members of inGroup) slots.push({ group, groupIndex, members, slotsInGroup: inGroup.length });
  });
  return slots;
}

function slotHalves(slot: Slot, states: Partial<Record<CapabilityId, ScoredState>>): number {
  let best = 0;
  for (const member of slot.members) best = Math.max(best, HALVES[states[member] ?? 'no']);
  return best;
}

function total(slots: readonly Slot[], states: Partial<Record<CapabilityId, ScoredState>>): { n: number; possible: number; score: number } {
  let n = 0;
  const weighed = new Set<string>();
  for (const slot of slots) {
    weighed.add(slot.group.id);
    n += slot.group.weight * slotHalves(slot, states) * (60 / slot.slotsInGroup);
  }
  const possible = GROUPS.filter((g) => weighed.has(g.id)).reduce((sum, g) => sum + g.weight, 0);
  if (possible === 0) return { n, possible, score: 0 };
  const d = 120 * possible;
  return { n, possible, score: Math.floor((100 * n + d / 2) / d) };
}

const oneDecimal = (value: number) => Math.round(value * 10) / 10;

export function scoreProfile(profile: Profile, states: Partial<Record<CapabilityId, ScoredState>>): ScoreOutcome {
  const slots = slotsOf(profile);
  const { n, possible, score } = total(slots, states);
  const weights: ScoreOutcome['weights'] = {};
  for (const slot of slots) {
    const share = slot.group.weight / slot.slotsInGroup;
    const halves = slotHalves(slot, states);
    // The slot's points go to its best member (the first one holding its best state).
    const giver = slot.members.find((m) => HALVES[states[m] ?? 'no'] === halves && halves > 0);
    for (const member of slot.members) {
      const points = possible > 0 && member === giver ? (share * halves * 60 * 100) / (120 * possible) : 0;
      weights[member] = { weight: oneDecimal(share), points: oneDecimal(points) };
    }
  }
  const fixes: { capability: CapabilityId; points: number; groupIndex: number }[] = [];
  for (const slot of slots) {
    if (slot.members.some((m) => states[m] === 'yes')) continue;
    const first = slot.members[0] as CapabilityId;
    const better = total(slots, { ...states, [first]: 'yes' }).score - score;
    if (better >= 1) fixes.push({ capability: first, points: better, groupIndex: slot.groupIndex });
  }
  fixes.sort((a, b) => b.points - a.points || a.groupIndex - b.groupIndex || vocabularyIndex(a.capability) - vocabularyIndex(b.capability));
  return { score, grade: gradeOf(score), n, possible, weights, fixes: fixes.map(({ capability, points }) => ({ capability, points })) };
}

/** The capabilities of a profile that are scored (in a slot of a weighed group). */
export function scoredCapabilities(profile: Profile): Set<CapabilityId> {
  return new Set(slotsOf(profile).flatMap((s) => s.members));
}

/** Every capability in vocabulary order with its group (for listing all of them in a result). */
export function capabilityRows(): { id: CapabilityId; group: string }[] {
  return CAPABILITY_IDS.map((id) => ({ id, group: groupOf(id).id }));
}
