/**
 * The directory's budgets for bursts (docs/security.md), at scale 1, per client address. Searching is
 * what agents do most: ten a second, on average, per address. Writes (an inbox registering, a check
 * asked for) are rare for any one caller.
 */
import type { FastifyRequest } from 'fastify';
import type { RateBudget } from '@svc/shared';

export const DIRECTORY_BUDGETS = {
  read: { name: 'read', max: 600, windowSec: 60, per: 'address', describes: 'searches and reads' },
  write: { name: 'write', max: 30, windowSec: 60, per: 'address', describes: 'registrations, pings and checks' },
  // An inbox publishes a receipt per promise made or closed, and catches up after an outage: ten a second.
  publish: { name: 'publish', max: 600, windowSec: 60, per: 'address', describes: 'receipts published' },
  /** Signed calls of member inboxes about their customers (persons, presentations, outcomes): one inbox serves many customers. */
  persons: { name: 'persons', max: 600, windowSec: 60, per: 'address', describes: 'calls about persons' },
} as const satisfies Record<string, RateBudget>;

/** The budget each request counts against (none for health checks, so a monitor never sees a limited service as down). */
export function directoryBudgetOf(request: FastifyRequest): RateBudget | undefined {
  const path = request.url.split('?')[0] ?? '/';
  if (path === '/healthz') return undefined;
  // The MCP door serves reads only.
  if (path === '/mcp' || request.method === 'GET' || request.method === 'HEAD') return DIRECTORY_BUDGETS.read;
  if (path === '/v1/receipts') return DIRECTORY_BUDGETS.publish;
  if (path === '/v1/persons' || path.startsWith('/v1/presentations')) return DIRECTORY_BUDGETS.persons;
  return DIRECTORY_BUDGETS.write;
}
