/**
 * Subscription patterns (inbox spec §6 "Subscriptions"): an exact type, `<item type>.*`, or `*`.
 * The list of types is open, so an exact type is checked for shape, not against today's events.
 */
import { ITEM_TYPES } from '../types.js';
import type { TypeFilter } from '../../store/webhook-store.js';

const EXACT_TYPE = /^[a-z][a-z_]*\.[a-z][a-z_]*$/;

/** Why a pattern is refused, or null when it is one. */
export function patternProblem(pattern: string): string | null {
  if (pattern === '*') return null;
  const [prefix, rest] = pattern.split(/\.(.*)/s);
  if (rest === '*') {
    return (ITEM_TYPES as readonly string[]).includes(prefix ?? '') ? null : `${prefix}.* names no item type (${ITEM_TYPES.join(', ')})`;
  }
  if (!EXACT_TYPE.test(pattern)) return 'a pattern is an event type such as booking.confirm, an item type and .* (booking.*), or *';
  return null;
}

export function matchesPattern(pattern: string, type: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('.*')) return type.startsWith(pattern.slice(0, -1));
  return pattern === type;
}

/** An endpoint that subscribes to nothing receives nothing. */
export function matchesAny(patterns: readonly string[], type: string): boolean {
  return patterns.some((pattern) => matchesPattern(pattern, type));
}

/** The same patterns as a filter the store can run. */
export function typeFilterOf(patterns: readonly string[]): TypeFilter {
  if (patterns.includes('*')) return { all: true, exact: [], prefixes: [] };
  return {
    all: false,
    exact: patterns.filter((p) => !p.endsWith('.*')),
    prefixes: patterns.filter((p) => p.endsWith('.*')).map((p) => p.slice(0, -1)),
  };
}
