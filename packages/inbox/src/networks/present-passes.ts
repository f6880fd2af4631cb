/**
 * The passes and key of one public call (inbox spec §4 `pass`, `key`, `Svc-Pass`; §5), presented to
 * their networks before the call's transaction, in parallel, each capped (person-client.ts). What each
 * network said becomes the call's identity; nothing here refuses the customer, except input that is not
 * passes at all (422).
 */
import { MAX_PASSES_PER_CALL, Problem, parsePersonToken, readSvcPass } from '@svc/shared';
import { loadSettings } from '../domain/context.js';
import type { CallIdentity, NetworkStatus, PresentedPerson } from '../domain/identity/network-status.js';
import type { SignedAgent } from '../domain/types.js';
import type { InboxStore } from '../store/store.js';
import { presentTo, type NetworkSigner } from './person-client.js';

export interface OfferedPasses {
  /** `pass` of the input: passes and pass references, space-separated. */
  pass?: unknown;
  /** `key` of the input: a person's key, exchanged once for a pass. */
  key?: unknown;
  /** The Svc-Pass header as sent. */
  header?: string | undefined;
}

interface Offer {
  value: string;
  fromHeader: boolean;
}

/** The offers of a call, or a 422 naming what is not a pass. At most 8 in all. */
export function readOffers(offered: OfferedPasses): Offer[] {
  const offers: Offer[] = [];
  const header = readSvcPass(offered.header);
  if (header === null) throw new Problem('invalid_input', 'Svc-Pass must be an RFC 8941 list of passes.', { fields: [{ path: 'Svc-Pass', problem: 'invalid', message: 'Not a structured list of passes.' }] });
  for (const value of header) offers.push({ value, fromHeader: true });
  if (typeof offered.pass === 'string') for (const value of offered.pass.split(/\s+/).filter(Boolean)) offers.push({ value, fromHeader: false });
  if (typeof offered.key === 'string' && offered.key !== '') offers.push({ value: offered.key, fromHeader: false });
  if (offers.length > MAX_PASSES_PER_CALL) {
    throw new Problem('invalid_input', `A call carries at most ${MAX_PASSES_PER_CALL} passes.`, { fields: [{ path: 'pass', problem: 'invalid', message: `At most ${MAX_PASSES_PER_CALL} passes.` }] });
  }
  for (const offer of offers) {
    if (!parsePersonToken(offer.value)) {
      throw new Problem('invalid_input', 'A pass is svcpass1_<network>_<id>[_<secret>] and a key svckey1_<network>_<id>_<secret>.', {
        fields: [{ path: offer.fromHeader ? 'Svc-Pass' : typeof offered.key === 'string' && offered.key === offer.value ? 'key' : 'pass', problem: 'invalid', message: 'Not a pass or key.' }],
      });
    }
  }
  return offers;
}

export interface PresentDeps {
  store: InboxStore;
  /** Signs calls to networks; null when this instance cannot sign (no usable key). */
  signer: () => Promise<NetworkSigner | null>;
}

export async function presentPasses(deps: PresentDeps, offered: OfferedPasses, agent: SignedAgent | undefined): Promise<CallIdentity> {
  const offers = readOffers(offered);
  if (offers.length === 0) return { offered: false, statuses: {}, persons: [] };
  const { settings } = await loadSettings(deps.store);
  const byHost = new Map(Object.entries(settings.networks).map(([origin, entry]) => [new URL(origin).host, { origin, enabled: entry.enabled }]));
  const statuses: Record<string, NetworkStatus> = {};
  const persons: PresentedPerson[] = [];
  const calls: Promise<void>[] = [];
  let signer: NetworkSigner | null | undefined;
  for (const offer of offers) {
    const token = parsePersonToken(offer.value)!;
    const network = byHost.get(token.host);
    const origin = network?.origin ?? `https://${token.host}`;
    if (!network?.enabled) {
      statuses[origin] = 'not_enabled';
      continue;
    }
    let body: Record<string, unknown>;
    if (token.kind === 'pass_ref') {
      if (!agent) {
        statuses[origin] = 'pass_requires_signature';
        continue;
      }
      if (agent.forwardRefusal !== null) {
        statuses[origin] = 'carries_secret';
        continue;
      }
      body = { pass_ref: offer.value, agent_key: { jkt: agent.jkt, jwk: agent.publicJwk, ...agent.forward } };
    } else {
      // A signed request carries no secret in Svc-Pass: a full pass or a key there is not forwarded.
      if (agent && offer.fromHeader) {
        statuses[origin] = 'carries_secret';
        continue;
      }
      body = token.kind === 'key' ? { key: offer.value } : { pass: offer.value };
    }
    if (signer === undefined) signer = await deps.signer();
    if (signer === null) {
      statuses[origin] = 'cannot_sign';
      continue;
    }
    const using = signer;
    calls.push(
      presentTo(using, origin, body).then((outcome) => {
        if (outcome.status === 'presented' && 'person' in outcome) {
          statuses[origin] = 'presented';
          persons.push(outcome.person);
        } else if (statuses[origin] !== 'presented') {
          statuses[origin] = outcome.status;
        }
      }),
    );
  }
  await Promise.all(calls);
  return { offered: true, statuses, persons };
}
