/** What a nightly reputation snapshot holds (docs/reputation.md), as storage and views see it. */
import type { Tier } from './arithmetic.js';

/** One member's reputation in one night's snapshot. */
export interface MemberReputation {
  domain: string;
  score: number;
  scoreInt: number;
  ranked: boolean;
  tier: Tier;
  kept: number;
  broken: number;
  customers: number;
  verifiedShare: number;
  units: number;
}

/** computing: scores are being written; computed: they are complete and the hourly order reads them; published: every listing shows them. */
export type NightStatus = 'computing' | 'computed' | 'published';

export interface ReputationNight {
  /** The UTC date whose midnight is the scoring time, YYYY-MM-DD. */
  night: string;
  scoringTime: number;
  rulesVersion: number;
  status: NightStatus;
  /** The last domain done in the current phase (resuming starts after it). */
  cursor: string | null;
  members: number;
  startedAt: number;
  computedAt: number | null;
  publishedAt: number | null;
}

/** A listing's reputation as the view shows it (directory spec §2 Reputation), from the snapshot of `asOf`. */
export interface ListingReputation {
  score: number;
  ranked: boolean;
  tier: Tier;
  kept: number;
  broken: number;
  customers: number;
  verifiedShare: number;
  /** The ranking rules version it was computed under. */
  rules: number;
  /** The snapshot's scoring time (ms). */
  asOf: number;
}

export const DAY_MS = 86_400_000;

/** The night (UTC date) whose midnight is the last at or before `ms`. */
export function nightOf(ms: number): string {
  return new Date(Math.floor(ms / DAY_MS) * DAY_MS).toISOString().slice(0, 10);
}

export function midnightOf(night: string): number {
  return Date.parse(`${night}T00:00:00Z`);
}

export function nextNight(night: string): string {
  return nightOf(midnightOf(night) + DAY_MS);
}

export function listingReputationOf(member: MemberReputation, night: Pick<ReputationNight, 'rulesVersion' | 'scoringTime'>): ListingReputation {
  return {
    score: member.score,
    ranked: member.ranked,
    tier: member.tier,
    kept: member.kept,
    broken: member.broken,
    customers: member.customers,
    verifiedShare: member.verifiedShare,
    rules: night.rulesVersion,
    asOf: night.scoringTime,
  };
}
