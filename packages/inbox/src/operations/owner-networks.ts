/** get_networks (inbox spec §2 "Network entry", §4): each directory network in settings and how reporting to it goes. */
import { z } from 'zod';
import { describeNetworks } from '../networks/network-entries.js';
import { READ, inboxOperation } from './context.js';

const instant = z.string().describe('ISO 8601 instant, UTC.');

const networkEntrySchema = z.object({
  origin: z.string().describe('The network, keyed by origin as in settings.networks.'),
  enabled: z.boolean(),
  issue: z.boolean().describe('Whether it gives first-time customers a key.'),
  gets: z
    .array(z.string())
    .describe(
      "What this inbox sends it, signed: registration (this inbox's domain), hourly_ping (software version, the last day's counts of new items and the hash of the manifest it publishes), change_notices (the same ping, within a minute of a change to what it publishes: profile, hours, closures, services, products, keys), receipts (each receipt, with its acknowledgement once there is one), presented_passes (a pass it issued, when a customer presents it here, and the outcome receipts of that customer's items) and, when it issues customer keys, first_time_customer_addresses (the e-mail address of a customer new to this business, so it can send them a key).",
    ),
  verification: z.enum(['pending', 'verified', 'unreachable']).nullable().describe('The registration status the network last reported; null before it said one.'),
  verified: z.boolean().nullable().describe('Whether the network has verified this instance; null when not known yet.'),
  verified_at: instant.nullable(),
  listed: z.boolean().nullable().describe('Whether the network lists this business, as it last said.'),
  status_checked_at: instant.nullable().describe('When the network last told its status.'),
  registered_at: instant.nullable(),
  last_ping_at: instant.nullable().describe('When the network last took a ping.'),
  last_read_at: instant.nullable().describe("When the network last read this business (its manifest: profile, hours, closures, services), as its last ping answer said; null before it said."),
  up_to_date: z.boolean().nullable().describe('Whether what the network last read is what this inbox published at its last ping; false while a change waits for the network to read it; null before it said.'),
  change_sent_at: instant.nullable().describe('When this inbox last told the network that what it publishes changed.'),
  last_error: z.object({ message: z.string(), at: instant }).nullable().describe('The last failure in a few words, kept after later successes so you can compare times.'),
  rules: z.number().int().nullable().describe('The ranking rules version the network applies, as its last signed ping answered.'),
  standing: z
    .object({
      tier: z.enum(['new', 'building', 'trusted']),
      score: z.number().min(0).max(1),
      ranked: z.boolean().describe('Whether its reputation orders this business in its lists.'),
      kept: z.number().int().describe('Promises kept, as the network counts them.'),
      broken: z.number().int(),
      customers: z.number().int().describe('Distinct customers behind them.'),
      as_of: instant.nullable().describe('The snapshot the standing comes from; null before the network computed one.'),
      reported_at: instant.describe('When the signed ping that answered it was taken.'),
    })
    .nullable()
    .describe("The owner's standing there, from the last signed ping answered with one; kept until another says otherwise."),
  ping_signature: z
    .object({
      state: z
        .enum(['verified', 'invalid', 'refused', 'not_checked'])
        .describe(
          'verified: the network verified the signature and answered the standing; invalid: it took the ping as unsigned and said why; refused: it refused the ping for its signature (401), the ping did not count; not_checked: it took the ping without checking signatures.',
        ),
      reason: z.string().nullable().describe('The reason the network gave, such as expired or unknown_key.'),
      at: instant,
    })
    .nullable()
    .describe("What became of the last ping's signature."),
  receipts: z
    .object({
      published: z.number().int().describe('Receipts the network took.'),
      waiting: z.number().int().describe('Receipts to send: not sent yet, going again with their acknowledgement, or retried after a failure.'),
      held: z.number().int().describe('Receipts the network does not take yet (it has not verified this inbox); tried again later.'),
      refused: z.number().int().describe('Receipts (or acknowledgements) the network refused for good.'),
      acknowledgements_sent: z.number().int().describe("Receipts the network took with their customer's acknowledgement."),
      last_published_at: instant.nullable(),
      last_refusal: z.object({ receipt_id: z.string(), reason: z.string(), at: instant }).nullable().describe("The last refusal: the network's code and words."),
      next_attempt_at: instant.nullable().describe('While the network is failing or holding receipts: when they go again.'),
      network_says: z
        .object({ accepted: z.number().int(), acknowledged: z.number().int(), at: instant })
        .nullable()
        .describe('How many of our receipts the network says it holds, as its last signed ping answered.'),
    })
    .describe('What this inbox published there (sandbox receipts never go to networks).'),
  log: z
    .object({
      checked_at: instant.nullable().describe('When the network\'s evidence log was last checked (hourly, after a ping); null before, or for a network that publishes none.'),
      head_size: z.number().int().min(0).nullable().describe('Entries in the last signed head checked.'),
      logged: z.number().int().min(0).describe('Receipts found in the log, each with an inclusion proof under a signed head.'),
      missing: z.number().int().min(0).describe('Receipts the network took more than an hour ago that its log does not hold (each told once as <type>.receipt_not_logged).'),
      first_missing: z.object({ receipt_id: z.string(), since: instant }).nullable(),
      problem: z.object({ message: z.string(), at: instant }).nullable().describe('A head signed by another key, one that does not extend the last checked (two different logs), or a proof that failed.'),
    })
    .describe('The network\'s public evidence log, as this inbox checks it (docs/verifiable-order.md).'),
  not_known: z.record(z.string(), z.string()).describe('Why each null part (rules, standing, ping_signature) is not known yet.'),
});

export const getNetworksOperation = inboxOperation({
  name: 'get_networks',
  title: 'How reporting to each network goes',
  description:
    "Each directory network in settings: on or off, whether it issues customer keys, what it gets, whether it has verified this instance, the last ping it took, the owner's standing there and what became of the ping's signature, the receipts published, waiting, held and refused, and the last error in a few words.",
  audience: 'owner',
  kind: 'read',
  http: { method: 'GET', path: '/v1/owner/networks' },
  scope: 'settings:read',
  input: z.object({}),
  output: z.object({ networks: z.array(networkEntrySchema) }),
  annotations: READ,
  errors: ['unauthorized', 'not_allowed'],
  run: async (ctx) => ({ networks: await describeNetworks(ctx.domain.store) }),
});
