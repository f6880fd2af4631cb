/**
 * Only the owner in the owner app changes the `security` section (inbox spec §5): the owner signed
 * in to the app (actor owner, channel owner_ui, docs/web.md). Anyone else (the owner key on REST or
 * MCP, an integration key, the owner's AI) may write a document back with `security` as it is: it is
 * accepted and the stored section is left exactly as it was. A key that leaks thus cannot turn off
 * scope enforcement or let AIs make keys; only someone at the app can.
 */
import { Problem } from '@svc/shared';
import { isDeepStrictEqual } from 'node:util';
import type { Caller } from '../types.js';
import { withDefaults } from './settings-document.js';

export function mayChangeSecurity(caller: Caller): boolean {
  return caller.kind === 'owner' && caller.actor.kind === 'owner' && caller.channel === 'owner_ui';
}

/**
 * Given the stored document before and after a write, refuses a caller who may not change
 * `security` when its effective values differ, and otherwise keeps the stored section untouched.
 */
export function guardSecuritySection(caller: Caller, before: Record<string, unknown>, after: Record<string, unknown>): Record<string, unknown> {
  if (mayChangeSecurity(caller)) return after;
  const effectiveBefore = withDefaults(before as Record<string, never>).security;
  const effectiveAfter = withDefaults(after as Record<string, never>).security;
  if (!isDeepStrictEqual(effectiveBefore, effectiveAfter)) {
    throw new Problem('not_allowed', 'Only the owner in the owner app (/app, Setup › Settings) can change settings.security; send it unchanged or leave it out.');
  }
  const kept = { ...after };
  if (before.security === undefined) delete kept.security;
  else kept.security = structuredClone(before.security);
  return kept;
}
