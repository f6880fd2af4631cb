/**
 * Whose idempotency keys a call's key belongs to (inbox spec §9: "owner keys are scoped to the
 * business; an integration key's keys are its own; a customer's keys are scoped to the customer and
 * the door", and "a sealed secret in a stored answer is shown again only to whoever made the first
 * request"). Two calls replay one stored answer only when their scopes are equal, so a scope names a
 * caller no one else can be: docs/decisions.md "Idempotency scopes" weighs the choices.
 *
 * A customer is, in this order: the agent key whose signature verified (svc-agent/1); the holder of
 * the passes or keys the call carries with their secret; else the network the call came from (its
 * IPv4 address, or its IPv6 /64). Secrets and addresses enter the scope only as keyed hashes under
 * the instance's identity pepper, the same in every process, so the scope is the same across
 * processes on one database and no pass or address is written in clear.
 */
import { isIPv4, isIPv6 } from 'node:net';
import { parsePersonToken } from '@svc/shared';
import type { IdentityKeys } from '../domain/identity/identity-keys.js';
import type { Caller, Channel } from '../domain/types.js';
import { readOffers } from '../networks/present-passes.js';

/** What of the call the scope is made from. */
export interface ScopedCall {
  caller: Caller;
  channel: Channel;
  /** The client's address as the server sees it (a trusted proxy's word, when one is set: TRUST_PROXY). */
  clientAddress: string | undefined;
  /** The call's passes: `pass` and `key` of the input, the Svc-Pass header. */
  passes: { pass?: unknown; key?: unknown; header?: string | undefined };
}

/** Labels of the keyed hashes (never the same hash for two uses: identity-keys.ts). */
const PERSON_LABEL = 'idempotency-person';
const ADDRESS_LABEL = 'idempotency-address';

export function idempotencyScope(keys: IdentityKeys, call: ScopedCall): string {
  const { caller } = call;
  if (caller.kind === 'owner') {
    if (caller.actor.kind === 'integration') return `key:${caller.keyId}`;
    if (caller.actor.kind === 'owner_ai') return `ai:${caller.keyId ?? caller.actor.id}`;
    return 'owner';
  }
  if (caller.kind === 'system') return 'system';
  return `customer:${call.channel}:${customerOf(keys, call)}`;
}

function customerOf(keys: IdentityKeys, call: ScopedCall): string {
  const agent = call.caller.kind === 'customer' ? call.caller.agent : undefined;
  // A verified signature names its key: the agent (or the platform it signs for) and nobody else.
  if (agent) return `agent:${agent.jkt}`;
  // Whoever holds these passes or keys can act as their person anyway (inbox spec §4).
  const secrets = heldSecrets(call.passes);
  if (secrets.length > 0) return `person:${keys.hash(PERSON_LABEL, secrets.join(' '))}`;
  return `address:${keys.hash(ADDRESS_LABEL, networkOf(call.clientAddress))}`;
}

/** The passes and keys a call carries with their secret, sorted (pass references prove nothing unsigned). */
function heldSecrets(passes: ScopedCall['passes']): string[] {
  let offers: { value: string }[];
  try {
    offers = readOffers(passes);
  } catch {
    return [];
  }
  const held = offers.map((offer) => offer.value).filter((value) => parsePersonToken(value)?.kind !== 'pass_ref');
  return [...new Set(held)].sort();
}

/**
 * The network a client address stands for: an IPv4 address itself, an IPv6 address's /64 (the
 * prefix one subscriber is given; the rest changes as privacy addresses rotate). An IPv4 address
 * written as IPv6 (`::ffff:192.0.2.1`) is the IPv4 address.
 */
export function networkOf(address: string | undefined): string {
  if (address === undefined || address === '') return 'unknown';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1] as string;
  if (isIPv4(address)) return address;
  const bare = address.split('%')[0] as string;
  if (!isIPv6(bare)) return address;
  return `${ipv6Groups(bare).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address, in lowercase hex without leading zeros. */
function ipv6Groups(address: string): string[] {
  let text = address.toLowerCase();
  // An IPv4 tail (::ffff:a.b.c.d or 64:ff9b::a.b.c.d) is two groups.
  const tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (tail) {
    const [a, b, c, d] = tail.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, rest] = text.split('::') as [string, string | undefined];
  const left = head === '' ? [] : head.split(':');
  const right = rest === undefined || rest === '' ? [] : rest.split(':');
  const zeros = rest === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...zeros, ...right].map((group) => parseInt(group, 16).toString(16));
}
