/** What an identity says of each network (inbox spec §2 "Identity"), and what a presented person carries. */

export const NETWORK_STATUSES = [
  'issued',
  'presented',
  'person_exists',
  'pending',
  'unknown_pass',
  'revoked',
  'pass_requires_signature',
  'carries_secret',
  'unreachable',
  'rate_limited',
  'not_enabled',
  'cannot_sign',
] as const;
export type NetworkStatus = (typeof NETWORK_STATUSES)[number];

/** The standing a network shows a business (only these fields cross). */
export interface PersonStanding {
  tier: 'new' | 'building' | 'trusted';
  score: number;
  kept: number;
  broken: number;
  businesses: number;
  since: string;
  email_proven: boolean;
  unusual_use: boolean;
}

export interface PresentedPerson {
  network: string;
  ppid: string;
  presentationId: string;
  standing: PersonStanding;
  /** A pass the network made from a key the customer gave: shown once, in this answer. */
  pass?: string;
}

/** What the passes of one call came to, decided before the call's transaction. */
export interface CallIdentity {
  /** The call carried passes or a key (a first booking without any asks networks to issue). */
  offered: boolean;
  statuses: Record<string, NetworkStatus>;
  persons: PresentedPerson[];
}
