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
    .describe('What this inbox sends it: registration (this inbox\'s domain) and hourly_ping (software version and the last day\'s counts of new items).'),
  verification: z.enum(['pending', 'verified', 'unreachable']).nullable().describe('The registration status the network last reported; null before it said one.'),
  verified: z.boolean().nullable().describe('Whether the network has verified this instance; null when not known yet.'),
  verified_at: instant.nullable(),
  listed: z.boolean().nullable().describe('Whether the network lists this business, as it last said.'),
  status_checked_at: instant.nullable().describe('When the network last told its status.'),
  registered_at: instant.nullable(),
  last_ping_at: instant.nullable().describe('When the network last took a ping.'),
  last_error: z.object({ message: z.string(), at: instant }).nullable().describe('The last failure in a few words, kept after later successes so you can compare times.'),
  rules: z.null().describe('The rules it applies: not known yet (see not_known).'),
  standing: z.null().describe("The owner's standing there: not known yet (see not_known)."),
  ping_signature: z.null().describe("What became of the ping's signature: not known yet (see not_known)."),
  receipts: z.null().describe('Receipts published, waiting, held and refused: not known yet (see not_known).'),
  not_known: z.record(z.string(), z.string()).describe('Why each null part is not known yet.'),
});

export const getNetworksOperation = inboxOperation({
  name: 'get_networks',
  title: 'How reporting to each network goes',
  description:
    'Each directory network in settings: on or off, whether it issues customer keys, what it gets, whether it has verified this instance, the last ping it took and the last error in a few words.',
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
