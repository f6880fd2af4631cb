/**
 * The manifest's `agent_policy`: what this instance does with who a customer's agent says it is,
 * read from the code and the settings at each request, never written by hand. Signatures come from
 * the agent profile the door verifies (svc-agent/1, Web Bot Auth compatible: always on); passes and
 * networks from `settings.networks` (the enabled ones) and whether this instance can sign its calls
 * to them (it presents passes signed; without a usable key it presents none). docs/identity.md.
 */
import { AGENT_PROFILE } from '@svc/shared';
import { loadSettings } from '../../domain/context.js';
import type { InboxStore } from '../../store/store.js';

export interface AgentPolicyDeps {
  store: InboxStore;
  publicBaseUrl: string;
  /** Whether this instance has a signing key it can open (networks take only signed calls). */
  canSign: () => Promise<boolean>;
}

/** `svc-agent-key` as the docs write it: `Svc-Agent-Key`. */
function fieldName(lowercase: string): string {
  return lowercase.replace(/(^|-)([a-z])/g, (_m, dash: string, letter: string) => `${dash}${letter.toUpperCase()}`);
}

export async function agentPolicy(deps: AgentPolicyDeps) {
  const { settings } = await loadSettings(deps.store);
  const enabled = Object.entries(settings.networks)
    .filter(([, entry]) => entry.enabled)
    .map(([origin, entry]) => ({ origin, issues_keys: entry.issue === true }));
  const passes = enabled.length > 0 && (await deps.canSign());
  return {
    // The customers this instance tells apart: anyone; an agent by its signing key; a person by a network's pass.
    tiers: ['anonymous', 'signed_agent', ...(passes ? ['person'] : [])],
    signatures: [
      {
        profile: AGENT_PROFILE.name,
        // Web Bot Auth's tag is read as well: a platform's signature with its key directory verifies here.
        tags: [...AGENT_PROFILE.tags],
        alg: AGENT_PROFILE.alg,
        key_headers: [fieldName(AGENT_PROFILE.keyHeader), fieldName(AGENT_PROFILE.agentHeader)],
        key_directory: AGENT_PROFILE.directoryPath,
        max_validity_seconds: AGENT_PROFILE.maxValiditySeconds,
        answer_header: 'Svc-Signature',
      },
    ],
    passes,
    // Passes travel in this header (a write may carry them in its body); never in a URL.
    pass_header: 'Svc-Pass',
    networks: passes ? enabled : [],
    guide: `${deps.publicBaseUrl}/docs/agents`,
  };
}
