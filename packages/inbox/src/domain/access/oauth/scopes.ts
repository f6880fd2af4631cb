/** OAuth scopes are the key scopes (inbox spec §5: "OAuth clients ask for the same names"). */
import { ALL_SCOPES } from '../api-keys.js';
import { OAuthError } from './oauth-error.js';

export type Scope = (typeof ALL_SCOPES)[number];

/** Each scope in plain words, for the consent page and the metadata's readers. */
export const SCOPE_WORDS: Record<Scope, string> = {
  'inbox:read': 'Read your inbox: bookings, orders, quote requests, messages and refunds, with customers\u2019 contact details',
  'inbox:write': 'Act on your inbox: accept, decline or complete items and reply to customers',
  'events:read': 'Read the stream of everything that happens in your inbox',
  'catalogue:write': 'Change your services, products and prices',
  'availability:write': 'Change your opening hours and closures',
  'settings:read': 'Read your settings',
  'settings:write': 'Change your settings',
  'setup:run': 'Change your business profile and rules',
  'integrations:write': 'Add, change and remove webhooks and product feeds',
  'keys:write': 'Create and revoke API keys and disconnect AI apps',
};

export function isScope(value: string): value is Scope {
  return (ALL_SCOPES as readonly string[]).includes(value);
}

/**
 * Parses a space-separated scope parameter (RFC 6749 §3.3) into known scopes in catalogue order.
 * An unknown name is `invalid_scope`; duplicates collapse.
 */
export function parseScope(text: string): Scope[] {
  const names = text.split(' ').filter((name) => name.length > 0);
  const unknown = names.filter((name) => !isScope(name));
  if (unknown.length > 0) {
    throw new OAuthError('invalid_scope', `Unknown scope ${unknown.slice(0, 3).join(', ')}; the scopes are ${ALL_SCOPES.join(' ')}.`);
  }
  return ALL_SCOPES.filter((scope) => names.includes(scope));
}

export function formatScope(scopes: readonly string[]): string {
  return scopes.join(' ');
}
