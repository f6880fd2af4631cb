/**
 * A listing's `why` in words true at the moment of the answer (issue 20): the hour's order is frozen
 * at :00, so a member whose inbox stopped answering since (or answers again) keeps its place for the
 * rest of the hour, but the words never say it answered in the last day when its `answering` says it
 * did not. The sentences come from the ranking rules' own words (whyPlaced) about the member as it is
 * now; when that differs from what the hour's order was made from, a last sentence says so.
 */
import { hourStartOf, whyPlaced, type PlacementFacts } from '../ranking/hourly-order.js';
import { rulesByVersion, rulesInForce } from '../ranking/rules.js';
import { answersNow, isOwnInbox, ownInboxFailing, type AnsweringFields } from './answering.js';
import { levelRank, type Door } from './listing.js';

/** What the hour's order placed the listing by, and where. */
export interface FrozenPlacement {
  rankPos: number;
  facts: PlacementFacts;
}

/** A live agent door other than the member's own inbox, at askable or above (what rules 7 call reachable through a door). */
function agentDoorNow(listing: AnsweringFields): boolean {
  return listing.doors.some((d: Door) => d.status === 'live' && !isOwnInbox(listing, d) && d.type !== 'inbox' && levelRank(d.level) >= levelRank('askable'));
}

export function whyNow(listing: AnsweringFields, placement: FrozenPlacement, moment: { nowMs: number; answeringHours: number; rulesVersion: number }): string {
  const rules = rulesByVersion(moment.rulesVersion) ?? rulesInForce(moment.nowMs);
  const frozen = placement.facts;
  if (listing.source !== 'member') return whyPlaced(frozen, placement.rankPos, rules);
  const answering = answersNow(listing, moment.nowMs, moment.answeringHours);
  const failing = ownInboxFailing(listing) ? ' The directory could not read its inbox\u2019s manifest at its last check.' : '';
  if (answering === frozen.answering) return whyPlaced(frozen, placement.rankPos, rules) + failing;
  const now: PlacementFacts = { ...frozen, answering, reach: answering ? 1 : agentDoorNow(listing) ? 2 : 3 };
  const made = new Date(hourStartOf(moment.nowMs)).toISOString().slice(11, 16);
  const then = frozen.answering ? 'while its inbox still counted as answering' : 'before its inbox answered again';
  return `${whyPlaced(now, placement.rankPos, rules)}${failing} Its place was set when this hour's order was made (${made} UTC), ${then}; the next hour's order places it as it is now.`;
}
