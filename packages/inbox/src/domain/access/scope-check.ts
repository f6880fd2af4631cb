/**
 * Scopes are logged first (inbox spec §5): a call outside the caller's scopes goes through and is
 * counted against the principal (a key, or an AI app's grant) with the scope it needed; with
 * `security.enforceScopes` on it is refused with 403 not_allowed naming the scope. The owner has
 * every scope. A scope a principal can never be granted (keys:write for an integration key) is
 * refused whatever the setting: there is nothing to learn by letting such a call through. An AI
 * app's scopes are the ones the owner left ticked on the consent page, and they bind it whatever
 * the setting (issue 12; docs/oauth.md "Granted scopes bind the app"): its other calls are refused
 * and recorded.
 */
import { Problem } from '@svc/shared';
import { readSettings, type DomainContext } from '../context.js';
import type { Caller } from '../types.js';

/** Scopes that can never be granted to a kind of principal (inbox spec §5: "An integration key never carries keys:write"). */
const NEVER_GRANTED: Partial<Record<string, readonly string[]>> = {
  integration: ['keys:write'],
};

export function canEverHold(caller: Caller, scope: string): boolean {
  return !(NEVER_GRANTED[caller.actor.kind] ?? []).includes(scope);
}

/**
 * Checks the scope an owner operation needs against the caller, recording a miss. Throws
 * not_allowed when the miss is refused. `scope` undefined (an operation that declares none) admits
 * the owner only: failing closed is safer than guessing.
 */
export async function checkScope(domain: DomainContext, caller: Caller, operation: string, scope: string | undefined): Promise<void> {
  if (caller.kind !== 'owner' || caller.actor.kind === 'owner') return;
  if (scope === undefined) throw new Problem('not_allowed', `${operation} is for the owner only.`);
  if (caller.scopes.includes(scope)) return;
  const enforced =
    !canEverHold(caller, scope) || caller.actor.kind === 'owner_ai' || (await readSettings(domain.store)).security.enforceScopes;
  const principalId = caller.keyId ?? caller.actor.id;
  // A principal without an id cannot be shown in a list; its refusal still stands.
  if (principalId !== null) {
    await domain.store.apiKeys.recordScopeMiss({
      principalId,
      principalKind: caller.actor.kind,
      operation,
      scope,
      refused: enforced,
      atMs: domain.clock.now(),
    });
  }
  if (enforced) {
    throw new Problem('not_allowed', `${operation} needs scope ${scope}, which this ${describe(caller)} does not have.`, {
      extensions: { scope },
    });
  }
}

function describe(caller: Caller): string {
  return caller.actor.kind === 'owner_ai' ? 'AI app' : 'key';
}
