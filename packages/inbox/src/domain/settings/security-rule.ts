/**
 * Only the owner changes the `security` section (inbox spec §5). This project has no owner app, so
 * the owner's key stands for the owner's session (docs/keys-and-scopes.md). Anyone else (an
 * integration key, the owner's AI) may write a document back with `security` as it is: it is
 * accepted and the stored section is left exactly as it was.
 */
import { Problem } from '@svc/shared';
import { isDeepStrictEqual } from 'node:util';
import type { Caller } from '../types.js';
import { withDefaults } from './settings-document.js';

export function mayChangeSecurity(caller: Caller): boolean {
  return caller.kind === 'owner' && caller.actor.kind === 'owner';
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
    throw new Problem('not_allowed', 'Only the owner can change settings.security; send it unchanged or leave it out.');
  }
  const kept = { ...after };
  if (before.security === undefined) delete kept.security;
  else kept.security = structuredClone(before.security);
  return kept;
}
