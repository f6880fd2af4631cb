/** How the assistant behind an item signed (owner get_item `customer.agent`, docs/identity.md). */
import { z } from 'zod';
import type { InboxStore } from '../../store/store.js';
import { isoUtc } from '../time.js';

export const agentViewSchema = z
  .object({
    key_thumbprint: z.string().describe('RFC 7638 thumbprint of the Ed25519 key it signed with.'),
    signed_with: z.enum(['own_key', 'platform']).describe('Its own key (Svc-Agent-Key), or a key its platform publishes (Signature-Agent).'),
    platform: z.string().nullable().describe('The platform (an origin) vouching for the key, or null.'),
    signed_at: z.string().describe('When it signed this item\'s creation.'),
    first_seen: z.string().describe('When this inbox first saw the key.'),
    last_seen: z.string().describe('Its last signed change here.'),
  })
  .describe('How the assistant signed its request (svc-agent/1); null when it did not sign.');

export type AgentView = z.infer<typeof agentViewSchema>;

export async function agentView(store: InboxStore, itemId: string): Promise<AgentView | null> {
  const signer = await store.identity.itemAgent(itemId);
  if (!signer) return null;
  const agent = await store.identity.getAgent(signer.jkt);
  return {
    key_thumbprint: signer.jkt,
    signed_with: signer.platform === null ? 'own_key' : 'platform',
    platform: signer.platform,
    signed_at: isoUtc(signer.signedAt),
    first_seen: isoUtc(agent?.firstSeen ?? signer.signedAt),
    last_seen: isoUtc(agent?.lastSeen ?? signer.signedAt),
  };
}
