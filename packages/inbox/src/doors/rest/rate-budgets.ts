/**
 * The inbox's budgets for bursts (docs/security.md), at scale 1. Sized for a real small business: a
 * customer's agent reads a few dozen pages and creates a handful of items; an owner's console or an
 * integration works all day. An anonymous flood spends only the anonymous budgets of its own address,
 * so it never locks the owner out (owner calls count per credential).
 */
import type { FastifyRequest } from 'fastify';
import type { AnyOperation, RateBudget } from '@svc/shared';
import { AUTHORIZATION_PATH, REGISTRATION_PATH, REVOCATION_PATH, TOKEN_PATH } from '../../domain/access/oauth/oauth-metadata.js';

export const INBOX_BUDGETS = {
  /** Creates and other public writes (bookings, orders, quotes, messages, cancels, answers): per address. */
  create: { name: 'create', max: 30, windowSec: 60, per: 'address', describes: 'items created or changed' },
  /** Public reads (profile, catalogue, availability, status views, public MCP reads): per address. */
  read: { name: 'read', max: 600, windowSec: 60, per: 'address', describes: 'reads' },
  /** One-time codes and credentials handed out (OAuth consent, token, registration, revocation): per address. */
  codes: { name: 'codes', max: 20, windowSec: 60, per: 'address', describes: 'sign-in and token requests' },
  /** Every public request of a verified signed agent, per key (docs/identity.md), besides its address's budgets. */
  agent: { name: 'agent', max: 300, windowSec: 60, per: 'signer', describes: 'signed requests' },
  /** Raw mail from a provider's webhook (POST /v1/email/inbound): per address. */
  mail: { name: 'mail', max: 120, windowSec: 60, per: 'address', describes: 'inbound mails' },
  /** The owner's side, per credential presented (integration keys also have their own ten a second). */
  owner: { name: 'owner', max: 1200, windowSec: 60, per: 'credential', describes: 'owner calls' },
} as const satisfies Record<string, RateBudget>;

/** One-time codes asked for or tried (verify_customer) count with sign-in and token requests. */
const CODE_PATHS = new Set([AUTHORIZATION_PATH, TOKEN_PATH, REGISTRATION_PATH, REVOCATION_PATH, '/v1/customers/verify']);
/** Not counted: health checks, so a monitor never sees a limited service as down. */
const UNCOUNTED_PATHS = new Set(['/healthz']);

interface JsonRpcCall {
  method?: unknown;
  params?: { name?: unknown };
}

/** The budget each request counts against. */
export function inboxBudgetOf<Ctx>(publicOperations: readonly AnyOperation<Ctx>[]): (request: FastifyRequest) => RateBudget | readonly RateBudget[] | undefined {
  const publicWrites = new Set(publicOperations.filter((op) => op.kind === 'write').map((op) => op.name));
  const callsAWrite = (message: unknown): boolean => {
    const call = message as JsonRpcCall | null;
    return call?.method === 'tools/call' && typeof call.params?.name === 'string' && publicWrites.has(call.params.name);
  };
  return (request) => {
    const path = request.url.split('?')[0] ?? '/';
    if (UNCOUNTED_PATHS.has(path)) return undefined;
    if (path === '/v1/owner' || path.startsWith('/v1/owner/') || path === '/mcp/owner') return INBOX_BUDGETS.owner;
    if (CODE_PATHS.has(path) && request.method !== 'GET') return INBOX_BUDGETS.codes;
    // The owner app: sign-in attempts count as credentials handed out; its pages as the owner's calls (docs/web.md).
    if (path === '/app/sign-in' && request.method === 'POST') return INBOX_BUDGETS.codes;
    if (path === '/app' || path.startsWith('/app/')) return INBOX_BUDGETS.owner;
    if (path === '/v1/email/inbound') return INBOX_BUDGETS.mail;
    if (path === '/mcp') {
      const body: unknown = request.body;
      return [(Array.isArray(body) ? body.some(callsAWrite) : callsAWrite(body)) ? INBOX_BUDGETS.create : INBOX_BUDGETS.read, INBOX_BUDGETS.agent];
    }
    // The address's budget first (what an answer reports), then the signing key's (skipped when unsigned).
    return [request.method === 'GET' || request.method === 'HEAD' ? INBOX_BUDGETS.read : INBOX_BUDGETS.create, INBOX_BUDGETS.agent];
  };
}
