/**
 * The `directory` block of GET /v1/stats, counted from check results and members exactly as the
 * contract defines it (§4):
 * - checked: sites checked at least once (a done check), not hidden by their owner, of a kind the
 *   directory lists (a business whose category group we know); a member's own domain is counted
 *   as the member, not twice;
 * - agent_ready: of those, askable or above on a site that does not tell AI systems to keep away,
 *   or a member the directory lists;
 * - software_and_ai: of the agent-ready, those in group software-ai;
 * - capabilities: agent-ready businesses whose capability state is yes, leaving out a yes resting on
 *   experimental evidence alone (a member: what its inbox declares);
 * - doors: agent-ready businesses with a live door of each type (a member's own inbox while it
 *   answers; webmcp counted, experimental, never toward a level).
 * Counts only, never a name or a domain.
 */
import { CAPABILITIES as COUNTED_CAPABILITIES, COUNTED_DOORS, DirectoryCounter, emptyCounts, type DirectoryCounts } from '../stats/directory-counts.js';
import type { ListingRecord } from '../listings/listing.js';
import type { CheckOutcome } from './assess.js';
import { registrableDomain } from './found-listing.js';

export function countChecks(outcomes: Iterable<CheckOutcome>, members: Iterable<ListingRecord>, nowMs: number, answeringHours: number): DirectoryCounts {
  const memberCounter = new DirectoryCounter(nowMs, answeringHours);
  const memberDomains = new Set<string>();
  for (const member of members) {
    memberDomains.add(registrableDomain(member.domain));
    memberCounter.add(member);
  }
  const counts = memberCounter.result();
  // DirectoryCounter counts members as agent-ready; `checked` is sites checked, so start it at zero.
  counts.checked = 0;
  for (const outcome of outcomes) {
    if (outcome.kind === null || memberDomains.has(outcome.domain)) continue;
    counts.checked += 1;
    if (!outcome.agentReady || outcome.aiOptOut) continue;
    counts.agent_ready += 1;
    if (outcome.group === 'software-ai') counts.software_and_ai += 1;
    for (const capability of COUNTED_CAPABILITIES) {
      const c = outcome.capabilities.find((x) => x.id === capability);
      if (c?.state === 'yes' && !c.experimental) counts.capabilities[capability] += 1;
    }
    const types = new Set(outcome.doors.filter((d) => d.status === 'live').map((d) => d.type));
    for (const door of COUNTED_DOORS) if (types.has(door)) counts.doors[door] += 1;
  }
  return { ...counts, as_of: new Date(nowMs).toISOString() };
}

export { emptyCounts };
