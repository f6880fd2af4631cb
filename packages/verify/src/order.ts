/**
 * The hour's order as the network commits to it (docs/verifiable-order.md): one leaf per listed
 * business at its place, naming what the published rules sort by, hashed into a Merkle tree whose
 * root the hour's signed statement carries. The comparators below read the order keys of the
 * published rules (GET /v1/ranking, `order.keys`) over leaves, written from those rules, not from
 * the directory's code, so the verifier is a second reading of the same published text.
 */
import { createHash } from 'node:crypto';
import type { Tier } from './reputation.js';

export interface OrderLeaf {
  /** Its place, from 1. */
  pos: number;
  id: string;
  domain: string;
  member: boolean;
  /** A member whose inbox pinged within the answering hours before the hour. */
  answering: boolean;
  /** Rules 7: 1 reachable now (answering), 2 through another live agent door, 3 neither. */
  reach: 1 | 2 | 3;
  /** Its readiness level as a rank: listed 0, readable 1, askable 2, bookable 3, payable 4. */
  level: number;
  /** Its reputation in the night the order read (new, score 0 without one). */
  tier: Tier;
  /** floor(score × 10000 + 0.5). */
  score: number;
}

const TIERS: readonly Tier[] = ['new', 'building', 'trusted'];
const TOKEN = /^[^\s=]+$/u;

export function orderLeafText(leaf: OrderLeaf): string {
  return `svc-order/1 pos=${leaf.pos} id=${leaf.id} domain=${leaf.domain} member=${leaf.member ? 1 : 0} answering=${leaf.answering ? 1 : 0} reach=${leaf.reach} level=${leaf.level} tier=${leaf.tier} score=${leaf.score}`;
}

export class LeafError extends Error {}

export function parseOrderLeaf(text: string): OrderLeaf {
  const parts = text.split(' ');
  if (parts.shift() !== 'svc-order/1' || parts.length !== 9) throw new LeafError(`not an order leaf: ${text.slice(0, 120)}`);
  const fields = new Map<string, string>();
  for (const part of parts) {
    const eq = part.indexOf('=');
    const key = part.slice(0, eq);
    const value = part.slice(eq + 1);
    if (eq <= 0 || !TOKEN.test(value) || fields.has(key)) throw new LeafError(`not an order leaf: ${text.slice(0, 120)}`);
    fields.set(key, value);
  }
  const int = (key: string, min: number, max: number) => {
    const v = fields.get(key) ?? '';
    if (!/^(0|[1-9][0-9]*)$/.test(v) || Number(v) < min || Number(v) > max) throw new LeafError(`${key} is not a number from ${min} to ${max} in ${text.slice(0, 120)}`);
    return Number(v);
  };
  const tier = fields.get('tier') as Tier;
  if (!TIERS.includes(tier)) throw new LeafError(`tier is not one of ${TIERS.join(', ')}`);
  const leaf: OrderLeaf = {
    pos: int('pos', 1, Number.MAX_SAFE_INTEGER),
    id: fields.get('id') ?? '',
    domain: fields.get('domain') ?? '',
    member: int('member', 0, 1) === 1,
    answering: int('answering', 0, 1) === 1,
    reach: int('reach', 1, 3) as 1 | 2 | 3,
    level: int('level', 0, 4),
    tier,
    score: int('score', 0, 10_000),
  };
  if (!leaf.id || !leaf.domain || orderLeafText(leaf) !== text) throw new LeafError(`an order leaf is not in its one written form: ${text.slice(0, 120)}`);
  return leaf;
}

/** The day's shuffle key: the first 16 hex characters of SHA-256("<YYYY-MM-DD>:<id lowercased>"). */
export function shuffleKey(day: string, id: string): string {
  return createHash('sha256').update(`${day}:${id.toLowerCase()}`, 'utf8').digest('hex').slice(0, 16);
}

/** Ranked: a reputation of building or better (score at least 0.40). */
export const isRanked = (leaf: Pick<OrderLeaf, 'tier'>) => leaf.tier !== 'new';

type Keyed = OrderLeaf & { shuffle: string };

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function byReputation(a: Keyed, b: Keyed): number {
  return Number(isRanked(b)) - Number(isRanked(a)) || (isRanked(a) ? b.score - a.score : 0);
}

/** Rules 6: members first; answering members first; ranked by score; the shuffle; id. */
function rules6(a: Keyed, b: Keyed): number {
  return Number(b.member) - Number(a.member) || Number(b.answering) - Number(a.answering) || byReputation(a, b) || cmp(a.shuffle, b.shuffle) || cmp(a.id, b.id);
}

/** Rules 7: reach; within reach 2 the higher level first; ranked by score; the shuffle; members first; id. */
function rules7(a: Keyed, b: Keyed): number {
  return (
    a.reach - b.reach ||
    (a.reach === 2 ? b.level - a.level : 0) ||
    byReputation(a, b) ||
    cmp(a.shuffle, b.shuffle) ||
    Number(b.member) - Number(a.member) ||
    cmp(a.id, b.id)
  );
}

const COMPARATORS: Readonly<Record<number, (a: Keyed, b: Keyed) => number>> = { 6: rules6, 7: rules7 };

export function knowsRules(version: number): boolean {
  return Object.hasOwn(COMPARATORS, version);
}

/** Negative when `a` comes before `b` under the rules version on the shuffle day. */
export function compareLeaves(version: number, day: string, a: OrderLeaf, b: OrderLeaf): number {
  const compare = COMPARATORS[version];
  if (!compare) throw new LeafError(`rules version ${version} is not known to this verifier; update it`);
  return compare({ ...a, shuffle: shuffleKey(day, a.id) }, { ...b, shuffle: shuffleKey(day, b.id) });
}

/** What the facts must say alike whatever the rules: answering only for a member, reach 1 exactly when answering. */
export function leafFactsProblem(leaf: OrderLeaf): string | null {
  if (leaf.answering && !leaf.member) return 'answering but not a member';
  if ((leaf.reach === 1) !== leaf.answering) return 'reach 1 but not answering, or answering but not reach 1';
  if (!leaf.member && (leaf.tier !== 'new' || leaf.score !== 0)) return 'a reputation for a business that is not a member';
  return null;
}
